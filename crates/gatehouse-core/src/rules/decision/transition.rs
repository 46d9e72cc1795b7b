use super::{DecisionView, status_span};
use crate::docs::decision::lifecycle::{self, Status};
use crate::model::Sink;

declare_rule! {
    id: "decision/transition",
    view: DecisionView,
    severity: Error,
    summary: "the status moves from base to head along the lifecycle",
    why: "ADR 0007: \"Lifecycle filed → triaged → deliberating → resolved → enacted → reviewed → archived, \
with superseded/wontfix as escape hatches and a deliberating → triaged edge for re-triage. Terminal \
states are read-only. A single transition() chokepoint enforces legality + terminality.\" A pull \
request is gatehouse's chokepoint: the head status must be reachable from the base status in the \
lifecycle table (docs/seed-coverage.md, Engine formats, gives every row). A pull request may carry several engine steps (an agent \
that resolves and enacts in one session), so a move along a legal path is accepted and the summary \
shows the path; a move backwards (resolved → triaged), sideways (resolved → wontfix) or out of a \
terminal state (archived → resolved) is an error.",
    bad: ".harnery/decisions/archive/log-format-2026-07-02-9b10.json",
    good: ".harnery/decisions/log-format-2026-07-02-9b10.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let Some((from, to)) = d.statuses() else { continue };
        if from == to || lifecycle::reachable(from, to) {
            continue;
        }
        let (message, help) = if from.is_terminal() {
            (
                format!(
                    "status moved from `{}` to `{}`, but `{}` is terminal and read-only",
                    from.name(),
                    to.name(),
                    from.name()
                ),
                format!("restore `\"status\": \"{}\"`; file a new decision to reopen the question", from.name()),
            )
        } else {
            let next: Vec<&str> = lifecycle::next(from).map(Status::name).collect();
            (
                format!("status moved from `{}` to `{}`, which the lifecycle does not allow", from.name(), to.name()),
                format!("from `{}` a decision moves to {}", from.name(), next.join(", ")),
            )
        };
        sink.emit(d.head.path, status_span(&d.head), "status", message).help(help);
    }
}
