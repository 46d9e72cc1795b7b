use super::{DecisionView, value_span};
use crate::docs::decision::{is_valid_id, manifest_path};
use crate::model::{Fix, Sink, Span};

declare_rule! {
    id: "decision/id",
    view: DecisionView,
    severity: Error,
    summary: "`decision_id` equals the file name and follows the engine's id pattern",
    why: "ADR 0007 stores \"State at .harnery/decisions/<id>.json … One file per decision — no shared \
index — so concurrent filers never contend\". The file name is the index: the engine finds a decision \
by its id, so `decision_id` must equal the file name, and the id follows the harnery engine's pattern \
`<slug>-YYYY-MM-DD-<4 hex>` (docs/seed-coverage.md, Engine formats), lower-case. A decision has one manifest: the same id at the \
top of the docket and in `archive/` is two decisions claiming one name.",
    fix: "sets `decision_id` to the file name's id, when the file name is a decision id",
    bad: ".harnery/decisions/queue-backend-2026-07-10-7d21.json",
    good: ".harnery/decisions/queue-backend-2026-07-10-7d21.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let stem = d.location.stem;
        let node = d.head.get("decision_id");
        let span = node.map_or(Span::line(d.head.root_line()), |n| value_span(&d.head, n));
        if !is_valid_id(stem) {
            sink.emit(d.head.path, span, "pattern", format!("the file name `{stem}.json` is not a decision id"))
                .help("name the decision `<slug>-YYYY-MM-DD-<4 hex digits>.json`, lower-case, e.g. `queue-backend-2026-07-10-7d21.json`");
        }
        if let Some(id) = node.and_then(|n| n.as_str()).filter(|id| *id != stem) {
            sink.emit(d.head.path, span, "mismatch", format!("`decision_id` is `{id}` but the file is `{stem}.json`"))
                .help("the id and the file name must be the same: rename the file or fix `decision_id`")
                .fix(node.filter(|_| is_valid_id(stem)).and_then(|node| {
                    let range = crate::rules::fixes::scalar_range(d.head.text, node.line, node.col, false)?;
                    let quoted = serde_json::to_string(stem).ok()?;
                    Some(Fix::replace(format!("set `\"decision_id\": {quoted}`"), d.head.path, range, quoted))
                }));
        }
        let other = manifest_path(d.location.folder, stem, !d.location.archived);
        if view.changes.head.contains_key(&other) {
            sink.emit(d.head.path, span, "duplicate", format!("decision `{stem}` also has a manifest at `{other}`"))
                .help("keep one manifest per decision: remove the copy, or give the new decision its own id");
        }
    }
}
