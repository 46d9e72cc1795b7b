use super::{KB_INDEX, Spec, SpecView};
use crate::docs::spec::files::LandedEvent;
use crate::docs::spec::state::{State, Step, Topic};
use crate::docs::spec::transitions::Row;
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/gate-evidence",
    view: SpecView,
    severity: Error,
    summary: "each stage gate the move passes has its closing verdict on disk",
    why: "fondue `spec` v9 closes every stage on a verdict: pre-plan and plan \"close on verdict `approved` or \
`closed`\", \"the stage closes when the last phase closes\", an audit lens ends on `approved`/`closed` or \
`nothing to change`, `audit-fixes` runs \"when `audit/findings.md` exists after both lens topics have \
ended\", and v9 has no light mode, so `implementation:01` always follows a closed plan review. A state past \
a gate must have that gate's evidence on disk: `plan:*` needs `review/pre-plan/` closed, \
`implementation:01:*` needs `review/plan/` closed, `implementation:<NN+1>:*` and `audit:*` need \
`review/phase-<NN>/` closed, `audit:conventions:*` needs `audit-tests` ended, `audit:fixes:*` needs \
`audit/findings.md`, and `handover*` needs the audit ended. The update at handover \"always runs, unless \
the project has neither a knowledge base (`fondue/kb/index.md`) nor a project skill \
(`.claude/skills/*/SKILL.md`): then the state goes straight to `handover`\" (handover): leaving the audit \
for `handover` while the repository has either skips the update. (The other way round is not checked: a \
project may keep `fondue/kb/` out of git, so a repository without one may still have the update run.) A closed phase or audit topic also leaves its \
line in `landed.md` (\"When the new state is `implementation:01:Draft`, or a reply closed a phase or an \
audit topic, it appends the line to `landed.md`\"). That makes a jump checkable even when one pull \
request spans many turns.",
    bad: "fondue/specs/retry-queue/review/phase-01/01-review.md",
    good: Example {
        path: "fondue/specs/retry-queue/review/phase-01/01-review.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/phase-01/01-review.md"
        ),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let (Some(from), Some(path), Some(to)) = (spec.from, &spec.path, spec.state()) else { continue };
        let mut prev = from;
        for &(next, row) in path {
            for (anchor, why, help) in missing(spec, prev, next, row) {
                sink.emit(
                    &spec.path("current-state.txt"),
                    Span::line(1),
                    anchor,
                    format!("`{to}` is past `{prev}` → `{next}`, but {why}"),
                )
                .help(help);
            }
            prev = next;
        }
    }
}

/// What the hop `prev` → `next` needs on disk that is not there:
/// (anchor, what is missing, how to fix it).
fn missing(spec: &Spec, prev: State, next: State, row: &Row) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    if let Some(why) = spec.condition_fails(prev, next) {
        out.push((
            format!("{prev}->{next}"),
            why,
            "move the spec by the row its disk allows (seed: State → Transitions)".into(),
        ));
        return out;
    }
    let attempt = spec.attempt;
    if next == State::Implementation(1, Step::Draft) && !spec.landed(LandedEvent::Starts) {
        out.push((
            "landed:starts".into(),
            format!("`landed.md` has no `attempt-{attempt:02} implementation starts at <sha>` line"),
            "the Arbiter appends the line when the new state is `implementation:01:Draft`".into(),
        ));
    }
    let Some((topic, _)) = prev.topic() else { return out };
    let stays = next.topic().is_some_and(|(t, _)| t == topic);
    if stays || row.reopen || next == State::Abandoned {
        return out;
    }
    let dir = topic.dir();
    let closed = spec.topic_closed(topic);
    let nothing = spec.stats_say(prev, "nothing to change") || spec.stats_say(prev, "nothing to update");
    if !closed && !nothing {
        let help = if topic == Topic::Handover && spec.update_runs {
            format!(
                "the repository has a knowledge base (`{KB_INDEX}`) or a project skill (`.claude/skills/*/SKILL.md`), so the update runs before `handover`: close `review/handover/`, or record the reply `nothing to update` in `stats.md`"
            )
        } else {
            format!(
                "close `{dir}` first: its newest review ends `Verdict: approved <subject>` or its newest answer `Verdict: closed <subject>`; a topic that ended on `nothing to change` has that reply in `stats.md`"
            )
        };
        out.push((
            dir.clone(),
            format!("`review/{dir}/` has no closing verdict (`approved` or `closed`) as its newest file"),
            help,
        ));
    }
    // A closed phase or audit topic leaves its line in landed.md; one that
    // ended on `nothing to change` gets none.
    let event = match topic {
        Topic::Phase(nn) => Some(LandedEvent::Phase(nn)),
        Topic::Audit(part) if closed => Some(LandedEvent::Audit(part)),
        _ => None,
    };
    if event.is_some_and(|e| !spec.landed(e)) {
        out.push((
            format!("landed:{dir}"),
            format!("`landed.md` has no `attempt-{attempt:02} {dir} closed at <sha>` line"),
            format!("the Arbiter appends `attempt-{attempt:02} {dir} closed at <sha>` when `{dir}` closes"),
        ));
    }
    out
}
