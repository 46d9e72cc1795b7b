use super::{DecisionView, key_span, status_span, value_span};
use crate::model::Sink;

declare_rule! {
    id: "decision/evidence-required",
    view: DecisionView,
    severity: Error,
    summary: "a resolved (or enacted, reviewed, archived) decision cites at least one piece of evidence",
    why: "ADR 0007: \"Evidence is required at resolve (≥1 citation): an evidence-free resolution is \
structurally incomplete and bounced.\" Agents act on a resolved decision immediately (\"always-proceed, \
review-async\"), so the evidence is what a later review calibrates against. From `resolved` on, the \
manifest's `resolution.evidence` holds at least one non-empty citation; an empty string is never a \
citation.",
    bad: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
    good: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let m = &d.head;
        let resolution = m.member("resolution").filter(|r| !r.value.is_null());
        let evidence = resolution.and_then(|r| r.value.member("evidence"));
        for (i, item) in evidence.and_then(|e| e.value.as_array()).unwrap_or(&[]).iter().enumerate() {
            if item.as_str().is_some_and(|s| s.trim().is_empty()) {
                sink.emit(
                    m.path,
                    value_span(m, item),
                    format!("empty[{i}]"),
                    format!("evidence entry {} is empty", i + 1),
                )
                .help("write the citation (a path, a link, a council id) or remove the entry");
            }
        }
        let Some((status, _)) = m.status().filter(|(s, _)| s.is_resolved()) else { continue };
        let (span, what) = match (resolution, evidence) {
            (None, _) => (status_span(m), "has no `resolution`"),
            (Some(r), None) if r.value.as_object().is_some() => (key_span(r), "has a `resolution` without `evidence`"),
            // Entries that are not strings (`{"path": …}`) are entries all
            // the same: decision/schema says how to write them, and saying
            // "no evidence" beside them would be false.
            (Some(_), Some(e)) => match e.value.as_array() {
                Some(items) if items.iter().all(|i| i.as_str().is_some_and(|s| s.trim().is_empty())) => {
                    (value_span(m, &e.value), "has no evidence: `resolution.evidence` holds no citation")
                }
                _ => continue,
            },
            // A resolution that is not an object is decision/schema's finding.
            (Some(_), None) => continue,
        };
        sink.emit(m.path, span, "evidence", format!("decision is {} but {what}", status.name()))
            .help("cite at least one piece of evidence: `\"evidence\": [\"docs/benchmarks/retry.md\"]`");
    }
}
