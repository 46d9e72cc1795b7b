use super::DecisionView;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "decision/json",
    default_severity: Severity::Error,
    summary: "a decision manifest is valid JSON",
    why: "ADR 0007 keeps each decision's typed state in one JSON manifest, `.harnery/decisions/<id>.json`, \
written by the engine (\"writes are atomic (temp → rename)\") so that \"a second host (or a web UI) could \
build on\" it. A manifest that does not parse — a missing comma, a trailing comma, a comment, single \
quotes, a truncated file, nesting deeper than 32 levels — cannot be read by the engine or by any other \
check, so it is an error at the line at fault.",
    bad: Example {
        path: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
        text: include_str!(
            "../../../../../fixtures/rules/decision/json/fail/head/.harnery/decisions/retry-budget-2026-07-08-3f9a.json"
        ),
    },
    good: Example {
        path: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
        text: include_str!(
            "../../../../../fixtures/rules/decision/json/pass/head/.harnery/decisions/retry-budget-2026-07-08-3f9a.json"
        ),
    },
};

pub fn rule<'a>() -> Rule<DecisionView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.edited() {
        let Err(e) = &d.head.root else { continue };
        sink.emit(
            d.head.path,
            Span::at(e.line, e.col, 1),
            "json",
            format!("the manifest is not valid JSON: {}", e.message),
        )
        .help("fix the JSON at this line (double-quoted keys and strings, commas between members, no comments)");
    }
}
