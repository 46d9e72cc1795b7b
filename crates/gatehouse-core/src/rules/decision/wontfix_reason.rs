use super::{DecisionView, status_span, value_span};
use crate::docs::decision::lifecycle::Status;
use crate::model::Sink;

declare_rule! {
    id: "decision/wontfix-reason",
    view: DecisionView,
    severity: Error,
    summary: "a wontfix decision says why, in `wontfix_reason`",
    why: "ADR 0007 makes `wontfix` an escape hatch and a terminal, read-only state: the question is \
closed for good and stays in the docket as precedent. Without a reason, the next session that hits the \
same question cannot tell whether it was declined on purpose or abandoned, so a `wontfix` manifest \
carries a non-empty `wontfix_reason`.",
    bad: ".harnery/decisions/log-format-2026-07-02-9b10.json",
    good: ".harnery/decisions/log-format-2026-07-02-9b10.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let m = &d.head;
        if m.status().is_none_or(|(s, _)| s != Status::Wontfix) || m.text_field("wontfix_reason").is_some() {
            continue;
        }
        // A reason of the wrong type is decision/schema's finding.
        let node = m.get("wontfix_reason").filter(|n| !n.is_null());
        if node.is_some_and(|n| n.as_str().is_none()) {
            continue;
        }
        let span = node.map_or(status_span(m), |n| value_span(m, n));
        sink.emit(m.path, span, "wontfix_reason", "decision is wontfix but `wontfix_reason` is missing or empty")
            .help("say why the question is closed: `\"wontfix_reason\": \"…\"`");
    }
}
