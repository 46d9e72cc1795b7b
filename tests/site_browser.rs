//! The demo repository's site in headless Chromium (Debian's `chromium`):
//! every page loads, logs nothing to the console, and fetches nothing (each
//! page's Content-Security-Policy forbids every fetch, and Chromium logs a
//! blocked one to the console, which a control page shows); at 390 px and at
//! 1280 px no page scrolls sideways except a table that says it scrolls, no
//! table cell is off screen or cuts its text (on a phone a table's rows are
//! cards), no text is under 12 px (chart labels included) and no word is
//! split across lines. Screenshots of the index and a ledger page are saved under
//! `target/`; the README's picture of the index and the ledger page at
//! desktop and phone width are kept in `docs/screenshots/` (see
//! [`chromium::keep_screenshot`]: `GATEHOUSE_SCREENSHOTS=write` rewrites them).
//!
//! Without `chromium` on the PATH the test is skipped with a note; under
//! `CI=true` (`.ci/run` installs it) it must run.

mod chromium;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The window of the README's picture of the overview page.
const README_PICTURE: (u32, u32) = (960, 640);

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

/// Writes the demo repository's site into `target/NAME` and lists its pages.
fn demo_site(name: &str) -> (PathBuf, Vec<String>) {
    let out = target_dir().join(name);
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
    let pages: Vec<String> =
        gatehouse::source::fs::list(&out).unwrap().into_iter().filter(|p| p.ends_with(".html")).collect();
    assert!(pages.len() >= 15, "{pages:?}");
    (out, pages)
}

/// Runs `check` on each page, two browsers at a time (each run is mostly
/// start-up), and gathers what it reports.
fn each_page(pages: &[String], check: impl Fn(&str) -> Vec<String> + Sync) -> Vec<String> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = pages
            .chunks(pages.len().div_ceil(2))
            .map(|chunk| {
                let check = &check;
                scope.spawn(move || chunk.iter().flat_map(|page| check(page)).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    })
}

/// What `tests/chromium/measure.js` finds wrong with `page` in a frame
/// `width` px wide: sideways scrolling other than a table's that says so,
/// text under 12 px, words split across lines. The page's own policy allows
/// no script, so a page of the test's frames it and measures it from outside.
fn measure(chromium: &Path, page: &Path, width: u32) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let harness = dir.path().join("measure.html");
    std::fs::write(
        &harness,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"file://{}\" \
style=\"border:0;width:{width}px;height:900px\"></iframe><pre id=\"result\">pending</pre><script>{}\n\
document.getElementById('f').addEventListener('load', () => {{\n\
  let out; try {{ out = measure(document.getElementById('f')); }} catch (e) {{ out = ['measuring failed: ' + e]; }}\n\
  document.getElementById('result').textContent = 'RESULT ' + JSON.stringify(out);\n}});</script></body></html>",
            page.display(),
            include_str!("chromium/measure.js")
        ),
    )
    .unwrap();
    let output = run(
        chromium,
        &format!("file://{}", harness.display()),
        &["--allow-file-access-from-files", "--virtual-time-budget=10000", "--dump-dom"],
    );
    let dom = String::from_utf8_lossy(&output.stdout);
    let Some(json) = dom.split("RESULT ").nth(1).and_then(|rest| rest.split("</pre>").next()) else {
        return vec![format!("not measured: {}", String::from_utf8_lossy(&output.stderr))];
    };
    let json = json.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| vec![format!("unreadable measurement {json}: {e}")])
}

#[test]
fn pages_fit_a_phone_and_a_desktop() {
    let Some(chromium) = chromium::find("the site's layout test") else { return };
    let (out, pages) = demo_site("site-layout");
    // The measure finds what it is written to find.
    let bad = tempfile::tempdir().unwrap();
    let bad_page = bad.path().join("bad.html");
    std::fs::write(
        &bad_page,
        "<!DOCTYPE html><html><head><meta name=\"viewport\" content=\"width=device-width\"></head><body>\
<p style=\"font-size:10px\">small</p><table><tr><td style=\"overflow-wrap:anywhere\">counterargumentcounterargument</td>\
<td style=\"overflow-wrap:anywhere\">counterargumentcounterargument</td></tr></table>\
<div style=\"overflow-x:auto\"><div style=\"width:900px\">wide</div></div></body></html>",
    )
    .unwrap();
    let found = measure(&chromium, &bad_page, chromium::PHONE.0).join("\n");
    for what in ["text under 12 px: p", "scrolls sideways (900 in", "splits \"counterargumentcounterargument\""] {
        assert!(found.contains(what), "the measure reports `{what}`: {found}");
    }

    let problems = each_page(&pages, |page| {
        [chromium::PHONE.0, chromium::DESKTOP.0]
            .into_iter()
            .flat_map(|width| {
                measure(&chromium, &out.join(page), width)
                    .into_iter()
                    .map(move |p| format!("{page} at {width} px: {p}"))
            })
            .collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Table cells never break a word: a wide table scrolls instead.
    let style = gatehouse::site::html::STYLE;
    assert!(!style.contains("break-all") && !style.contains("anywhere"), "{style}");
}

#[test]
fn every_page_loads_in_chromium_without_console_messages_or_fetches() {
    let Some(chromium) = chromium::find("the site's browser test") else { return };
    let target = target_dir();
    let (out, pages) = demo_site("site-demo");

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

    let problems = each_page(&pages, |page| {
        let mut problems = Vec::new();
        let output = run(&chromium, &format!("file://{}", out.join(page).display()), &["--dump-dom"]);
        let dom = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || !dom.contains("<main id=\"main\">") || !dom.contains("</footer>") {
            problems.push(format!("{page} did not load: {}", String::from_utf8_lossy(&output.stderr)));
        }
        if !console(&output).is_empty() {
            problems.push(format!("{page} logged to the console: {:?}", console(&output)));
        }
        problems
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let shots = [
        ("index.html", "site-index.png", README_PICTURE, Some("site-index.png")),
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
