//! `gatehouse` on repositories built to hurt it: links that lead out of the
//! repository, FIFOs, links to devices, huge sparse files, file names that
//! carry control characters, and a reader that closes the pipe early.

#![cfg(unix)]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod local_repo;
use local_repo::{ADR, GOOD, git, write};

const BRIEFS: &str = "dark-factory/briefs";

fn symlink(dir: &Path, path: &str, target: impl AsRef<Path>) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, path).unwrap();
}

/// A repository in `tmp/repo` whose `main` holds an ADR, a script and a good
/// brief, with HEAD on a `feature` branch; `tmp/outside` holds a secret.
fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    std::fs::create_dir(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    write(&dir, "docs/adr/ADR-095-backups.md", ADR);
    write(&dir, "scripts/backup.sh", "#!/bin/sh\n");
    write(&dir, &format!("{BRIEFS}/SWARM-AR-pg-backup.md"), GOOD);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "base"]);
    git(&dir, &["checkout", "-qb", "feature"]);
    write(tmp.path(), "outside/secret.md", "root:x:0:0:SECRET-LINE:/root:/bin/sh\n");
    write(tmp.path(), "outside/gatehouse.yml", "briefs:\n  paths: [SECRET-CONFIG/**]\n");
    tmp
}

/// Runs `gatehouse ARGS` in `dir`; a run past a minute (a FIFO opened, a
/// device read) fails the test instead of hanging it.
fn run(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let stdout = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let stderr = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    for _ in 0..600 {
        if let Some(status) = child.try_wait().unwrap() {
            return Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() };
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("gatehouse {args:?} still running after a minute");
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn links_out_of_the_repository_are_findings_never_followed() {
    let tmp = repo();
    let dir = tmp.path().join("repo");
    let secret = tmp.path().join("outside/secret.md");
    symlink(&dir, &format!("{BRIEFS}/SWARM-AR-absolute.md"), &secret);
    symlink(&dir, &format!("{BRIEFS}/SWARM-AR-relative.md"), "../../../outside/secret.md");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "links"]);
    for args in [&["check"][..], &["check", "--head", "HEAD"], &["check", "--all"]] {
        let out = run(&dir, args);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {shown}");
        assert!(!shown.contains("SECRET-LINE"), "{args:?} read through a link: {shown}");
        for name in ["SWARM-AR-absolute.md", "SWARM-AR-relative.md"] {
            // The finding's message sits on the line above its `--> path`.
            let lines: Vec<&str> = shown.lines().collect();
            let at = lines.iter().position(|l| l.contains("-->") && l.contains(name));
            let message = at.and_then(|at| at.checked_sub(1)).map_or("", |above| lines[above]);
            assert!(
                message.contains("symbolic link to") && message.contains("outside the repository"),
                "{args:?}: {shown}"
            );
        }
        assert_eq!(shown.matches("is a symbolic link to").count(), 2, "{args:?}: {shown}");
        assert!(shown.contains(&format!("symbolic link to `{}`, outside the repository", secret.display())), "{shown}");
    }
}

#[test]
fn a_config_linked_out_of_the_repository_is_not_applied() {
    let tmp = repo();
    let dir = tmp.path().join("repo");
    symlink(&dir, ".github/gatehouse.yml", tmp.path().join("outside/gatehouse.yml"));
    write(&dir, &format!("{BRIEFS}/SWARM-AR-second.md"), &GOOD.replace("lines_estimate: 80", "lines_estimate: x"));
    for args in [&["check"][..], &["check", "--all"]] {
        let out = run(&dir, args);
        let shown = text(&out);
        assert!(!shown.contains("SECRET-CONFIG"), "{args:?}: {shown}");
        assert!(shown.contains(".github/gatehouse.yml"), "{args:?}: {shown}");
        assert!(shown.contains("symbolic link to"), "{args:?}: {shown}");
        // A config that cannot be read fails its own check; the briefs wait for one that can.
        assert!(shown.contains("gatehouse/config       failure"), "{args:?}: {shown}");
        assert!(
            shown.contains("gatehouse/briefs       neutral  not evaluated: the config is invalid"),
            "{args:?}: {shown}"
        );
        assert!(!shown.contains("SWARM-AR-second.md"), "{args:?}: {shown}");
    }
}

#[test]
fn untracked_fifos_devices_and_sparse_files_are_never_read() {
    let tmp = repo();
    let dir = tmp.path().join("repo");
    let fifo = |path: &str| {
        let status = Command::new("mkfifo").arg(dir.join(path)).status().unwrap();
        assert!(status.success());
    };
    fifo("notes.pipe");
    fifo(&format!("{BRIEFS}/SWARM-AR-pipe.md"));
    symlink(&dir, "zero.txt", "/dev/zero");
    symlink(&dir, "pipe-link.txt", "notes.pipe");
    symlink(&dir, &format!("{BRIEFS}/SWARM-AR-zero.md"), "/dev/zero");
    let sparse = |path: &str| std::fs::File::create(dir.join(path)).unwrap().set_len(3 << 29).unwrap();
    sparse("huge.bin");
    sparse(&format!("{BRIEFS}/SWARM-AR-huge.md"));
    for args in [&["check"][..], &["check", "--all"]] {
        let out = run(&dir, args);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {shown}");
        assert!(shown.contains("symbolic link to `/dev/zero`, outside the repository"), "{args:?}: {shown}");
        assert!(shown.contains("the file is 1.5 GiB (1610612736 bytes), over the"), "{args:?}: {shown}");
        assert!(!shown.contains("panicked"), "{args:?}: {shown}");
    }
}

#[test]
fn control_characters_in_names_and_text_are_escaped() {
    let tmp = repo();
    let dir = tmp.path().join("repo");
    let forged = format!("{BRIEFS}/SWARM-AR-x\x1b[2J\n::error file=injected.md::INJECTED\n.md");
    write(&dir, &forged, "---\nagent: \x1b[31mSWARM-AR\x1b]8;;https://evil.example\x07\n---\n\x1b[2J# Title\n");
    for format in ["text", "github"] {
        let out = run(&dir, &["check", "--format", format]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}: {stdout}");
        assert!(stdout.contains("SWARM-AR-x"), "{format}: {stdout}");
        assert!(!stdout.lines().any(|l| l.trim_start().starts_with("::error file=injected")), "{format}: {stdout}");
        assert!(!stdout.contains('\x1b') && !stdout.contains('\x07'), "{format}: {stdout:?}");
        assert!(stdout.contains("\\u{1b}"), "{format}: {stdout}");
    }
}

/// Runs `gatehouse ARGS` with its stdout a pipe whose reader is gone, as
/// behind `| head` once head has exited; returns the exit status and stderr.
fn into_a_closed_pipe(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let tmp = repo();
    let dir = tmp.path().join("repo");
    write(&dir, &format!("{BRIEFS}/SWARM-AR-broken.md"), "---\nagent: nobody\n---\n");
    let voting =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo/dark-factory/guidelines/backup-scripts@v1.md");
    let voting = voting.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["check"],
        &["check", "--format", "json"],
        &["check", "--format", "github"],
        &["rules"],
        &["explain", "doc/unreadable"],
        &["tally", voting],
        &["tally", voting, "--format", "json"],
    ];
    for args in commands {
        let (code, stderr) = into_a_closed_pipe(&dir, args);
        assert_eq!(stderr, "", "{args:?}");
        assert_eq!(code, Some(141), "{args:?}: the exit status of a command stopped by SIGPIPE");
    }
}
