use super::{Decision, DecisionView, status_span};
use crate::docs::decision::first_changed_line;
use crate::model::Sink;
use crate::rules::spans::line_span;

declare_rule! {
    id: "decision/terminal-readonly",
    view: DecisionView,
    severity: Error,
    summary: "a terminal manifest (archived, superseded, wontfix) is never changed",
    why: "ADR 0007: \"Terminal states are read-only.\" A decision that is archived, superseded or \
wontfix is precedent: the docket keeps \"the resolved entry as searchable precedent\", so later \
sessions cite it. Editing it rewrites the record others relied on. Moving it into `archive/` with its \
content unchanged is an archive (\"archive/ (terminal/graduated)\"), not an edit; anything else — a new \
note, a changed recommendation, a changed reason — is an error at the first changed line. (A changed \
status is `decision/transition`'s finding.) Taking a terminal manifest back out of `archive/` is an error \
too: the closed question would reappear in the open queue.",
    bad: ".harnery/decisions/archive/db-pool-2026-06-20-41ac.json",
    good: ".harnery/decisions/archive/db-pool-2026-06-20-41ac.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in &view.decisions {
        unarchived(d, sink);
    }
    for d in view.edited() {
        let Some(base) = &d.base else { continue };
        let Some((status, _)) = base.status().filter(|(s, _)| s.is_terminal()) else { continue };
        // A changed status is reported by decision/transition, once.
        if d.head.status().is_some_and(|(s, _)| s != status) {
            continue;
        }
        let line = first_changed_line(base.text, d.head.text);
        sink.emit(
            d.head.path,
            line_span(d.head.text, line),
            "edited",
            format!(
                "decision `{}` is {}, a terminal status, and the change edits its manifest",
                d.location.stem,
                status.name()
            ),
        )
        .help(
            "restore the manifest as it was on the base; record new information in a new decision that cites this one",
        );
    }
}

/// A terminal decision taken back out of `archive/`: the closed question
/// would reappear in the open queue.
fn unarchived(d: &Decision, sink: &mut Sink) {
    let Some(base) = d.base.as_ref().filter(|_| d.moved() && !d.location.archived) else { return };
    let Some((status, _)) = base.status().filter(|(s, _)| s.is_terminal()) else { return };
    sink.emit(
        d.head.path,
        status_span(&d.head),
        "unarchived",
        format!(
            "decision `{}` is {}, a terminal status, and the change moves it out of `archive/`",
            d.location.stem,
            status.name()
        ),
    )
    .help(format!("leave it at `{}`; file a new decision to reopen the question", base.path));
}
