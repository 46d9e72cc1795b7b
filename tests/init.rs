//! `gatehouse init`: a starter `.github/gatehouse.yml` with the paths found
//! in the repository and the review policy from the flags, validated, never
//! overwriting one.

use std::path::Path;
use std::process::{Command, Output};

fn starter() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/starter-repo");
    let status = Command::new("cp").arg("-r").arg(&src).arg(tmp.path().join("repo")).status().unwrap();
    assert!(status.success());
    tmp
}

fn gatehouse(args: &[&str], repo: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(args)
        .arg("--repo")
        .arg(repo)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_policy_from_flags_is_written_validated_and_read_by_check() {
    let tmp = starter();
    let repo = tmp.path().join("repo");
    let out = gatehouse(&["init", "--reviewer", "alice", "--reviewer", "bob", "--advisory", "dana"], &repo);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("  briefs: agents/briefs/*.md\n"), "{stdout}");
    assert!(stdout.contains("  review: 2 of alice, bob approve and dana reviews\n"), "{stdout}");
    let written = std::fs::read_to_string(repo.join(".github/gatehouse.yml")).unwrap();
    assert!(written.contains("review:\n  core: { reviewers: [alice, bob], required: 2 }\n  advisory: [dana]\n"));
    assert!(written.contains("briefs:\n  paths: [\"agents/briefs/*.md\"]\n"), "{written}");

    let check = gatehouse(&["check", "--all", "--repo-name", "acme/shop"], &repo);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
    assert!(String::from_utf8_lossy(&check.stdout).contains("gatehouse/briefs       success  1 document checked"));

    let again = gatehouse(&["init", "--no-review"], &repo);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwrites"));
    assert_eq!(std::fs::read_to_string(repo.join(".github/gatehouse.yml")).unwrap(), written);
}

#[test]
fn without_flags_off_a_terminal_no_policy_is_written_and_a_bad_policy_nothing() {
    let tmp = starter();
    let repo = tmp.path().join("repo");
    let out = gatehouse(&["init", "--reviewer", "alice", "--required", "2"], &repo);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 approvals cannot come from 1 core reviewer"));
    let out = gatehouse(&["init", "--reviewer", "not a login"], &repo);
    assert_eq!(out.status.code(), Some(2));
    assert!(!repo.join(".github").exists(), "nothing written");

    let out = gatehouse(&["init"], &repo);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("review: none;"));
    let written = std::fs::read_to_string(repo.join(".github/gatehouse.yml")).unwrap();
    assert!(written.contains("# review:\n#   core: { reviewers: [alice, bob, carol], required: 2 }\n"), "{written}");
    assert!(!written.lines().any(|l| l.starts_with("review:")), "{written}");
}
