//! What people and tools read, pinned: the demo repository through every
//! output format.

use std::path::Path;

use gatehouse::render;
use gatehouse::source::local::{Request, changeset};

fn demo() -> (gatehouse::model::ChangeSet, gatehouse::model::Report) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo");
    let changes = changeset(&Request { dir, all: true, ..Default::default() }).unwrap();
    let report = gatehouse::rules::evaluate(&changes);
    (changes, report)
}

#[test]
fn demo_text() {
    let (changes, report) = demo();
    insta::assert_snapshot!(render::text(&report, &changes));
}

#[test]
fn demo_json() {
    let (_, report) = demo();
    insta::assert_snapshot!(render::json(&report));
}

#[test]
fn demo_github_annotations() {
    let (_, report) = demo();
    insta::assert_snapshot!(render::github(&report));
}

#[test]
fn demo_sarif_is_valid_sarif_shape() {
    let (_, report) = demo();
    let sarif: serde_json::Value = serde_json::from_str(&render::sarif(&report)).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), report.findings().count());
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    for result in results {
        assert!(rules.iter().any(|r| r["id"] == result["ruleId"]), "{result}");
        assert!(result["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(result["partialFingerprints"]["gatehouse/v1"].is_string());
    }
}
