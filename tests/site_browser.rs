//! The demo repository's site in headless Chromium (Debian's `chromium`):
//! every page loads, logs nothing to the console, and fetches nothing (each
//! page's Content-Security-Policy forbids every fetch, and Chromium logs a
//! blocked one to the console, which a control page shows). Screenshots of
//! the index and a ledger page are saved under `target/`; the ledger page at
//! desktop and phone width is kept in `docs/screenshots/` (see
//! [`chromium::keep_screenshot`]: `GATEHOUSE_SCREENSHOTS=write` rewrites them).
//!
//! Without `chromium` on the PATH the test is skipped with a note; under
//! `CI=true` (`.ci/run` installs it) it must run.

mod chromium;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `target/` folder of this build.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/tmp has a parent").to_path_buf()
}

/// Runs headless Chromium on `url` with the extra `args`, in a fresh profile,
/// with console messages logged to stderr and every host name unresolvable.
fn run(chromium: &Path, url: &str, args: &[&str]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    Command::new(chromium)
        .args(chromium::HEADLESS)
        .args(["--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .output()
        .unwrap()
}

/// Console messages Chromium logged (`…:CONSOLE…] "message", source: …`).
fn console(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr).lines().filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect()
}

#[test]
fn every_page_loads_in_chromium_without_console_messages_or_fetches() {
    let Some(chromium) = chromium::find("the site's browser test") else { return };
    let target = target_dir();
    let out = target.join("site-demo");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo");
    let built = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["site", "--repo"])
        .arg(&demo)
        .arg("--out")
        .arg(&out)
        .args(["--as-of", "2026-07-28T12:00:00Z"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));

    // The control: a page whose policy blocks an image shows up in the log.
    let control = tempfile::tempdir().unwrap();
    let control_page = control.path().join("control.html");
    std::fs::write(
        &control_page,
        format!(
            "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"{}\"></head>\
<body><img src=\"https://example.com/x.png\" alt=\"\"></body></html>",
            gatehouse::site::html::CSP
        ),
    )
    .unwrap();
    let logged = console(&run(&chromium, &format!("file://{}", control_page.display()), &["--dump-dom"]));
    assert!(
        logged.iter().any(|l| l.contains("Content Security Policy") && l.contains("example.com")),
        "the blocked fetch is logged: {logged:?}"
    );

    let pages: Vec<String> =
        gatehouse::source::fs::list(&out).unwrap().into_iter().filter(|p| p.ends_with(".html")).collect();
    assert!(pages.len() >= 15, "{pages:?}");
    // Two browsers at a time: each run is mostly start-up.
    let problems: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = pages
            .chunks(pages.len().div_ceil(2))
            .map(|chunk| {
                let (chromium, out) = (&chromium, &out);
                scope.spawn(move || {
                    let mut problems = Vec::new();
                    for page in chunk {
                        let output = run(chromium, &format!("file://{}", out.join(page).display()), &["--dump-dom"]);
                        let dom = String::from_utf8_lossy(&output.stdout);
                        if !output.status.success() || !dom.contains("<main id=\"main\">") || !dom.contains("</footer>")
                        {
                            problems.push(format!("{page} did not load: {}", String::from_utf8_lossy(&output.stderr)));
                        }
                        if !console(&output).is_empty() {
                            problems.push(format!("{page} logged to the console: {:?}", console(&output)));
                        }
                    }
                    problems
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let shots = [
        ("index.html", "site-index.png", chromium::PHONE, None),
        ("ledgers/backup-scripts-v1.html", "site-ledger.png", chromium::PHONE, Some("site-phone.png")),
        ("ledgers/backup-scripts-v1.html", "site-ledger-desktop.png", chromium::DESKTOP, Some("site-desktop.png")),
    ];
    for (page, shot, (width, height), kept) in shots {
        let file = target.join(shot);
        let _ = std::fs::remove_file(&file);
        let url = format!("file://{}", out.join(page).display());
        let output = run(
            &chromium,
            &url,
            &[
                &format!("--screenshot={}", file.display()),
                &format!("--window-size={width},{height}"),
                "--hide-scrollbars",
            ],
        );
        assert!(output.status.success(), "{page}: {}", String::from_utf8_lossy(&output.stderr));
        assert!(console(&output).is_empty(), "{page}: {:?}", console(&output));
        let png = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(png.len() > 10_000, "{} is a screenshot", file.display());
        if let Some(name) = kept {
            chromium::keep_screenshot(&png, name, (width, height));
        }
    }
}
