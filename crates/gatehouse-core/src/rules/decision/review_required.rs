use super::{DecisionView, status_span};
use crate::model::Sink;

declare_rule! {
    id: "decision/review-required",
    view: DecisionView,
    severity: Error,
    summary: "a reviewed or archived decision carries its `review`",
    why: "ADR 0007 makes review \"calibration sampling, not an approval queue\", and the \
`decision.reviewed` event feeds \"the metrics (interrupt rate, override rate)\". A decision whose \
status says `reviewed` — or `archived`, which the lifecycle only reaches through `reviewed` — must \
carry the `review` block those metrics are computed from: a `verdict` (ratified, overridden, \
wrong-tier-high, wrong-tier-low) and `reviewed_at`.",
    bad: ".harnery/decisions/queue-backend-2026-07-10-7d21.json",
    good: ".harnery/decisions/queue-backend-2026-07-10-7d21.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let m = &d.head;
        let Some((status, _)) = m.status().filter(|(s, _)| s.is_reviewed()) else { continue };
        if m.get("review").is_some_and(|r| !r.is_null()) {
            continue;
        }
        sink.emit(m.path, status_span(m), "review", format!("decision is {} but has no `review`", status.name()))
            .help("add `\"review\": { \"verdict\": \"ratified\", \"reviewed_at\": \"…\" }`, or keep the status at `resolved`/`enacted` until it is reviewed");
    }
}
