//! The family end to end: every pair of statuses through the engine, random
//! legal walks, and the bad inputs of issue 4, each asserted by rule and line.

use std::sync::Arc;

use proptest::prelude::*;

use crate::docs::decision::lifecycle::{self, Status};
use crate::model::{ChangeSet, FileContent, Files, Finding, RepoTree, Severity};

const ID: &str = "retry-budget-2026-07-08-3f9a";
const OTHER: &str = "retry-budget-2026-07-20-77e0";
const PATH: &str = ".harnery/decisions/retry-budget-2026-07-08-3f9a.json";
const ARCHIVED_PATH: &str = ".harnery/decisions/archive/retry-budget-2026-07-08-3f9a.json";
const OTHER_PATH: &str = ".harnery/decisions/retry-budget-2026-07-20-77e0.json";
/// Every generated manifest has `"status"` on this line.
const STATUS_LINE: u32 = 4;

/// A valid manifest of `id` at `status`, with the fields that status needs;
/// `step` moves `updated_at` forward along a walk.
fn manifest(id: &str, status: Status, step: u32) -> String {
    let mut fields = vec![
        "\"schema_version\": 1".to_string(),
        format!("\"decision_id\": \"{id}\""),
        format!("\"status\": \"{}\"", status.name()),
        "\"tier\": 1".into(),
        "\"stakes\": \"medium\"".into(),
        "\"question\": \"How many times should the importer retry?\"".into(),
        "\"filed_at\": \"2026-07-08T09:12:00Z\"".into(),
        format!("\"updated_at\": \"2026-07-{:02}T10:00:00Z\"", 8 + step % 20),
    ];
    if status.is_resolved() {
        fields.push(
            "\"resolution\": {\n    \"recommendation\": \"Retry 5 times.\",\n    \"evidence\": [\"docs/incidents/vendor.md\"],\n    \
             \"resolved_by\": \"sweeper\",\n    \"resolved_at\": \"2026-07-08T11:00:00Z\"\n  }"
                .into(),
        );
    }
    if status.is_reviewed() {
        fields.push("\"review\": { \"verdict\": \"ratified\", \"reviewed_at\": \"2026-07-09T09:00:00Z\" }".into());
    }
    match status {
        Status::Superseded => fields.push(format!("\"superseded_by\": \"{OTHER}\"")),
        Status::Wontfix => fields.push("\"wontfix_reason\": \"The vendor API is being replaced.\"".into()),
        _ => {}
    }
    format!("{{\n  {}\n}}\n", fields.join(",\n  "))
}

fn text(s: &str) -> FileContent {
    FileContent::Text(Arc::from(s))
}

/// Evaluates a change of the manifest at PATH (`None`: absent); the decision
/// that supersedes it is on both sides, unchanged.
fn evaluate(base: Option<&str>, head: Option<FileContent>) -> Vec<Finding> {
    evaluate_at(base.map(|b| (PATH, b)), head.map(|h| (PATH, h)))
}

/// The same, with the manifest's path on each side (to move it).
fn evaluate_at(base: Option<(&str, &str)>, head: Option<(&str, FileContent)>) -> Vec<Finding> {
    let (mut b, mut h) = (Files::new(), Files::new());
    let other = text(&manifest(OTHER, Status::Filed, 0));
    b.insert(OTHER_PATH.into(), other.clone());
    h.insert(OTHER_PATH.into(), other);
    if let Some((path, base)) = base {
        b.insert(path.into(), text(base));
    }
    if let Some((path, head)) = head {
        h.insert(path.into(), head);
    }
    let changes = ChangeSet { base: b, head: h, ..Default::default() };
    crate::rules::evaluate(&changes).findings().cloned().collect()
}

fn fired(findings: &[Finding]) -> Vec<(&'static str, u32)> {
    findings.iter().filter(|f| f.severity == Severity::Error).map(|f| (f.rule, f.span.line)).collect()
}

/// Where a manifest at `status` lives: `archive/` once archived.
fn home(status: Status) -> &'static str {
    if status == Status::Archived { ARCHIVED_PATH } else { PATH }
}

#[test]
fn every_generated_manifest_is_valid() {
    for status in Status::ALL {
        let findings = evaluate_at(None, Some((home(status), text(&manifest(ID, status, 0)))));
        assert_eq!(fired(&findings), vec![], "{}", status.name());
    }
}

#[test]
fn a_decision_set_to_archived_lives_in_the_archive() {
    let reviewed = manifest(ID, Status::Reviewed, 0);
    let archived = text(&manifest(ID, Status::Archived, 1));
    let left = evaluate_at(Some((PATH, &reviewed)), Some((PATH, archived.clone())));
    assert_eq!(fired(&left), vec![("decision/archive-state", STATUS_LINE)]);
    assert_eq!(left[0].path, PATH);
    let moved = evaluate_at(Some((PATH, &reviewed)), Some((ARCHIVED_PATH, archived)));
    assert_eq!(fired(&moved), vec![]);
}

#[test]
fn every_pair_of_statuses_is_accepted_exactly_when_the_lifecycle_reaches_it() {
    for from in Status::ALL {
        for to in Status::ALL {
            // Both at the top of the docket: a move to `archived` there also
            // leaves the manifest outside `archive/`.
            let findings = evaluate(Some(&manifest(ID, from, 0)), Some(text(&manifest(ID, to, 1))));
            let legal = (from == to && !from.is_terminal()) || lifecycle::reachable(from, to);
            let expected = match (legal, from == to) {
                (true, false) if to == Status::Archived => vec![("decision/archive-state", STATUS_LINE)],
                (true, _) => vec![],
                // An edit of a terminal manifest that keeps its status.
                (false, true) => vec![("decision/terminal-readonly", 9)],
                (false, false) => vec![("decision/transition", STATUS_LINE)],
            };
            assert_eq!(fired(&findings), expected, "{} → {}", from.name(), to.name());
            // Single steps are exactly the table's rows.
            assert_eq!(lifecycle::step(from, to).is_some(), lifecycle::next(from).any(|n| n == to));
        }
    }
}

#[test]
fn the_summary_shows_each_status_change() {
    let (mut base, mut head) = (Files::new(), Files::new());
    base.insert(PATH.into(), text(&manifest(ID, Status::Triaged, 0)));
    head.insert(PATH.into(), text(&manifest(ID, Status::Enacted, 1)));
    let archived = ".harnery/decisions/archive/old-2026-06-01-0001.json";
    base.insert(
        ".harnery/decisions/old-2026-06-01-0001.json".into(),
        text(&manifest("old-2026-06-01-0001", Status::Wontfix, 0)),
    );
    head.insert(archived.into(), text(&manifest("old-2026-06-01-0001", Status::Wontfix, 0)));
    base.insert(
        ".harnery/decisions/gone-2026-06-02-0002.json".into(),
        text(&manifest("gone-2026-06-02-0002", Status::Resolved, 0)),
    );
    head.insert(OTHER_PATH.into(), text(&manifest(OTHER, Status::Filed, 0)));
    let report = crate::rules::evaluate(&ChangeSet { base, head, ..Default::default() });
    let check = report.checks.iter().find(|c| c.name == "gatehouse/decisions").unwrap();
    assert_eq!(check.documents, 4);
    assert_eq!(
        check.details,
        vec![
            "**Decision status changes**\n\n\
             - `old-2026-06-01-0001`: wontfix (status unchanged), moved to `archive/`\n\
             - `retry-budget-2026-07-08-3f9a`: triaged → enacted (via resolved)\n\
             - `retry-budget-2026-07-20-77e0`: new → filed\n\
             - `gone-2026-06-02-0002`: **deleted** (was resolved)\n"
        ]
    );
    let rules: Vec<&str> = check.findings.iter().map(|f| f.rule).collect();
    assert_eq!(rules, vec!["decision/deleted"]);
}

#[test]
fn bad_input_is_a_finding_at_its_line() {
    let full = manifest(ID, Status::Filed, 0);
    let truncated = full[..full.find("\"question\"").unwrap() + 20].to_string();
    let cases: Vec<(String, Vec<(&str, u32)>)> = vec![
        ("status: resolved\ntier: 1\n".into(), vec![("decision/json", 1)]),
        ("{\n  \"schema_version\": 1,\n  \"status\": \"filed\"\n  \"tier\": 1\n}\n".into(), vec![("decision/json", 3)]),
        (manifest(ID, Status::Filed, 0).replace("\"tier\": 1", "\"tier\": 3"), vec![("decision/schema", 5)]),
        (format!("{{\n  \"a\":\n{}", "[".repeat(10_000)), vec![("decision/json", 3)]),
        // Truncated: the finding is where the file stops.
        (truncated.clone(), vec![("decision/json", truncated.lines().count() as u32)]),
        ("[1, 2]".into(), vec![("decision/schema", 1)]),
    ];
    for (head, expected) in cases {
        let findings = evaluate(None, Some(text(&head)));
        assert_eq!(fired(&findings), expected, "{head:.80}");
    }
    let findings = evaluate(None, Some(FileContent::TooLarge { bytes: 40 << 20, limit: 1 << 20 }));
    assert_eq!(fired(&findings), vec![("doc/unreadable", 1)]);
    let findings = evaluate(None, Some(FileContent::InvalidUtf8 { line: 7 }));
    assert_eq!(fired(&findings), vec![("doc/unreadable", 7)]);
}

#[test]
fn structured_evidence_entries_are_one_schema_finding_each_not_no_evidence() {
    let resolved = manifest(ID, Status::Resolved, 0).replace(
        "[\"docs/incidents/vendor.md\"]",
        "[\n      {\"path\": \"docs/incidents/vendor.md\"},\n      {\"url\": \"https://example.com/sla\"}\n    ]",
    );
    let findings = evaluate(None, Some(text(&resolved)));
    assert_eq!(fired(&findings), vec![("decision/schema", 13), ("decision/schema", 14)], "{findings:#?}");
}

#[test]
fn archived_back_to_resolved_is_one_transition_finding() {
    let archived = manifest(ID, Status::Archived, 0);
    let resolved = archived.replace("\"status\": \"archived\"", "\"status\": \"resolved\"");
    let findings = evaluate(Some(&archived), Some(text(&resolved)));
    assert_eq!(fired(&findings), vec![("decision/transition", STATUS_LINE)]);
    assert!(findings[0].message.contains("`archived` is terminal"), "{}", findings[0].message);
}

#[test]
fn archiving_moves_keep_terminal_content() {
    let wontfix = manifest(ID, Status::Wontfix, 0);
    let moved = evaluate_at(Some((PATH, &wontfix)), Some((ARCHIVED_PATH, text(&wontfix))));
    assert_eq!(fired(&moved), vec![]);
    let edited = wontfix.replace("is being replaced", "was replaced in August");
    let moved = evaluate_at(Some((PATH, &wontfix)), Some((ARCHIVED_PATH, text(&edited))));
    assert_eq!(fired(&moved), vec![("decision/terminal-readonly", 10)]);
    let open = manifest(ID, Status::Enacted, 0);
    let moved = evaluate_at(Some((PATH, &open)), Some((ARCHIVED_PATH, text(&open))));
    assert_eq!(fired(&moved), vec![("decision/archive-state", STATUS_LINE)]);
    let back = evaluate_at(Some((ARCHIVED_PATH, &wontfix)), Some((PATH, text(&wontfix))));
    assert_eq!(fired(&back), vec![("decision/terminal-readonly", STATUS_LINE)]);
    let gone = evaluate_at(Some((ARCHIVED_PATH, &wontfix)), None);
    assert_eq!(fired(&gone), vec![("decision/deleted", 1)]);
    assert_eq!(gone[0].path, ARCHIVED_PATH);
}

#[test]
fn filed_at_is_fixed_once_filed() {
    let filed = manifest(ID, Status::Filed, 0);
    let moved = filed.replace("2026-07-08T09:12:00Z", "2026-07-01T09:12:00Z");
    assert_eq!(fired(&evaluate(Some(&filed), Some(text(&moved)))), vec![("decision/timestamps", 8)]);
}

#[test]
fn a_large_manifest_within_the_limit_is_read_whole() {
    let citations: Vec<String> = (0..40_000).map(|i| format!("\"docs/evidence/{i}.md\"")).collect();
    let big = manifest(ID, Status::Resolved, 0)
        .replace("[\"docs/incidents/vendor.md\"]", &format!("[{}]", citations.join(", ")));
    assert!(big.len() > 900_000);
    assert_eq!(fired(&evaluate(None, Some(text(&big)))), vec![]);
}

#[test]
fn superseded_by_may_name_a_decision_known_only_from_the_tree() {
    let mut head = Files::new();
    head.insert(PATH.into(), text(&manifest(ID, Status::Superseded, 0)));
    let mut changes = ChangeSet { head, ..Default::default() };
    let tree = RepoTree::new(vec![format!(".harnery/decisions/archive/{OTHER}.json")]);
    changes.repos.insert(crate::model::LOCAL_REPO, None, Arc::new(tree));
    assert!(!crate::rules::evaluate(&changes).has_errors());
    changes.repos = Default::default();
    let report = crate::rules::evaluate(&changes);
    let rules: Vec<&str> = report.findings().map(|f| f.rule).collect();
    assert_eq!(rules, vec!["decision/superseded-by"]);
}

/// A walk from `filed` along random legal steps.
fn walk() -> impl Strategy<Value = Vec<Status>> {
    proptest::collection::vec(any::<prop::sample::Index>(), 0..8).prop_map(|choices| {
        let mut path = vec![Status::Filed];
        for choice in choices {
            let last = path[path.len() - 1];
            let next: Vec<Status> = lifecycle::next(last).collect();
            if next.is_empty() {
                break;
            }
            path.push(next[choice.index(next.len())]);
        }
        path
    })
}

proptest! {
    #[test]
    fn a_legal_walk_always_passes(path in walk()) {
        let findings = evaluate(None, Some(text(&manifest(ID, path[0], 0))));
        prop_assert_eq!(fired(&findings), vec![]);
        // The engine moves a manifest into `archive/` when it archives it.
        let at = home;
        for (i, pair) in path.windows(2).enumerate() {
            let base = manifest(ID, pair[0], i as u32);
            let head = text(&manifest(ID, pair[1], i as u32 + 1));
            let findings = evaluate_at(Some((at(pair[0]), &base)), Some((at(pair[1]), head)));
            prop_assert_eq!(fired(&findings), vec![], "{} → {}", pair[0].name(), pair[1].name());
        }
    }

    #[test]
    fn an_illegal_step_always_fails(path in walk(), target in any::<prop::sample::Index>()) {
        let at = path[path.len() - 1];
        let illegal: Vec<Status> = Status::ALL.into_iter().filter(|s| *s != at && !lifecycle::reachable(at, *s)).collect();
        prop_assume!(!illegal.is_empty());
        let to = illegal[target.index(illegal.len())];
        let findings = evaluate(Some(&manifest(ID, at, 0)), Some(text(&manifest(ID, to, 1))));
        prop_assert_eq!(fired(&findings), vec![("decision/transition", STATUS_LINE)], "{} → {}", at.name(), to.name());
    }

    #[test]
    fn arbitrary_manifests_never_panic(head in "\\PC{0,300}", base in "\\PC{0,100}") {
        let _ = evaluate(Some(&base), Some(text(&head)));
    }
}
