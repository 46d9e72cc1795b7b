use super::SpecView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/state-grammar",
    view: SpecView,
    severity: Error,
    summary: "`current-state.txt` is one line `<stage>[:<NN>|:<part>][:<Step>]`",
    why: "fondue `spec` v9, State: \"`current-state.txt` is `<stage>[:<NN>|:<part>][:<Step>]`. `NN` appears in \
`implementation` only, and `part` in `audit` only: `tests`, `conventions` or `fixes`, for the topic \
`audit-<part>`. `Step` appears in `pre-plan`, `plan`, `implementation` and `audit`, and in `handover` while \
the update runs.\" Stages are brief, pre-plan, plan, implementation, audit, handover, done and abandoned; \
`NN` is always two digits from `01`; a step is Draft, Review or Answer. Every session reads this one line \
first, so anything else on it (trailing words, a second line) is a state nobody can act on.",
    bad: "fondue/specs/retry-queue/current-state.txt",
    good: "fondue/specs/retry-queue/current-state.txt",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let Some(Err(e)) = &spec.state else { continue };
        sink.emit(&spec.path("current-state.txt"), Span::at(e.line, e.col, 1), "grammar", e.message.clone()).help(
            "write exactly one state and a newline, e.g. `pre-plan:Review`, `implementation:03:Draft`, \
`audit:tests:Review`, `handover` or `done`",
        );
    }
}
