//! `gatehouse new brief` end to end on a copy of the demo repository: the
//! brief it writes passes `gatehouse check --all` once its placeholders are
//! filled; an unknown or superseded ADR, a taken agent id, a repository
//! without a checkout and an existing file are refused with findings.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const REPO: &str = "gyrum-labs/dark-factory";

fn demo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo");
    for rel in gatehouse::source::fs::list(&from).unwrap() {
        let target = tmp.path().join(&rel);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&rel), target).unwrap();
    }
    tmp
}

fn gatehouse(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(args).arg("--repo").arg(dir).output().unwrap()
}

fn new_brief(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["new", "brief", "--repo-name", REPO, "--format", "json"];
    args.extend_from_slice(extra);
    gatehouse(dir, &args)
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

/// The findings `check --all` reports on one file, as `rule` ids with severities.
fn check_findings(dir: &Path, path: &str) -> Vec<(String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["check", "--all", "--format", "json", "--repo-name", REPO, "--repo"])
        .arg(dir)
        .output()
        .unwrap();
    let report = json(&out);
    let mut found = Vec::new();
    for f in report["findings"].as_array().unwrap().iter().filter(|f| f["path"] == path) {
        found.push((f["rule"].as_str().unwrap().to_string(), f["severity"].as_str().unwrap().to_string()));
    }
    found
}

#[test]
fn a_written_brief_passes_check_once_its_placeholders_are_filled() {
    let tmp = demo();
    let out = new_brief(
        tmp.path(),
        &["--agent", "SWARM-XY", "--slug", "pg-restore", "--touches", REPO, "--adr", "ADR-095", "--lines", "40"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = json(&out);
    let path = "dark-factory/briefs/SWARM-XY-pg-restore.md";
    assert_eq!(written["path"], path);
    assert_eq!(written["review_required"], false);
    let text = std::fs::read_to_string(tmp.path().join(path)).unwrap();
    assert_eq!(written["text"], text.as_str());
    assert!(text.contains("agent: SWARM-XY\nrepos_touched: [gyrum-labs/dark-factory]\nadrs_referenced: [ADR-095]\n"));
    assert!(text.contains("> Dumps go to off-host storage, never to the database host's own disk.\n"), "{text}");

    // Until filled, check flags the placeholders.
    let flagged = check_findings(tmp.path(), path);
    assert!(flagged.contains(&("brief/field-type".into(), "error".into())), "{flagged:?}");
    assert!(flagged.iter().any(|(rule, _)| rule == "brief/out-of-scope-empty"), "{flagged:?}");

    let filled = text
        .lines()
        .map(|line| match line.split(':').next() {
            Some("success_criteria") => {
                "success_criteria:\n  - \"`runbooks/restore.md` lists every step of a restore\"".to_string()
            }
            Some("out_of_scope") => "out_of_scope:\n  - a UI button for restores".to_string(),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(tmp.path().join(path), filled + "\n").unwrap();
    let left = check_findings(tmp.path(), path);
    assert!(left.iter().all(|(_, severity)| severity != "error"), "{left:?}");
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn multi_repo_briefs_need_review_whatever_the_estimate() {
    let tmp = demo();
    let infra = tempfile::tempdir().unwrap();
    let root = format!("gyrum-labs/infra={}", infra.path().display());
    let out = new_brief(
        tmp.path(),
        &[
            "--agent",
            "SWARM-XZ",
            "--slug",
            "two-repos",
            "--touches",
            REPO,
            "--touches",
            "gyrum-labs/infra",
            "--repo-root",
            &root,
            "--lines",
            "10",
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = json(&out);
    assert_eq!(written["review_required"], true);
    assert_eq!(written["review_reasons"], serde_json::json!(["2 repos touched > 1"]));
    let big = new_brief(tmp.path(), &["--agent", "SWARM-XW", "--slug", "big", "--touches", REPO, "--lines", "400"]);
    assert_eq!(json(&big)["review_reasons"], serde_json::json!(["lines_estimate 400 > 100"]));
}

/// A repository without a checkout is no reason to refuse: its paths are
/// notices, and the output says how to verify them.
#[test]
fn a_repository_without_a_checkout_is_written_with_a_note() {
    let tmp = demo();
    let args = ["--agent", "SWARM-XV", "--slug", "elsewhere", "--touches", "gyrum-labs/elsewhere", "--lines", "40"];
    let out = new_brief(tmp.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(json(&out)["unverifiable_repos"], serde_json::json!(["gyrum-labs/elsewhere"]));
    let mut text = vec!["new", "brief", "--repo-name", REPO];
    text.extend(["--agent", "SWARM-XU", "--slug", "elsewhere", "--touches", "gyrum-labs/elsewhere", "--lines", "40"]);
    let out = gatehouse(tmp.path(), &text);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("note: no checkout of `gyrum-labs/elsewhere`"), "{stdout}");
}

/// Each refusal exits 1 with the rule that refuses it, and writes nothing.
#[test]
fn refusals_exit_1_with_findings_and_write_nothing() {
    let tmp = demo();
    let cases: [(&[&str], &str, &str); 3] = [
        (&["--agent", "SWARM-XY", "--adr", "ADR-777"], "brief/adr-missing", "ADR-777 is not among"),
        (&["--agent", "SWARM-XY", "--adr", "ADR-080"], "brief/adr-superseded", "superseded by ADR-095"),
        (&["--agent", "SWARM-AR", "--adr", "ADR-095"], "brief/agent-duplicate", "already used"),
    ];
    for (extra, rule, message) in cases {
        let mut args = vec!["--slug", "refused", "--touches", REPO, "--lines", "40"];
        args.extend_from_slice(extra);
        let out = new_brief(tmp.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}");
        let refused = json(&out);
        assert_eq!(refused["written"], false);
        let findings = refused["findings"].as_array().unwrap();
        assert!(
            findings.iter().any(|f| f["rule"] == rule && f["message"].as_str().unwrap().contains(message)),
            "{extra:?}: {findings:#?}"
        );
        assert!(
            findings.iter().all(|f| f["rule"] != "brief/adr-not-honoured"),
            "{extra:?}: the scaffold does not fail its own quoting: {findings:#?}"
        );
        let briefs = std::fs::read_dir(tmp.path().join("dark-factory/briefs")).unwrap();
        assert_eq!(briefs.count(), 3, "{extra:?} wrote a file");
    }
    // Text output prints the findings as `check` does.
    let out = gatehouse(
        tmp.path(),
        &[
            "new",
            "brief",
            "--repo-name",
            REPO,
            "--agent",
            "SWARM-XY",
            "--slug",
            "s",
            "--touches",
            REPO,
            "--adr",
            "ADR-777",
            "--lines",
            "4",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("error[brief/adr-missing]: ADR-777 is not among"), "{stdout}");
    assert!(stdout.contains("adrs_referenced: [ADR-777]"), "{stdout}");
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let tmp = demo();
    let path = tmp.path().join("dark-factory/briefs/SWARM-AR-pg-backup.md");
    let before = std::fs::read_to_string(&path).unwrap();
    let args = ["--agent", "SWARM-AR", "--slug", "pg-backup", "--touches", REPO, "--lines", "40"];
    let out = new_brief(tmp.path(), &args);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["exists"], true);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn missing_fields_off_a_terminal_are_a_usage_error() {
    let tmp = demo();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["new", "brief", "--agent", "SWARM-XY", "--repo"])
        .arg(tmp.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--slug"));
}

/// Flags in error are named as flags, all at once, before anything is
/// scaffolded: never as a file to rename.
#[test]
fn bad_flags_are_named_as_flags() {
    let tmp = demo();
    let out = new_brief(tmp.path(), &["--agent", "swarm-xv", "--slug", "My Slug", "--touches", REPO, "--lines=-3"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for flag in ["--agent: `swarm-xv`", "--slug: `My Slug`", "--lines: `-3`"] {
        assert!(stderr.contains(flag), "{flag}: {stderr}");
    }
    assert!(!stderr.contains("rename"), "{stderr}");
    let out = new_brief(tmp.path(), &["--agent", "SWARM-XV", "--slug", "s", "--touches", REPO, "--lines", "-3"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--lines: `-3` is not a positive number"), "a negative value is read as one: {stderr}");
}
