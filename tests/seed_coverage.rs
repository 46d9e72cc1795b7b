//! `docs/seed-coverage.md` traces every normative sentence of the founding
//! documents to the rules that enforce it. The trace stays true: every rule
//! id it names exists, every registered rule is traced, and every sentence
//! names a rule, says why no merge gate can check it, or says that it is
//! not enforced yet.

use std::collections::BTreeSet;
use std::path::Path;

use gatehouse::rules;

const DOC: &str = "docs/seed-coverage.md";
const GATE_SECTION: &str = "Gate rules with no founding sentence";
const NOT_CHECKABLE: &str = "not checkable";
const NOT_YET: &str = "not enforced yet";

/// The cells of a table row, split on `|` that is not escaped as `\|`.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Backticked tokens shaped like a rule id (`family/name`).
fn rule_ids(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| {
            t.split_once('/').is_some_and(|(family, name)| {
                !family.is_empty()
                    && family.bytes().all(|b| b.is_ascii_lowercase())
                    && !name.is_empty()
                    && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            })
        })
        .map(str::to_string)
        .collect()
}

struct Trace {
    /// Rule ids traced to a sentence, or declared as the gate's own.
    traced: BTreeSet<String>,
    problems: Vec<String>,
    sentences: usize,
}

fn read_trace(text: &str) -> Trace {
    let mut trace = Trace { traced: BTreeSet::new(), problems: Vec::new(), sentences: 0 };
    let mut section = String::new();
    for (i, line) in text.lines().enumerate() {
        let at = format!("{DOC}:{}", i + 1);
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim().to_string();
            continue;
        }
        if !line.starts_with('|') {
            continue;
        }
        let row = cells(line);
        let rule = row.iter().all(|c| !c.is_empty() && c.bytes().all(|b| b == b'-' || b == b':'));
        let header = row.first().is_some_and(|c| c.starts_with("Sentence") || c == "Rule");
        if rule || header {
            continue;
        }
        let (width, ids_cell) = if section == GATE_SECTION { (2, 0) } else { (3, 2) };
        if row.len() != width {
            trace.problems.push(format!("{at}: a row of `{section}` has {} cells, not {width}", row.len()));
            continue;
        }
        let ids = rule_ids(&row[ids_cell]);
        for id in &ids {
            if rules::find(id).is_none() {
                trace.problems.push(format!("{at}: `{id}` is not a registered rule"));
            }
        }
        if section != GATE_SECTION {
            trace.sentences += 1;
            if ids.is_empty() && !row[2].contains(NOT_CHECKABLE) && !row[2].contains(NOT_YET) {
                trace.problems.push(format!(
                    "{at}: names no rule, and says neither why it is {NOT_CHECKABLE} nor that it is {NOT_YET}"
                ));
            }
        }
        trace.traced.extend(ids);
    }
    trace
}

#[test]
fn every_rule_is_traced_and_every_traced_id_exists() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC)).unwrap();
    let mut trace = read_trace(&text);
    assert!(trace.sentences > 100, "only {} sentences traced", trace.sentences);
    for rule in rules::all_rules() {
        if !trace.traced.contains(rule.id) {
            trace.problems.push(format!("`{}` is traced to no founding sentence in {DOC}", rule.id));
        }
    }
    assert!(trace.problems.is_empty(), "{} problem(s):\n{}", trace.problems.len(), trace.problems.join("\n"));
}

#[test]
fn the_check_catches_an_unknown_id_a_bare_row_and_a_broken_row() {
    let doc = "## ADR-140\n\n| Sentence (quoted) | Section | Enforced by |\n|---|---|---|\n\
               | \"a\" | Decision | `voting/no-such-rule` |\n| \"b\" | Decision | nothing |\n| \"c\" \\| d | Decision |\n\
               | \"e\" | Decision | `voting/filename` |\n";
    let trace = read_trace(doc);
    assert_eq!(trace.problems.len(), 3, "{:?}", trace.problems);
    assert!(trace.problems[0].contains("`voting/no-such-rule` is not a registered rule"));
    assert!(trace.problems[1].contains("names no rule"));
    assert!(trace.problems[2].contains("has 2 cells"));
    assert_eq!(trace.traced, ["voting/filename".to_string(), "voting/no-such-rule".to_string()].into());
}
