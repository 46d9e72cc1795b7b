use super::DecisionView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "decision/json",
    view: DecisionView,
    severity: Error,
    summary: "a decision manifest is valid JSON",
    why: "ADR 0007 keeps each decision's typed state in one JSON manifest, `.harnery/decisions/<id>.json`, \
written by the engine (\"writes are atomic (temp → rename)\") so that \"a second host (or a web UI) could \
build on\" it. A manifest that does not parse — a missing comma, a trailing comma, a comment, single \
quotes, a truncated file, nesting deeper than 32 levels — cannot be read by the engine or by any other \
check, so it is an error at the line at fault.",
    bad: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
    good: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
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
