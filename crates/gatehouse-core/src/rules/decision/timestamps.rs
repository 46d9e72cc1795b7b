use super::{Decision, DecisionView};
use crate::docs::json::Json;
use crate::docs::timestamp::{self, Timestamp};
use crate::model::{Sink, Span};

declare_rule! {
    id: "decision/timestamps",
    view: DecisionView,
    severity: Error,
    summary: "timestamps are RFC 3339 date-times, never before `filed_at` (a review never before its resolution)",
    why: "ADR 0007's `decision.filed|resolved|reviewed` events \"feed the metrics (interrupt rate, \
override rate) with no new telemetry\": the manifest's `filed_at`, `updated_at`, \
`resolution.resolved_at` and `review.reviewed_at` are those metrics' clock. Each is an ISO 8601 \
date-time in the RFC 3339 profile the engine writes (`2026-07-08T14:05:00Z`, an offset or `Z` \
required), and time runs forward through the lifecycle: nothing happens before the decision was \
filed, and no review before the resolution it reviews. `filed_at` itself is fixed once the decision \
is filed.",
    bad: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
    good: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let m = &d.head;
        let block = |key: &str, field: &str| m.get(key).and_then(|b| b.get(field));
        let fields = [
            ("filed_at", m.get("filed_at")),
            ("updated_at", m.get("updated_at")),
            ("resolution.resolved_at", block("resolution", "resolved_at")),
            ("review.reviewed_at", block("review", "reviewed_at")),
        ];
        let mut parsed: [Option<Timestamp>; 4] = [None; 4];
        for (i, (name, node)) in fields.iter().enumerate() {
            // Only strings are read here: other types are decision/schema's finding.
            let Some((text, node)) = node.and_then(|n| Some((n.as_str()?, n))) else { continue };
            parsed[i] = timestamp::parse(text);
            if parsed[i].is_none() {
                sink.emit(
                    m.path,
                    Span::line(node.line),
                    *name,
                    format!("`{name}` is {text:?}, not an RFC 3339 date-time"),
                )
                .help("write a date-time with a time zone, e.g. `2026-07-08T14:05:00Z`");
            }
        }
        let [filed, _, resolved, _] = parsed;
        refiled(d, sink);
        let earlier = |i: usize, than: Option<Timestamp>| parsed[i].zip(than).is_some_and(|(t, bound)| t < bound);
        for (i, (name, node)) in fields.iter().enumerate().skip(1) {
            let Some(node) = node else { continue };
            if earlier(i, filed) {
                before(sink, m.path, node, name, "filed_at");
            } else if i == 3 && earlier(i, resolved) {
                before(sink, m.path, node, name, "resolution.resolved_at");
            }
        }
    }
}

fn before(sink: &mut Sink, path: &str, node: &Json, name: &str, bound: &str) {
    sink.emit(path, Span::line(node.line), format!("order:{name}"), format!("`{name}` is earlier than `{bound}`"))
        .help(format!("a decision's clock runs forward: `{name}` is at or after `{bound}`"));
}

/// `filed_at` records when the question was filed: an edit never moves it.
fn refiled(d: &Decision, sink: &mut Sink) {
    let before = d.base.as_ref().and_then(|b| b.get("filed_at")?.as_str());
    let Some((node, text)) = d.head.get("filed_at").and_then(|n| Some((n, n.as_str()?))) else { return };
    if let Some(before) = before.filter(|b| *b != text) {
        sink.emit(
            d.head.path,
            Span::line(node.line),
            "refiled",
            format!("`filed_at` changed from {before:?} to {text:?}"),
        )
        .help(format!("restore `\"filed_at\": {before:?}`: it records when the decision was filed"));
    }
}
