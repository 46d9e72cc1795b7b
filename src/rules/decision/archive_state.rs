use super::{Decision, DecisionView};
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "decision/archive-state",
    default_severity: Severity::Error,
    summary: "a manifest in `archive/` is terminal (archived, superseded, wontfix) or graduated",
    why: "ADR 0007 lays the docket out as \"<id>.json (manifest) + <id>/ (long-form bodies) + archive/ \
(terminal/graduated), mirroring councils\". The top of the docket is the open queue; `archive/` holds \
decisions that are finished: in a terminal state, or graduated (`graduated_to` names where the \
decision went). A decision moved into `archive/` while it is still open drops out of the queue \
without being finished.",
    bad: Example {
        path: ".harnery/decisions/archive/queue-backend-2026-07-10-7d21.json",
        text: include_str!(
            "../../../fixtures/rules/decision/archive-state/fail/head/.harnery/decisions/archive/queue-backend-2026-07-10-7d21.json"
        ),
    },
    good: Example {
        path: ".harnery/decisions/archive/queue-backend-2026-07-10-7d21.json",
        text: include_str!(
            "../../../fixtures/rules/decision/archive-state/pass/head/.harnery/decisions/archive/queue-backend-2026-07-10-7d21.json"
        ),
    },
};

pub fn rule<'a>() -> Rule<DecisionView<'a>> {
    Rule { info: &INFO, check }
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
        sink.emit(m.path, Span::line(m.status_line()), "archive-state", format!("decision is {} but sits in `archive/`", status.name()))
            .help("keep open decisions at the top of the docket; archive a decision once it is archived, superseded or wontfix, or set `graduated_to`");
    }
}
