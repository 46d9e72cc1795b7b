//! brief/untestable-criterion's rubric against a table of success criteria
//! written the way engineers write them (`fixtures/criteria/success-criteria.tsv`),
//! each labelled by whether a tester could check it. The rubric may block at
//! most 1 in 20 testable criteria, and must fail every vague one.

use gatehouse::rules::brief::assess_criterion;

struct Row {
    line: usize,
    testable: bool,
    area: String,
    text: String,
}

fn table() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/criteria/success-criteria.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let mut cols = l.splitn(3, '\t');
            let (label, area, text) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
            assert!(matches!(label, "testable" | "vague"), "line {}: label `{label}`", i + 1);
            Row { line: i + 1, testable: label == "testable", area: area.into(), text: text.into() }
        })
        .collect()
}

#[test]
fn the_rubric_agrees_with_the_labels() {
    let rows = table();
    let testable = rows.iter().filter(|r| r.testable).count();
    let vague = rows.len() - testable;
    assert!(testable >= 50 && vague >= 50, "{testable} testable and {vague} vague rows: want 50 of each");
    let mut blocked = Vec::new();
    let mut let_through = Vec::new();
    for row in &rows {
        let a = assess_criterion(&row.text);
        let shown = format!("  line {} [{}] {:?}: {a:?}", row.line, row.area, row.text);
        match (row.testable, a.testable()) {
            (true, false) => blocked.push(shown),
            (false, true) => let_through.push(shown),
            _ => {}
        }
    }
    let report = format!(
        "{} of {testable} testable criteria blocked:\n{}\n{} of {vague} vague criteria let through:\n{}",
        blocked.len(),
        blocked.join("\n"),
        let_through.len(),
        let_through.join("\n")
    );
    assert!(blocked.len() * 20 <= testable, "more than 1 in 20 testable criteria blocked\n{report}");
    assert!(let_through.is_empty(), "{report}");
}

#[test]
fn the_issue_and_adr_examples() {
    for testable in [
        "p99 latency of `GET /search` stays under 200 ms at 50 requests per second",
        "the migration adds a `retention_days` column to the `backups` table",
        "the `backup_last_success_timestamp` metric is exported on `/metrics`",
        "endpoint returns 200 with the documented schema",
    ] {
        assert!(assess_criterion(testable).testable(), "{testable}: {:?}", assess_criterion(testable));
    }
    for vague in ["the feature works", "is robust", "handles errors gracefully"] {
        assert!(!assess_criterion(vague).testable(), "{vague}");
    }
}
