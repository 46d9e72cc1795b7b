//! One finding shape in every command's JSON, published as `gatehouse schema
//! report`: `check`'s JSON validates against it whole, `new brief`'s findings
//! and `rules`' entries against its `$defs`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn gatehouse(args: &[&str]) -> (Option<i32>, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(args).output().unwrap();
    let value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), value)
}

fn schema() -> Value {
    let (code, schema) = gatehouse(&["schema", "report"]);
    assert_eq!(code, Some(0));
    schema
}

/// A validator of the report schema's `$defs/<name>`.
fn part(name: &str) -> jsonschema::Validator {
    let whole = schema();
    let wrapper = json!({ "$schema": whole["$schema"], "$defs": whole["$defs"], "$ref": format!("#/$defs/{name}") });
    jsonschema::draft202012::new(&wrapper).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, value: &Value, what: &str) {
    let errors: Vec<String> = validator.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{value:#}");
}

fn demo_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let status =
        Command::new("cp").arg("-r").arg(root().join("fixtures/demo-repo")).arg(tmp.path().join("repo")).status();
    assert!(status.unwrap().success());
    tmp
}

#[test]
fn check_output_validates_whole() {
    let whole = jsonschema::draft202012::new(&schema()).unwrap();
    let demo = root().join("fixtures/demo-repo");
    let body = root().join("fixtures/app/demo/pr-body.md");
    let (code, report) = gatehouse(&["check", "--all", "--format", "json", "--repo", demo.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(report["findings"].as_array().unwrap().len() > 10);
    assert_valid(&whole, &report, "check --all on the demo");
    let args = ["check", "--all", "--format", "json", "--pr-body", body.to_str().unwrap(), "--repo"];
    let (_, with_body) = gatehouse(&[&args[..], &[demo.to_str().unwrap()]].concat());
    assert_valid(&whole, &with_body, "check --all --pr-body");
    let mut broken = report.clone();
    broken["findings"][0]["col"] = json!(3);
    assert!(!whole.is_valid(&broken), "a key beside the shape is refused");
}

#[test]
fn an_invalid_config_report_validates() {
    let whole = jsonschema::draft202012::new(&schema()).unwrap();
    let tmp = demo_copy();
    let repo = tmp.path().join("repo");
    std::fs::write(repo.join(".github/gatehouse.yml"), "limits:\n  max_file_bytes: lots\n").unwrap();
    let (code, report) = gatehouse(&["check", "--all", "--format", "json", "--repo", repo.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_valid(&whole, &report, "check --all with an invalid config");
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!((&findings[0]["rule"], &findings[0]["check"]), (&json!("config/invalid"), &json!("gatehouse/config")));
    let summaries: Vec<&str> =
        report["checks"].as_array().unwrap().iter().map(|c| c["summary"].as_str().unwrap()).collect();
    assert_eq!(summaries[0], "`.github/gatehouse.yml` checked");
    assert!(summaries[1..].iter().all(|s| *s == "not evaluated: the config is invalid"), "{summaries:?}");
}

#[test]
fn new_brief_findings_and_rules_share_the_shapes() {
    let tmp = demo_copy();
    let repo = tmp.path().join("repo");
    let (code, refused) = gatehouse(&[
        "new",
        "brief",
        "--format",
        "json",
        "--repo-name",
        "gyrum-labs/dark-factory",
        "--agent",
        "SWARM-AR",
        "--slug",
        "again",
        "--touches",
        "gyrum-labs/dark-factory",
        "--adr",
        "ADR-777",
        "--lines",
        "10",
        "--repo",
        repo.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    let finding = part("finding");
    let findings = refused["findings"].as_array().unwrap();
    assert!(findings.len() >= 2, "{refused:#}");
    for f in findings {
        assert_valid(&finding, f, "a new brief finding");
        assert_eq!(f["check"], "gatehouse/briefs");
    }
    let (code, rules) = gatehouse(&["rules", "--format", "json"]);
    assert_eq!(code, Some(0));
    let rule = part("rule");
    let listed = rules["rules"].as_array().unwrap();
    assert!(listed.len() > 50);
    for r in listed {
        assert_valid(&rule, r, "a rule");
    }
}

/// Findings about the pull request's body name no file in SARIF or in
/// workflow commands: a logical location, and the line in the message.
#[test]
fn pull_request_body_findings_carry_no_file_location() {
    let tmp = tempfile::tempdir().unwrap();
    let body = tmp.path().join("body.md");
    std::fs::write(&body, "Brief: SWARM-ZZ-nothing\n").unwrap();
    let demo = root().join("fixtures/demo-repo");
    let run = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
            .args(["check", "--all", "--format", format, "--pr-body"])
            .arg(&body)
            .arg("--repo")
            .arg(&demo)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let github = run("github");
    let cite = github.lines().find(|l| l.contains("title=cite/brief::")).expect("a cite/brief annotation");
    assert!(cite.starts_with("::error title=cite/brief::in the pull request body, line 1: no merged brief"), "{cite}");
    assert!(!github.contains("file=(pull request body)"), "{github}");
    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let cite = results.iter().find(|r| r["ruleId"] == "cite/brief").expect("a cite/brief result");
    assert_eq!(
        cite["locations"][0],
        json!({ "logicalLocations": [{ "name": "pull request body", "kind": "resource" }] })
    );
    assert!(cite["message"]["text"].as_str().unwrap().starts_with("in the pull request body, line 1: "));
    assert!(
        results
            .iter()
            .all(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] != "(pull request body)")
    );
}
