//! The JSON Schemas `gatehouse schema` prints: the committed copies under
//! `schemas/` equal them; every passing fixture validates against its
//! schema; the documents the shape rules flag in their failing fixtures do
//! not.

use std::path::{Path, PathBuf};

use gatehouse::docs::yaml::{self, Node};
use gatehouse::schema::{Kind, render, schema};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn validator(kind: Kind) -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema(kind)).unwrap_or_else(|e| panic!("{} schema: {e}", kind.name()))
}

/// A YAML tree as JSON, each plain scalar typed the way the rules type it.
fn to_json(node: Node) -> Value {
    if let Some(items) = node.as_seq() {
        Value::Array(items.iter().map(to_json).collect())
    } else if let Some(entries) = node.as_map() {
        Value::Object(entries.iter().map(|(k, v)| (k.name.to_string(), to_json(v))).collect())
    } else if node.is_null() {
        Value::Null
    } else if let Some(b) = node.as_bool() {
        Value::Bool(b)
    } else if let Some(i) = node.as_i64() {
        Value::from(i)
    } else if let Some(f) = node.as_f64() {
        Value::from(f)
    } else {
        Value::String(node.scalar_text().unwrap_or_default().to_string())
    }
}

/// The documents of `kind` in a file, each with the lines it spans.
fn documents(kind: Kind, rel: &str, text: &str) -> Vec<(Value, std::ops::RangeInclusive<u32>)> {
    match kind {
        Kind::Brief => {
            let split = gatehouse::docs::frontmatter::split(text);
            let frontmatter = split.frontmatter.unwrap_or_else(|e| panic!("{rel}: {e:?}"));
            vec![(to_json(frontmatter.root()), 1..=split.body_line)]
        }
        Kind::Voting => {
            let lines: Vec<&str> = text.lines().collect();
            let mut blocks = Vec::new();
            let mut at = 0;
            while let Some(open) = (at..lines.len()).find(|&i| lines[i].trim_start().starts_with("```voting")) {
                let close = (open + 1..lines.len()).find(|&i| lines[i].trim_start().starts_with("```")).unwrap();
                let body = lines[open + 1..close].join("\n");
                let tree = yaml::parse(&body, open as u32 + 2).unwrap_or_else(|e| panic!("{rel}: {e}"));
                blocks.push((to_json(tree.root()), open as u32 + 1..=close as u32 + 1));
                at = close + 1;
            }
            blocks
        }
        Kind::Decision => {
            vec![(serde_json::from_str(text).unwrap_or_else(|e| panic!("{rel}: {e}")), 1..=u32::MAX)]
        }
        Kind::Config => vec![(to_json(yaml::parse(text, 1).unwrap().root()), 1..=u32::MAX)],
        Kind::Report | Kind::Verify | Kind::ConfigExplain => unreachable!("no repository file is a report"),
    }
}

/// The schema a file's documents follow, by where the default config puts them.
fn kind_of(rel: &str) -> Option<Kind> {
    if rel.starts_with("dark-factory/briefs/") && rel.ends_with(".md") {
        Some(Kind::Brief)
    } else if rel.starts_with("dark-factory/guidelines/") {
        Some(Kind::Voting)
    } else if rel.starts_with(".harnery/decisions/") && rel.ends_with(".json") {
        Some(Kind::Decision)
    } else if rel == ".github/gatehouse.yml" {
        Some(Kind::Config)
    } else {
        None
    }
}

/// Every `<case>/pass/head` folder under `dir`.
fn pass_heads(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        if path.ends_with("pass") {
            out.push(path.join("head"));
        } else {
            pass_heads(&path, out);
        }
    }
}

#[test]
fn committed_schemas_equal_the_command_output() {
    for kind in Kind::ALL {
        let committed = std::fs::read_to_string(root().join(kind.file())).unwrap_or_default();
        assert!(
            committed == render(kind),
            "{} differs from `gatehouse schema {}`; regenerate it with \
             `cargo run -- schema {} > {}`",
            kind.file(),
            kind.name(),
            kind.name(),
            kind.file()
        );
    }
}

#[test]
fn every_passing_fixture_validates() {
    let mut heads = Vec::new();
    pass_heads(&root().join("crates/gatehouse-core/fixtures/rules"), &mut heads);
    let mut checked = [0usize; 4];
    for head in heads {
        for rel in gatehouse::source::fs::list(&head).unwrap() {
            let Some(kind) = kind_of(&rel) else { continue };
            let text = std::fs::read_to_string(head.join(&rel)).unwrap();
            for (document, _) in documents(kind, &rel, &text) {
                let errors: Vec<String> = validator(kind).iter_errors(&document).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{}/{rel} fails the {} schema: {errors:#?}", head.display(), kind.name());
                checked[kind as usize] += 1;
            }
        }
    }
    assert!(checked.iter().all(|&n| n > 0), "documents checked per kind: {checked:?}");
}

/// The demo repository shows findings on purpose: a document with no error
/// finding validates; one a shape rule flags does not.
#[test]
fn demo_documents_validate_unless_a_shape_rule_flags_them() {
    let demo = root().join("fixtures/demo-repo");
    let changes = gatehouse::source::fs::changeset(&demo, None, None, &[]).unwrap();
    let report = gatehouse::rules::evaluate(&changes);
    let findings: Vec<&gatehouse::model::Finding> = report.checks.iter().flat_map(|c| &c.findings).collect();
    let shape = |rule: &str| {
        ["/field-type", "/missing-field", "/unknown-field"].iter().any(|s| rule.ends_with(s))
            || rule == "decision/schema"
    };
    let (mut valid, mut refused) = (0, 0);
    for rel in gatehouse::source::fs::list(&demo).unwrap() {
        let Some(kind) = kind_of(&rel) else { continue };
        let text = std::fs::read_to_string(demo.join(&rel)).unwrap();
        for (document, lines) in documents(kind, &rel, &text) {
            let here: Vec<_> = findings.iter().filter(|f| f.path == rel && lines.contains(&f.span.line)).collect();
            let ok = validator(kind).is_valid(&document);
            if here.iter().any(|f| shape(f.rule)) {
                assert!(!ok, "{rel}:{lines:?} is flagged by a shape rule but the {} schema accepts it", kind.name());
                refused += 1;
            } else if here.iter().all(|f| f.severity != gatehouse::model::Severity::Error) {
                assert!(ok, "{rel}:{lines:?} has no error finding but fails the {} schema", kind.name());
                valid += 1;
            }
        }
    }
    assert!(valid > 0 && refused > 0, "valid {valid}, refused {refused}");
}

/// The shape rules' failing fixtures: each flagged document breaks the schema.
#[test]
fn the_schemas_refuse_what_the_shape_rules_flag() {
    let cases = [
        ("brief/field-type", Kind::Brief),
        ("brief/missing-field", Kind::Brief),
        ("brief/unknown-field", Kind::Brief),
        ("voting/field-type", Kind::Voting),
        ("voting/missing-field", Kind::Voting),
        ("decision/schema", Kind::Decision),
        ("config/invalid", Kind::Config),
    ];
    for (rule, kind) in cases {
        let case = root().join("crates/gatehouse-core/fixtures/rules").join(rule).join("fail");
        let expect = std::fs::read_to_string(case.join("expect")).unwrap();
        // Each finding's `--> path:line:col` line, as the text renderer prints it.
        let flagged: Vec<(&str, u32)> = expect
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("--> ")?.rsplit_once(':')?.0.rsplit_once(':'))
            .map(|(path, line)| (path, line.parse().unwrap()))
            .collect();
        assert!(!flagged.is_empty(), "{rule}");
        for (rel, line) in flagged {
            let text = std::fs::read_to_string(case.join("head").join(rel)).unwrap();
            let documents = documents(kind, rel, &text);
            let (document, _) = documents
                .iter()
                .find(|(_, lines)| lines.contains(&line))
                .unwrap_or_else(|| panic!("{rule}: no {} document spans {rel}:{line}", kind.name()));
            assert!(
                !validator(kind).is_valid(document),
                "{rule}: the {} schema accepts {rel} line {line}",
                kind.name()
            );
        }
    }
}

/// A shape each rule reports, applied to a valid document: the schema refuses it too.
#[test]
fn the_brief_schema_refuses_each_field_shape_the_rules_report() {
    let good: Value = serde_json::json!({
        "agent": "SWARM-AR",
        "repos_touched": ["gyrum/infra"],
        "adrs_referenced": ["ADR-095"],
        "success_criteria": ["`scripts/backup.sh` exits 0"],
        "out_of_scope": [],
        "lines_estimate": 80
    });
    let brief = validator(Kind::Brief);
    assert!(brief.is_valid(&good));
    let breaks: [(&str, Value); 8] = [
        ("agent", serde_json::json!("AR")),
        ("repos_touched", serde_json::json!([])),
        ("repos_touched", serde_json::json!("gyrum/infra")),
        ("adrs_referenced", serde_json::json!([95])),
        ("success_criteria", serde_json::json!([" "])),
        ("out_of_scope", serde_json::json!(null)),
        ("lines_estimate", serde_json::json!(0)),
        ("lines_estimate", serde_json::json!("80")),
    ];
    for (field, value) in breaks {
        let mut bad = good.clone();
        bad[field] = value.clone();
        assert!(!brief.is_valid(&bad), "{field}: {value}");
        bad.as_object_mut().unwrap().remove(field);
        assert!(!brief.is_valid(&bad), "without {field}");
    }
    let mut typo = good.clone();
    typo["succes_criteria"] = serde_json::json!(["x"]);
    assert!(!brief.is_valid(&typo));
}
