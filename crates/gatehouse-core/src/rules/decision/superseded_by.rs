use super::{DecisionView, status_span, value_span};
use crate::docs::decision::lifecycle::Status;
use crate::model::Sink;

declare_rule! {
    id: "decision/superseded-by",
    view: DecisionView,
    severity: Error,
    summary: "a superseded decision names, in `superseded_by`, a decision that exists",
    why: "ADR 0007 keeps resolved decisions \"as searchable precedent\" so \"the same questions\" stop \
recurring \"with no precedent to cite\". `superseded` is an escape hatch that sends a reader on to the \
decision that replaced this one: a superseded manifest names it in `superseded_by`, and that decision \
has a manifest in the docket (at the top or in `archive/`). A decision cannot supersede itself.",
    bad: ".harnery/decisions/cache-ttl-2026-07-09-0c4e.json",
    good: ".harnery/decisions/cache-ttl-2026-07-09-0c4e.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let m = &d.head;
        let node = m.get("superseded_by").filter(|n| !n.is_null());
        match node.and_then(|n| n.as_str().map(|s| (s.trim(), value_span(m, n)))) {
            Some(("", _)) | None if m.status().is_some_and(|(s, _)| s == Status::Superseded) => {
                let span = node.map_or(status_span(m), |n| value_span(m, n));
                sink.emit(m.path, span, "missing", "decision is superseded but `superseded_by` names no decision")
                    .help("set `superseded_by` to the id of the decision that replaces this one");
            }
            Some((id, span)) if id == d.location.stem => {
                sink.emit(m.path, span, "self", "`superseded_by` names this decision itself")
                    .help("name the decision that replaces this one");
            }
            Some((id, span)) if !id.is_empty() && !view.exists(d.location.folder, id) => {
                sink.emit(
                    m.path,
                    span,
                    "unknown",
                    format!("`superseded_by` names `{id}`, which has no manifest in `{}`", d.location.folder),
                )
                .help(format!(
                    "file the replacing decision as `{}/{id}.json` in this change, or fix the id",
                    d.location.folder
                ));
            }
            _ => {}
        }
    }
}
