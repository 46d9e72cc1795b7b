//! `gatehouse check --fix` end to end on a copy of the demo repository: it
//! fixes what is mechanical, leaves the rest reported, never writes outside
//! the working tree, and `--dry-run` writes nothing.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod local_repo;
use local_repo::{copy_tree, git, write};

const BRIEF: &str = "dark-factory/briefs/SWARM-AP-buzzy-features.md";

fn demo_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo"), tmp.path());
    tmp
}

fn check(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse")).arg("check").arg("--repo").arg(dir).args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn rules(v: &Value) -> Vec<String> {
    v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect()
}

#[test]
fn json_carries_each_verified_fix() {
    let demo = demo_copy();
    let out = check(demo.path(), &["--all", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixed: Vec<&Value> = report["findings"].as_array().unwrap().iter().filter(|f| f.get("fix").is_some()).collect();
    let fixable: Vec<&str> = fixed.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(fixable, ["brief/repo-duplicate", "brief/field-type"], "{report:#}");
    let fix = &fixed[1]["fix"];
    assert_eq!(fix["message"], "write `lines_estimate: 60`");
    let edit = &fix["edits"][0];
    assert_eq!(edit["path"], BRIEF);
    let text = std::fs::read_to_string(demo.path().join(BRIEF)).unwrap();
    let (start, end) = (edit["start"].as_u64().unwrap() as usize, edit["end"].as_u64().unwrap() as usize);
    assert_eq!((&text[start..end], edit["replacement"].as_str().unwrap()), ("\"60\"", "60"));
    let unfixable = report["findings"].as_array().unwrap().iter().filter(|f| f.get("fix").is_none()).count();
    assert!(unfixable > 10, "findings without a fix omit the key");
}

#[test]
fn sarif_carries_fixes_as_artifact_changes() {
    let demo = demo_copy();
    let sarif: Value = serde_json::from_slice(&check(demo.path(), &["--all", "--format", "sarif"]).stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let with_fix: Vec<&Value> = results.iter().filter(|r| r.get("fixes").is_some()).collect();
    assert_eq!(with_fix.len(), 2);
    let fix = &with_fix[1]["fixes"][0];
    assert_eq!(fix["description"]["text"], "write `lines_estimate: 60`");
    let change = &fix["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], BRIEF);
    let replacement = &change["replacements"][0];
    assert_eq!(replacement["deletedRegion"]["byteLength"], 4);
    assert!(replacement["deletedRegion"]["byteOffset"].as_u64().unwrap() > 0);
    assert_eq!(replacement["insertedContent"]["text"], "60");
}

#[test]
fn fix_applies_what_is_mechanical_and_reports_the_rest() {
    let demo = demo_copy();
    let before = std::fs::read_to_string(demo.path().join(BRIEF)).unwrap();

    let dry = check(demo.path(), &["--all", "--fix", "--dry-run"]);
    let printed = stdout(&dry);
    assert!(printed.contains("would fix[brief/field-type]: write `lines_estimate: 60`"), "{printed}");
    assert!(printed.contains(&format!("--- a/{BRIEF}\n+++ b/{BRIEF}\n")), "{printed}");
    assert!(printed.contains("\n-lines_estimate: \"60\"\n+lines_estimate: 60\n"), "{printed}");
    assert!(printed.contains("\n+repos_touched: [gyrum-labs/dark-factory]\n"), "{printed}");
    assert_eq!(std::fs::read_to_string(demo.path().join(BRIEF)).unwrap(), before, "--dry-run writes nothing");

    let fixed = check(demo.path(), &["--all", "--fix"]);
    let printed = stdout(&fixed);
    assert!(
        printed.contains("fixed[brief/repo-duplicate]: remove the repeated `Gyrum-Labs/dark-factory`"),
        "{printed}"
    );
    assert_eq!(fixed.status.code(), Some(1), "the errors that need the author remain: {printed}");
    let after = std::fs::read_to_string(demo.path().join(BRIEF)).unwrap();
    assert_eq!(
        after,
        before
            .replace("[gyrum-labs/dark-factory, Gyrum-Labs/dark-factory]", "[gyrum-labs/dark-factory]")
            .replace("lines_estimate: \"60\"", "lines_estimate: 60")
    );

    let again = check(demo.path(), &["--all", "--format", "json"]);
    let report: Value = serde_json::from_slice(&again.stdout).unwrap();
    let left = rules(&report);
    assert!(!left.iter().any(|r| r == "brief/field-type" || r == "brief/repo-duplicate"), "{left:?}");
    assert!(left.iter().any(|r| r == "brief/adr-not-honoured"), "what needs the author is still reported: {left:?}");
    assert!(!stdout(&check(demo.path(), &["--all", "--fix"])).contains("fixed["), "nothing is left to fix");
}

#[test]
fn fix_keeps_a_byte_order_mark_and_refuses_a_revision() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    let demo = demo_copy();
    copy_tree(demo.path(), dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    git(dir, &["checkout", "-qb", "feature"]);
    let text = std::fs::read_to_string(dir.join(BRIEF)).unwrap();
    write(dir, BRIEF, &format!("\u{feff}{}", text.replace("agent: SWARM-AP", "agent: SWARM-AX")));

    let out = check(dir, &["--fix"]);
    assert!(stdout(&out).contains("fixed[brief/agent-mismatch]: set `agent: SWARM-AP`"), "{}", stdout(&out));
    let bytes = std::fs::read(dir.join(BRIEF)).unwrap();
    assert!(bytes.starts_with("\u{feff}".as_bytes()), "the byte order mark stays");
    assert!(String::from_utf8(bytes).unwrap().contains("\nagent: SWARM-AP\n"));

    let refused = check(dir, &["--fix", "--head", "HEAD"]);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "a revision is never fixed: {}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
