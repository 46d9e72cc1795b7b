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

/// Window sizes of the screenshots kept in `docs/screenshots/`.
pub const DESKTOP: (u32, u32) = (1280, 900);
pub const PHONE: (u32, u32) = (390, 844);

/// A PNG's width and height, from its header.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 24 && &png[12..16] == b"IHDR", "not a PNG");
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

/// Keeps a fresh screenshot as `docs/screenshots/NAME`. With
/// `GATEHOUSE_SCREENSHOTS=write` it is written there (how the committed ones
/// are made); otherwise the committed one must exist at the same size, and
/// the tree is left as it is (pixels differ from machine to machine with
/// the fonts installed, so they are not compared).
pub fn keep_screenshot(fresh: &[u8], name: &str, size: (u32, u32)) {
    assert_eq!(png_size(fresh), size, "{name}: the screenshot has the window's size");
    let kept = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots").join(name);
    if std::env::var("GATEHOUSE_SCREENSHOTS").as_deref() == Ok("write") {
        std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
        std::fs::write(&kept, fresh).unwrap();
        return;
    }
    let committed = std::fs::read(&kept)
        .unwrap_or_else(|e| panic!("{}: {e}; make it with GATEHOUSE_SCREENSHOTS=write", kept.display()));
    assert_eq!(png_size(&committed), size, "{} is out of date: GATEHOUSE_SCREENSHOTS=write", kept.display());
}
