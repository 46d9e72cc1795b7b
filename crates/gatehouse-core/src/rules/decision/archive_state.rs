use super::{Decision, DecisionView, status_span};
use crate::docs::decision::lifecycle::{self, Status};
use crate::model::Sink;

declare_rule! {
    id: "decision/archive-state",
    view: DecisionView,
    severity: Error,
    summary: "a manifest in `archive/` is terminal (archived, superseded, wontfix) or graduated; an archived one lives in `archive/`",
    why: "ADR 0007 lays the docket out as \"<id>.json (manifest) + <id>/ (long-form bodies) + archive/ \
(terminal/graduated), mirroring councils\". The top of the docket is the open queue; `archive/` holds \
decisions that are finished: in a terminal state, or graduated (`graduated_to` names where the \
decision went). A decision moved into `archive/` while it is still open drops out of the queue \
without being finished. The other way round, a decision the change sets to `archived` belongs in \
`archive/`: the docket keeps \"archive/ (terminal/graduated)\" apart from the live manifests, and a \
manifest set to `archived` but left in `.harnery/decisions/` sits in the open queue although it is \
finished.",
    bad: ".harnery/decisions/archive/queue-backend-2026-07-10-7d21.json",
    good: ".harnery/decisions/archive/queue-backend-2026-07-10-7d21.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    // Manifests that arrive in `archive/` (new, or moved in: a pure move
    // counts). One already archived on the base is the other rules' concern.
    let arrived = |d: &&Decision| d.location.archived && (d.base.is_none() || d.moved());
    for d in view.decisions.iter().filter(arrived).filter(|d| d.head.root.is_ok()) {
        let m = &d.head;
        let Some((status, _)) = m.status() else { continue };
        if status.is_terminal() || m.text_field("graduated_to").is_some() {
            continue;
        }
        sink.emit(m.path, status_span(m), "archive-state", format!("decision is {} but sits in `archive/`", status.name()))
            .help("keep open decisions at the top of the docket; archive a decision once it is archived, superseded or wontfix, or set `graduated_to`");
    }
    // Manifests the change sets to `archived` outside `archive/` (an illegal
    // move to `archived` is the transition rule's alone).
    let set_legally = |d: &Decision| match d.base.as_ref().map(|b| b.status()) {
        None => true,
        Some(Some((from, _))) => lifecycle::reachable(from, Status::Archived),
        Some(None) => false,
    };
    for d in view.parsed().filter(|d| !d.location.archived && set_legally(d)) {
        let m = &d.head;
        if m.status().is_some_and(|(s, _)| s == Status::Archived) {
            let to = crate::docs::decision::manifest_path(d.location.folder, d.location.stem, true);
            sink.emit(m.path, status_span(m), "archived-outside", "decision is archived but sits outside `archive/`")
                .help(format!("move the manifest to `{to}`"));
        }
    }
}
