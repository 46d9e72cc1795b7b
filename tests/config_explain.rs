//! `gatehouse config explain` and `gatehouse check --org-config`: a
//! repository's config merged with the organisation's file given on the
//! command line, each value named with its source, its JSON valid against
//! `gatehouse schema config-explain`, and a value a lock refuses failing
//! both commands at the repository's line.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn gatehouse(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse")).current_dir(dir).args(args).output().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

/// A scratch folder with `org.yml` (the organisation's policy) and a
/// repository `repo/` whose config is `config`.
fn scratch(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("repo/.github")).unwrap();
    std::fs::write(
        dir.path().join("org.yml"),
        "review:\n  core: { reviewers: [alice, bob, carol], required: 2 }\nlocks:\n  review.core.required: { at_least: 2 }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("repo/.github/gatehouse.yml"), config).unwrap();
    dir
}

#[test]
fn explain_names_the_source_of_every_value_and_validates_against_its_schema() {
    let dir = scratch("extends: acme/.github\nreview:\n  advisory: [dana]\n");
    let out =
        gatehouse(dir.path(), &["config", "explain", "--repo", "repo", "--org-config", "org.yml", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let explained = json(&out);
    let schema = json(&gatehouse(dir.path(), &["schema", "config-explain"]));
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&explained).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{explained:#}");
    assert_eq!(explained["files"], serde_json::json!([".github/gatehouse.yml", "acme/.github:gatehouse.yml"]));
    let value = |key: &str| {
        explained["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["key"] == key)
            .cloned()
            .unwrap_or_else(|| panic!("{key}"))
    };
    let reviewers = value("review.core.reviewers");
    assert_eq!(reviewers["from"], serde_json::json!({ "file": "acme/.github:gatehouse.yml", "line": 2 }));
    assert_eq!(value("review.advisory")["from"], serde_json::json!({ "file": ".github/gatehouse.yml", "line": 3 }));
    let required = value("review.core.required");
    assert_eq!(required["lock"]["kind"], "at_least");
    assert_eq!(required["lock"]["bound"], 2);
    assert_eq!(value("briefs.paths")["from"], serde_json::json!({ "default": "ADR-099, agent briefs" }));
    assert!(explained["values"].as_array().unwrap().iter().all(|v| v["from"].is_object()));
}

#[test]
fn a_refused_value_fails_explain_and_check_at_the_repositorys_line() {
    let dir = scratch("extends: acme/.github\nreview:\n  core: { required: 1 }\n");
    let out = gatehouse(dir.path(), &["config", "explain", "--repo", "repo", "--org-config", "org.yml"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("review.core.required"), "{text}");
    assert!(
        text.contains(
            "error[config/locked]: `review.core.required` must be at least 2 (a lock in `acme/.github:gatehouse.yml` line 4)"
        ),
        "{text}"
    );
    assert!(text.contains(" --> .github/gatehouse.yml:3:21"), "{text}");
    let check = gatehouse(dir.path(), &["check", "--all", "--repo", "repo", "--org-config", "org.yml"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("error[config/locked]"));
    let unread = gatehouse(dir.path(), &["check", "--all", "--repo", "repo"]);
    let text = String::from_utf8_lossy(&unread.stdout);
    assert_eq!(unread.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[config/extends]: the extended config `acme/.github:gatehouse.yml` cannot be read"),
        "{text}"
    );
    let missing = gatehouse(dir.path(), &["check", "--all", "--repo", "repo", "--org-config", "no-such.yml"]);
    assert_eq!(missing.status.code(), Some(2), "a file named on the command line that cannot be read");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read --org-config no-such.yml"));
}
