use super::{Spec, SpecView};
use crate::docs::spec::state::State;
use crate::docs::spec::transitions::Row;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "spec/gate-evidence",
    default_severity: Severity::Error,
    summary: "each stage gate the move passes has its closing verdict on disk",
    why: "fondue `spec` v9 closes every stage on a verdict: pre-plan and plan \"close on verdict `approved` or \
`closed`\", \"the stage closes when the last phase closes\", an audit lens ends on `approved`/`closed` or \
`nothing to change`, `audit-fixes` runs \"when `audit/findings.md` exists after both lens topics have \
ended\", and v9 has no light mode, so `implementation:01` always follows a closed plan review. A state past \
a gate must have that gate's evidence on disk (DESIGN §3.3): `plan:*` needs `review/pre-plan/` closed, \
`implementation:01:*` needs `review/plan/` closed, `implementation:<NN+1>:*` and `audit:*` need \
`review/phase-<NN>/` closed, `audit:conventions:*` needs `audit-tests` ended, `audit:fixes:*` needs \
`audit/findings.md`, and `handover*` needs the audit ended. That makes a jump checkable even when one pull \
request spans many turns.",
    bad: Example {
        path: "fondue/specs/retry-queue/review/phase-01/01-review.md",
        text: include_str!(
            "../../../fixtures/rules/spec/gate-evidence/fail/head/fondue/specs/retry-queue/review/phase-01/01-review.md"
        ),
    },
    good: Example {
        path: "fondue/specs/retry-queue/review/phase-01/01-review.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/phase-01/01-review.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<SpecView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let (Some(from), Some(path), Some(to)) = (spec.from, &spec.path, spec.state()) else { continue };
        let mut prev = from;
        for &(next, row) in path {
            if let Some((anchor, why, help)) = missing(spec, prev, next, row) {
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

/// What the hop `prev` → `next` needs on disk that is not there.
fn missing(spec: &Spec, prev: State, next: State, row: &Row) -> Option<(String, String, String)> {
    if let Some(why) = spec.condition_fails(prev, next) {
        return Some((
            format!("{prev}->{next}"),
            why,
            "move the spec by the row its disk allows (seed: State → Transitions)".into(),
        ));
    }
    let (topic, _) = prev.topic()?;
    let stays = next.topic().is_some_and(|(t, _)| t == topic);
    if stays || row.reopen || next == State::Abandoned {
        return None;
    }
    let dir = topic.dir();
    let ended = spec.topic_closed(topic)
        || spec.stats_say(prev, "nothing to change")
        || spec.stats_say(prev, "nothing to update");
    (!ended).then(|| {
        (
            dir.clone(),
            format!("`review/{dir}/` has no closing verdict (`approved` or `closed`) as its newest file"),
            format!("close `{dir}` first: its newest review ends `Verdict: approved <subject>` or its newest answer `Verdict: closed <subject>`; a topic that ended on `nothing to change` has that reply in `stats.md`"),
        )
    })
}
