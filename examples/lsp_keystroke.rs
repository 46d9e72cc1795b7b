//! The language server's work for a keystroke, in a workspace of issue 18's
//! shape: N briefs (10,000 by default) citing 50 ADRs, written to a
//! temporary folder. Times the first check (reading the workspace and
//! checking the open brief) and then each keystroke's check of the open
//! brief as `gatehouse lsp` runs it once typing pauses, and reports the
//! peak memory of the process.
//!
//! ```text
//! cargo run --release --example lsp_keystroke -- 10000
//! ```

// Only the file-writing half of the bench corpus is used here.
#[allow(dead_code)]
#[path = "../crates/gatehouse-core/corpus/briefs.rs"]
mod briefs;

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gatehouse::lsp::Workspace;

/// Keystrokes timed after the first check.
const KEYSTROKES: usize = 500;

fn main() -> Result<()> {
    let count: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().with_context(|| format!("`{n}` is not a number of briefs"))?,
        None => 10_000,
    };
    let dir = tempfile::tempdir()?;
    let shape = briefs::issue_18(count);
    let mut open = None;
    for (path, text) in briefs::adrs().chain(briefs::briefs(shape)) {
        if open.is_none() && path.contains("/briefs/") {
            open = Some((path.clone(), text.clone()));
        }
        write(dir.path(), &path, &text)?;
    }
    for path in briefs::source_files(shape) {
        write(dir.path(), &path, "fn main() {}\n")?;
    }
    let (path, mut text) = open.context("the corpus has briefs")?;

    let started = Instant::now();
    let mut workspace = Workspace::load(dir.path())?;
    workspace.open(path.clone(), &text, 1);
    let (report, _) = workspace.evaluate();
    let first = started.elapsed();
    let findings = report.findings().count();

    // Type a sentence into the open brief's body, one character a check.
    let typed = "The retry wrapper logs each attempt with its service and job id. ";
    let at = text.find("\n\nImplement").context("the brief has a body")? + 2;
    let mut times: Vec<Duration> = Vec::with_capacity(KEYSTROKES);
    for (i, c) in typed.chars().cycle().take(KEYSTROKES).enumerate() {
        text.insert(at + i, c);
        let started = Instant::now();
        workspace.open(path.clone(), &text, i as i32 + 2);
        let (report, _) = workspace.evaluate();
        std::hint::black_box(report);
        times.push(started.elapsed());
    }
    times.sort_unstable();
    let percentile = |p: f64| times[((times.len() as f64 * p).ceil() as usize).min(times.len()) - 1];
    println!("workspace: {count} briefs, 50 ADRs; the open brief has {findings} finding(s)");
    println!("first check (read the workspace, check the open brief): {:.0} ms", ms(first));
    println!(
        "keystroke checks ({KEYSTROKES}): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(percentile(0.50)),
        ms(percentile(0.99)),
        ms(times[times.len() - 1])
    );
    println!("peak memory (VmHWM): {}", peak_memory().unwrap_or_else(|| "unknown (no /proc)".into()));
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn write(root: &Path, path: &str, text: &str) -> Result<()> {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().context("a file is in a folder")?)?;
    std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))
}

/// The process's peak resident memory, as Linux reports it.
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(format!("{:.0} MB", kb / 1024.0))
}
