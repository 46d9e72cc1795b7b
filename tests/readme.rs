//! The README and the manuals in `docs/` run: every `sh` block that invokes
//! `gatehouse` (or `cargo run --release -- …`, which is the same binary) runs
//! here as written, from the root of a fresh clone (a git repository holding
//! every file the checkout tracks), where the README says examples run, and
//! must end with the exit status and print the output the document
//! documents, in at most a screen of lines. Whatever an example needs is set
//! up in the block itself, where a reader sees it. A block runs as a
//! reader's shell runs it: a `cd` holds for the commands after it, and
//! `mktemp` makes its folders in a temporary folder of the test's. No example
//! may write into the clone: an example that writes works on a scratch copy,
//! so a reader's clone stays clean, and the real checkout's `git status`
//! after the test is the one taken before it.
//!
//! A block is read as a reader would: a command (lines joined at a trailing
//! `\`, an inline `# …` comment dropped), then the `# …` lines right under
//! it (no blank line between) as the output it prints, `…` standing for
//! anything. An HTML comment on the line before the fence says what the
//! prose around the block says: `exit=N,N,…` (one status per command; 0 by
//! default), `next-text` (the ```text block after this one is output of its
//! last command) and `skip=REASON` for the blocks that need GitHub, a server
//! or a tool the test cannot have.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Default)]
struct Block {
    line: usize,
    commands: Vec<(String, Vec<String>)>,
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

/// The documents whose examples run: the README and every manual in `docs/`.
fn documents() -> Vec<(String, String)> {
    let mut paths = vec![manifest().join("README.md")];
    let mut manuals: Vec<PathBuf> = std::fs::read_dir(manifest().join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    manuals.sort();
    paths.extend(manuals);
    paths
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(manifest()).expect("inside the checkout").display().to_string();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect()
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
                    ("exit", codes) => {
                        block.exits = codes.split(',').map(|c| c.parse().expect("an exit status")).collect()
                    }
                    ("skip", why) => block.skip = Some(why.to_string()),
                    ("next-text", _) => block.next_text = Some(Vec::new()),
                    (other, _) => panic!("line {i}: unknown readme-test key `{other}`"),
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

/// Every file under `root` with its bytes, `.git` folders left out (git
/// refreshes its own index when gatehouse asks it about the work tree).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of the copy") {
            let path = entry.expect("an entry").path();
            if path.file_name().is_some_and(|name| name == ".git") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                files.insert(path.strip_prefix(root).expect("under the root").to_path_buf(), bytes);
            }
        }
    }
    files
}

/// What changed between two snapshots, one path a line.
fn changes(before: &BTreeMap<PathBuf, Vec<u8>>, after: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, bytes) in after {
        match before.get(path) {
            None => out.push(format!("wrote {}", path.display())),
            Some(old) if old != bytes => out.push(format!("changed {}", path.display())),
            Some(_) => {}
        }
    }
    out.extend(
        before.keys().filter(|path| !after.contains_key(*path)).map(|path| format!("removed {}", path.display())),
    );
    out
}

/// Lines a terminal shows at once: an example whose text shows none of its
/// output prints no more (one that shows output, whole or with `…`, tells
/// the reader what comes).
const SCREEN: usize = 60;

/// The files the checkout tracks (`git ls-files`).
fn tracked() -> Vec<PathBuf> {
    let out = Command::new("git").arg("ls-files").arg("-z").current_dir(manifest()).output().expect("git runs");
    assert!(out.status.success(), "the examples run in a clone of a git checkout");
    out.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).as_ref()))
        .collect()
}

/// A clone of the checkout at `root`: its tracked files, committed on `main`.
fn clone_into(root: &Path, files: &[PathBuf]) {
    for file in files {
        let to = root.join(file);
        std::fs::create_dir_all(to.parent().expect("a file has a folder")).expect("a folder of the clone");
        std::fs::copy(manifest().join(file), &to).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(root)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "clone"]);
}

fn run(block: &Block, bin: &Path, files: &[PathBuf]) -> Result<(), String> {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root = tmp.path().join("gatehouse");
    let scratch = tmp.path().join("tmp");
    std::fs::create_dir(&scratch).expect("a temporary folder for mktemp");
    clone_into(&root, files);
    let mut cwd = root.clone();
    let pwd_file = tmp.path().join("pwd");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let shell = |script: &str, cwd: &Path| {
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(cwd)
            .env("PATH", &path)
            .env("TMPDIR", &scratch)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("sh runs")
    };
    let before = snapshot(&root);
    for (n, (command, expected)) in block.commands.iter().enumerate() {
        // The folder the command ends in is where the next one starts, as in a reader's shell.
        let script = format!("{command}\nstatus=$?\npwd > '{}'\nexit $status", pwd_file.display());
        let out = shell(&script, &cwd);
        if let Ok(pwd) = std::fs::read_to_string(&pwd_file) {
            cwd = PathBuf::from(pwd.trim_end());
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let both = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        let want = block.exits.get(n).copied().unwrap_or(0);
        if out.status.code() != Some(want) {
            return Err(format!("`{command}` exited {:?}, the README says {want}:\n{both}", out.status.code()));
        }
        shows(expected, &both).map_err(|e| format!("`{command}`: {e}; it printed:\n{both}"))?;
        let documented = !expected.is_empty() || (n + 1 == block.commands.len() && block.next_text.is_some());
        if !documented && both.lines().count() > SCREEN {
            return Err(format!("`{command}` printed {} lines, more than a screen:\n{both}", both.lines().count()));
        }
        if n + 1 == block.commands.len()
            && let Some(text) = &block.next_text
        {
            shows(text, &stdout).map_err(|e| format!("`{command}`: {e}; it printed:\n{stdout}"))?;
        }
    }
    let written = changes(&before, &snapshot(&root));
    if !written.is_empty() {
        return Err(format!(
            "the example writes into the checkout (work on a scratch copy instead):\n{}",
            written.join("\n")
        ));
    }
    Ok(())
}

/// `git status --porcelain` of the real checkout, when it is a git work tree.
fn checkout_status() -> Option<String> {
    let out = Command::new("git").arg("status").arg("--porcelain").current_dir(manifest()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_gatehouse_example_in_the_readme_and_docs_runs_as_documented() {
    let bin = Path::new(env!("CARGO_BIN_EXE_gatehouse")).parent().expect("the binary's folder").to_path_buf();
    let status_before = checkout_status();
    let mut found = 0;
    let mut ran = 0;
    let mut failures = Vec::new();
    let files = tracked();
    for (name, text) in documents() {
        let blocks = blocks(&text);
        if name == "README.md" {
            assert!(blocks.iter().filter(|b| b.skip.is_none()).count() >= 5, "the README runs too few examples");
        }
        found += blocks.len();
        for block in blocks.iter().filter(|block| block.skip.is_none()) {
            ran += 1;
            if let Err(e) = run(block, &bin, &files) {
                failures.push(format!("{name}:{}: {e}", block.line));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(found >= 20 && ran >= 14, "found {found} blocks, ran only {ran}");
    assert_eq!(checkout_status(), status_before, "the examples changed the checkout's `git status`");
}

#[test]
fn the_reader_takes_commands_outputs_and_notes_as_written() {
    let readme = "<!-- readme-test: exit=1,0 -->\n```sh\n# what it does\ngatehouse a --b \\\n  --c  # inline\n# printed\n# more …\n\ngatehouse d\n```\n";
    let block = &blocks(readme)[0];
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
