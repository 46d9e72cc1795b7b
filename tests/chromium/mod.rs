//! Headless Chromium (Debian's `chromium`) for the suites that open pages.
//! Without it on the PATH a test is skipped with a note; under `CI=true`
//! (`.ci/run` installs it) a missing browser fails the test.

use std::path::PathBuf;

/// Flags for a headless run on a machine with no network: no background
/// connections, updates, sync or QUIC, which this machine's closed network
/// would refuse.
pub const HEADLESS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The `chromium` on the PATH; `None` (with a note naming `skipped`) when
/// there is none outside CI.
pub fn find(skipped: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|p| p.join("chromium")).find(|p| p.is_file()));
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is not on the PATH: .ci/run installs it (Debian's `chromium`)"
        );
        eprintln!("note: chromium is not on the PATH: skipping {skipped} (apt-get install chromium)");
    }
    found
}
