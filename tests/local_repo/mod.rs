//! Shared by the CLI and fixture suites: a good brief and its ADR, temporary
//! git repositories built with the system's `git`, and fixture folders laid
//! out on disk.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// A brief every brief rule passes, citing [`ADR`].
pub const GOOD: &str = "---
agent: SWARM-AR
repos_touched: [gyrum-labs/infra]
adrs_referenced: [ADR-095]
success_criteria:
  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"
out_of_scope:
  - a UI button for restores
lines_estimate: 80
---
# Backups

Implement ADR-095: extend `scripts/backup.sh`.
";

pub const ADR: &str = "# ADR-095: Backups are a host concern\n\nStatus: Accepted\n";

/// Runs `git -C dir args…` with a fixed identity and no signing; panics on
/// failure; returns its trimmed standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Writes `text` at `path` under `dir`, creating its folders.
pub fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Lays `from`'s files under `to` (nothing when `from` does not exist).
pub fn copy_tree(from: &Path, to: &Path) {
    if !from.exists() {
        return;
    }
    for rel in gatehouse::source::fs::list(from).unwrap() {
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&rel), target).unwrap();
    }
}
