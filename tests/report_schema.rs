//! One finding shape in every command's JSON, published as `gatehouse schema
//! report`: `check`'s JSON validates against it whole, `new brief`'s findings,
//! `rules`' entries, `tally`'s and `gate simulate`'s JSON against its `$defs`.

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

/// `tally --format json` on a doc with votes left out: the tally, and a
/// `voting/vote-entry` finding in the one shape for each problem.
#[test]
fn tally_output_validates_with_its_findings_in_the_one_shape() {
    let doc = root().join("fixtures/demo-repo/dark-factory/guidelines/api-errors@v1.md");
    let (code, tally) = gatehouse(&["tally", "--format", "json", doc.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert_valid(&part("tally"), &tally, "tally of api-errors@v1.md");
    let left_out: Vec<u64> =
        tally["sections"][0]["left_out"].as_array().unwrap().iter().map(|v| v["line"].as_u64().unwrap()).collect();
    assert_eq!(left_out, [32, 39], "the lines the vote-entry errors point at: {tally:#}");
    let findings = tally["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "one finding per problem of the two votes left out: {tally:#}");
    for f in findings {
        assert_eq!((&f["rule"], &f["check"]), (&json!("voting/vote-entry"), &json!("gatehouse/voting")));
        assert_eq!(f["path"], doc.to_str().unwrap());
    }
    assert!(findings[0]["message"].as_str().unwrap().contains("vote 1 (lin/opus-4.7)"), "{tally:#}");
    assert!(findings[1]["message"].as_str().unwrap().contains("vote 2 (marcus/opus-4.7)"), "{tally:#}");

    let clean = root().join("fixtures/demo-repo/dark-factory/guidelines/backup-scripts@v1.md");
    let (_, tally) = gatehouse(&["tally", "--format", "json", clean.to_str().unwrap()]);
    assert_valid(&part("tally"), &tally, "tally of backup-scripts@v1.md");
    assert_eq!(tally["findings"], json!([]));
    let mut broken = tally.clone();
    broken["sections"][0]["left_out"] = json!([{ "line": 3, "argument": "A", "vote": "vote 1", "reasons": [] }]);
    assert!(!part("tally").is_valid(&broken), "reasons beside the one finding shape are refused");
}

/// `gate simulate --format json` validates whether the gate passes or not.
#[test]
fn gate_simulate_output_validates_passed_and_not() {
    let config = root().join("fixtures/demo-repo/.github/gatehouse.yml");
    let commits = root().join("fixtures/gate/commits.json");
    let gate = part("gate");
    let simulate = |reviews: &std::path::Path| {
        gatehouse(&[
            "gate",
            "simulate",
            "--format",
            "json",
            "--config",
            config.to_str().unwrap(),
            "--reviews",
            reviews.to_str().unwrap(),
            "--commits",
            commits.to_str().unwrap(),
        ])
    };
    let (code, failed) = simulate(&root().join("fixtures/gate/reviews.json"));
    assert_eq!((code, &failed["passed"]), (Some(1), &json!(false)));
    assert_eq!(failed["missing"].as_array().unwrap().len(), 2, "{failed:#}");
    assert_valid(&gate, &failed, "a gate not passed");

    let tmp = tempfile::tempdir().unwrap();
    let reviews = tmp.path().join("reviews.json");
    let head = "1111111a2b3c4d5e6f708192a3b4c5d6e7f80912";
    let review = |id: u32, login: &str, state: &str| {
        json!({ "id": id, "user": { "login": login, "type": "User" }, "body": "", "state": state,
                "commit_id": head, "submitted_at": "2026-05-04T11:00:00Z" })
    };
    let all = json!([
        review(1, "gyrum-marcus", "APPROVED"),
        review(2, "gyrum-lin", "APPROVED"),
        review(3, "gyrum-dana", "COMMENTED")
    ]);
    std::fs::write(&reviews, all.to_string()).unwrap();
    let (code, passed) = simulate(&reviews);
    assert_eq!((code, &passed["passed"]), (Some(0), &json!(true)), "{passed:#}");
    assert_eq!(passed["missing"], json!([]));
    assert_valid(&gate, &passed, "a gate passed");
    let mut broken = failed.clone();
    broken["missing"][0]["kind"] = json!("approval");
    assert!(!gate.is_valid(&broken), "a missing item of no known kind is refused");
}
