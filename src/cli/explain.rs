//! `gatehouse rules` and `gatehouse explain`.

use std::fmt::Write;

use gatehouse_core::suggest;

use crate::rules::{RuleInfo, all_rules};

pub(super) fn rules() -> String {
    let rules = all_rules();
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in rules {
        let _ = writeln!(out, "{:<width$}  {:<7}  {}", r.id, r.default_severity.as_str(), r.summary);
    }
    out
}

/// `gatehouse rules --format json`: `{"version": 1, "rules": [{id, severity, summary}]}`.
pub(super) fn rules_json() -> String {
    let rules: Vec<_> = all_rules()
        .into_iter()
        .map(|r| serde_json::json!({ "id": r.id, "severity": r.default_severity, "summary": r.summary }))
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "version": 1, "rules": rules })).expect("plain data") + "\n"
}

/// The rule ids nearest `word`: those whose name after the family (`path-missing`
/// of `brief/path-missing`) is `word` or near it, else those whose whole id is.
pub(crate) fn nearest_rules(word: &str) -> Vec<&'static str> {
    let ids: Vec<&'static str> = all_rules().into_iter().map(|r| r.id).collect();
    let name = |id: &'static str| id.rsplit('/').next().unwrap_or(id);
    let named: Vec<&'static str> = ids.iter().copied().filter(|id| name(id) == word).collect();
    if !named.is_empty() {
        return named;
    }
    let by_name = suggest::nearest(word, ids.iter().map(|id| name(id)));
    let mut found: Vec<&'static str> = ids.iter().copied().filter(|id| by_name.contains(&name(id))).take(3).collect();
    if found.is_empty() {
        found = suggest::nearest(word, ids.iter().copied());
    }
    found
}

pub(crate) fn explain(r: &RuleInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({} by default)\n", r.id, r.default_severity.as_str());
    let _ = writeln!(out, "{}\n", r.summary);
    let _ = writeln!(out, "{}\n", wrap(r.why, 80));
    let fix = match r.fix {
        Some(when) => format!("Fix: {when} (verified before it is offered; `gatehouse check --fix` applies it)"),
        None => "Fix: none offered; the change needs the author's judgement.".to_string(),
    };
    let _ = writeln!(out, "{}\n", wrap(&fix, 80));
    for (label, example) in [("Fails", &r.bad), ("Passes", &r.good)] {
        let _ = writeln!(out, "{label}: {}", example.path);
        for line in example.text.lines() {
            let _ = writeln!(out, "    {line}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Turn it off or change its level in .github/gatehouse.yml:\n    rules:\n      {}: off", r.id);
    out
}

/// Wraps each line of `text` (paragraphs and list items stay apart) at `width`.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for (i, paragraph) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut line = 0;
        for word in paragraph.split_whitespace() {
            if line > 0 && line + 1 + word.len() > width {
                out.push('\n');
                line = 0;
            } else if line > 0 {
                out.push(' ');
                line += 1;
            }
            out.push_str(word);
            line += word.chars().count();
        }
    }
    out
}
