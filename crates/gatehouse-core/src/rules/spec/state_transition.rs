use super::SpecView;
use crate::docs::spec::transitions::{shortest_path, successors};
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/state-transition",
    view: SpecView,
    severity: Error,
    summary: "the head state is reachable from the base state in the v9 transition table",
    why: "fondue `spec` v9, State → Transitions: \"The engine's rows hold. This skill adds\" the rows from \
`brief` through pre-plan, plan, each phase, the audit topics and handover to `done`. A spec moves only by \
those rows and the engine's generic ones: `<x>:Draft` → `<x>:Review` (request opened), `<x>:Review` → \
`<x>:Answer` (changes-requested, approved-with-fixes), `<x>:Answer` → `<x>:Review` (next-round), and \
`abandoned` from anywhere; approved or closed leave a topic by the skill's rows, e.g. `pre-plan:Review` → \
`plan:Draft`, `implementation:NN:Review` → `implementation:<NN+1>:Draft` or, after the last phase, \
`audit:tests:Draft`, then `audit:conventions:Draft`, `audit:fixes:Draft` when `audit/findings.md` exists, \
`handover:Draft`, `handover`, `done`. A state \
that no sequence of rows reaches from the base state is an illegal move: a `done` or `abandoned` spec never \
moves again, `handover` never goes back, and going back to an earlier stage is only a reopen or a restart, \
which moves the live attempt into `attempts/NN/` and sets `brief` (seed: Reopening). v9 has no light mode: \
v8's row `plan:Draft` → `implementation:01:Draft` (`light: phases split`) is gone.",
    bad: "fondue/specs/retry-queue/current-state.txt",
    good: "fondue/specs/retry-queue/current-state.txt",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let (Some(from), Some(to)) = (spec.from, spec.state()) else { continue };
        if spec.path.is_some() {
            continue;
        }
        let path = spec.path("current-state.txt");
        let anchor = format!("{from}->{to}");
        if from.is_terminal() {
            sink.emit(&path, Span::line(1), anchor, format!("the spec is `{from}` on the base and moves to `{to}`"))
                .help(format!("`{from}` is final: leave the state as it is and start a new spec for new work"));
        } else if shortest_path(from, to, true).is_some() {
            sink.emit(&path, Span::line(1), anchor, format!("`{from}` → `{to}` goes back to an earlier stage without a reopen"))
                .help("going back is a reopen or a restart: move `pre-plan/`, `plan/`, `audit/`, `review/` and `reopen.md` into the next `attempts/NN/` and set `brief` (seed: Reopening)");
        } else {
            let next: Vec<String> = successors(from).iter().map(|(s, _)| format!("`{s}`")).collect();
            sink.emit(
                &path,
                Span::line(1),
                anchor,
                format!("no sequence of v9 transitions leads from `{from}` to `{to}`"),
            )
            .help(format!("from `{from}` the next states are {}", next.join(", ")));
        }
    }
}
