use super::DecisionView;
use crate::docs::decision::manifest_path;
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "decision/deleted",
    view: DecisionView,
    severity: Error,
    summary: "a decision manifest is archived, never deleted",
    why: "ADR 0007 exists because decisions \"evaporate unrecorded\" and \"the same questions then recur \
across sessions with no precedent to cite\"; the docket keeps \"the resolved entry as searchable \
precedent\". A manifest leaves the top of the docket only by moving to `archive/` (\"archive/ \
(terminal/graduated), mirroring councils\"): a change that removes a decision's manifest without an \
archived copy deletes precedent. The finding is on the deleted path, line 1.",
    bad: Example {
        path: ".harnery/decisions/db-pool-2026-06-20-41ac.json",
        text: "(the manifest is removed from the docket)",
    },
    good: ".harnery/decisions/archive/db-pool-2026-06-20-41ac.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for (path, location) in &view.deleted {
        sink.emit(path, Span::line(1), "deleted", format!("the manifest of decision `{}` is deleted", location.stem))
            .help(format!(
                "keep the manifest; to retire the decision, move it to `{}` instead",
                manifest_path(location.folder, location.stem, true)
            ));
    }
}
