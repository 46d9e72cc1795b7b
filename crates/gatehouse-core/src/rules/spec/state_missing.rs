use super::SpecView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/state-missing",
    view: SpecView,
    severity: Error,
    summary: "every spec folder has `current-state.txt`",
    why: "fondue `spec` v9: \"Read fondue/specs/<spec>/current-state.txt first; it names the live stage.\" \
The folder layout puts `current-state.txt` at every spec's root, and the Arbiter sets it on every \
transition. A spec folder without it has no stage, so no role knows whose turn it is and no transition \
can be checked.",
    bad: "fondue/specs/orphan/roster.md",
    good: "fondue/specs/retry-queue/current-state.txt",
}

fn check(view: &SpecView, sink: &mut Sink) {
    // A state file that is there but not text is `doc/unreadable`'s.
    for spec in view.specs.iter().filter(|s| !s.deleted && !s.has("current-state.txt")) {
        sink.emit(
            &spec.path("current-state.txt"),
            Span::line(1),
            "missing",
            format!("the spec folder `{}` has no `current-state.txt`", spec.root),
        )
        .help("add `current-state.txt` with the spec's state on one line, e.g. `brief` for a new spec");
    }
}
