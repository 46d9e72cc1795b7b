//! The README runs: every `sh` block that invokes `gatehouse` (or `cargo run
//! --release -- …`, which is the same binary) runs here as written, in a
//! temporary copy of the fixtures, and must end with the exit status and
//! print the output the README documents.
//!
//! A block is read as a reader would: a command (lines joined at a trailing
//! `\`, an inline `# …` comment dropped), then the `# …` lines right under
//! it (no blank line between) as the output it prints, `…` standing for
//! anything. An HTML comment on the line before the fence says what the
//! prose around the block says: `cwd=DIR` (relative to the copy's root),
//! `setup=SHELL` (run first, in that folder), `exit=N,N,…` (one status per
//! command; 0 by default), `next-text` (the ```text block after this one is
//! output of its last command) and `skip=REASON` for the blocks that need
//! GitHub, a server or a tool the test cannot have.

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Default)]
struct Block {
    line: usize,
    commands: Vec<(String, Vec<String>)>,
    cwd: Option<String>,
    setup: Option<String>,
    exits: Vec<i32>,
    next_text: Option<Vec<String>>,
    skip: Option<String>,
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo run --release -- ARGS` runs the binary under test as `gatehouse ARGS`.
fn as_gatehouse(command: &str) -> String {
    match command.strip_prefix("cargo run --release -- ") {
        Some(args) => format!("gatehouse {args}"),
        None => command.to_string(),
    }
}

/// A command that runs `gatehouse`, after any `NAME=value` assignments.
fn invokes_gatehouse(command: &str) -> bool {
    as_gatehouse(command)
        .split(['|', ';', '&'])
        .any(|part| part.split_whitespace().find(|word| !word.contains('=')) == Some("gatehouse"))
}

/// A command line without its inline `# comment`.
fn strip_comment(line: &str) -> &str {
    match line.find(" # ") {
        Some(at) => line[..at].trim_end(),
        None => line.trim_end(),
    }
}

fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != "```sh" {
            i += 1;
            continue;
        }
        let mut block = Block { line: i + 1, ..Block::default() };
        if let Some(note) = i.checked_sub(1).and_then(|p| lines[p].strip_prefix("<!-- readme-test: ")) {
            for part in note.trim_end_matches("-->").trim().split("; ") {
                match part.split_once('=').unwrap_or((part, "")) {
                    ("cwd", dir) => block.cwd = Some(dir.to_string()),
                    ("setup", shell) => block.setup = Some(shell.to_string()),
                    ("exit", codes) => {
                        block.exits = codes.split(',').map(|c| c.parse().expect("an exit status")).collect()
                    }
                    ("skip", why) => block.skip = Some(why.to_string()),
                    ("next-text", _) => block.next_text = Some(Vec::new()),
                    (other, _) => panic!("README.md:{i}: unknown readme-test key `{other}`"),
                }
            }
        }
        i += 1;
        let mut after_command = false;
        while lines[i] != "```" {
            let line = lines[i];
            if line.is_empty() {
                after_command = false;
            } else if let Some(output) = line.strip_prefix("# ").filter(|_| after_command) {
                block.commands.last_mut().expect("a command").1.push(output.to_string());
            } else if !line.starts_with('#') && !line.starts_with(' ') {
                let mut command = strip_comment(line).to_string();
                while command.ends_with('\\') {
                    command.pop();
                    i += 1;
                    command.push_str(strip_comment(lines[i].trim_start()));
                }
                block.commands.push((as_gatehouse(&command), Vec::new()));
                after_command = true;
            }
            i += 1;
        }
        if block.next_text.is_some() {
            let start = (i..lines.len()).find(|&j| lines[j] == "```text").expect("a text block follows") + 1;
            let end = (start..lines.len()).find(|&j| lines[j] == "```").expect("the text block ends");
            block.next_text = Some(lines[start..end].iter().map(|l| l.to_string()).collect());
        }
        if block.commands.iter().any(|(c, _)| invokes_gatehouse(c)) {
            out.push(block);
        }
        i += 1;
    }
    out
}

/// True when `line` matches `pattern`, `…` standing for anything.
fn matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split('…').collect();
    let [first, middle @ .., last] = parts.as_slice() else { return line == pattern };
    let Some(mut rest) = line.strip_prefix(first) else { return false };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Every expected line appears in `output`, in order (a lone `…` skips).
fn shows(expected: &[String], output: &str) -> Result<(), String> {
    let mut lines = output.lines();
    for want in expected.iter().filter(|w| w.as_str() != "…") {
        if !lines.any(|line| matches(want, line.trim_end())) {
            return Err(format!("the README documents `{want}`"));
        }
    }
    Ok(())
}

fn copy(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-r").arg(from).arg(to).status().expect("cp");
    assert!(status.success());
}

fn run(block: &Block, bin: &Path) -> Result<(), String> {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir(tmp.path().join("fixtures")).expect("fixtures");
    for fixture in ["demo-repo", "starter-repo", "gate"] {
        copy(&manifest().join("fixtures").join(fixture), &tmp.path().join("fixtures").join(fixture));
    }
    let cwd = tmp.path().join(block.cwd.as_deref().unwrap_or("."));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let shell = |script: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(&cwd)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("sh runs")
    };
    if let Some(setup) = &block.setup {
        let out = shell(setup);
        if !out.status.success() {
            return Err(format!("setup failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    for (n, (command, expected)) in block.commands.iter().enumerate() {
        let out = shell(command);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let both = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        let want = block.exits.get(n).copied().unwrap_or(0);
        if out.status.code() != Some(want) {
            return Err(format!("`{command}` exited {:?}, the README says {want}:\n{both}", out.status.code()));
        }
        shows(expected, &both).map_err(|e| format!("`{command}`: {e}; it printed:\n{both}"))?;
        if n + 1 == block.commands.len()
            && let Some(text) = &block.next_text
        {
            shows(text, &stdout).map_err(|e| format!("`{command}`: {e}; it printed:\n{stdout}"))?;
        }
    }
    Ok(())
}

#[test]
fn every_gatehouse_example_in_the_readme_runs_as_documented() {
    let readme = std::fs::read_to_string(manifest().join("README.md")).expect("README.md");
    let bin = Path::new(env!("CARGO_BIN_EXE_gatehouse")).parent().expect("the binary's folder").to_path_buf();
    let blocks = blocks(&readme);
    assert!(blocks.len() >= 14, "found only {} blocks", blocks.len());
    let mut ran = 0;
    let mut failures = Vec::new();
    for block in &blocks {
        if block.skip.is_some() {
            continue;
        }
        ran += 1;
        if let Err(e) = run(block, &bin) {
            failures.push(format!("README.md:{}: {e}", block.line));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 8, "ran only {ran} blocks");
}

#[test]
fn the_reader_takes_commands_outputs_and_notes_as_written() {
    let readme = "<!-- readme-test: cwd=x; exit=1,0 -->\n```sh\n# what it does\ngatehouse a --b \\\n  --c  # inline\n# printed\n# more …\n\ngatehouse d\n```\n";
    let block = &blocks(readme)[0];
    assert_eq!(block.cwd.as_deref(), Some("x"));
    assert_eq!(block.exits, [1, 0]);
    assert_eq!(
        block.commands,
        [
            ("gatehouse a --b --c".to_string(), vec!["printed".to_string(), "more …".to_string()]),
            ("gatehouse d".to_string(), vec![])
        ]
    );
    assert!(matches("wrote … pages to site", "wrote 17 pages to site"));
    assert!(!matches("wrote … pages", "wrote 17 pages to site"));
    assert!(matches("exact", "exact") && !matches("exact", "exactly"));
    assert!(shows(&["a".into(), "…".into(), "c…".into()], "a\nb\ncd\n").is_ok());
    assert!(shows(&["c".into(), "a".into()], "a\nc\n").is_err(), "in order");
}
