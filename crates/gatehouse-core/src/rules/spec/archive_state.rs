use super::SpecView;
use crate::docs::spec::state::State;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/archive-state",
    view: SpecView,
    severity: Error,
    summary: "a spec in fondue/specs/archive/ is `done` or `abandoned`; a spec folder is archived, never deleted",
    why: "fondue `spec` v9: \"fondue/specs/archive/ is history, never current truth.\" Only a finished spec \
belongs there: one the Arbiter took \"to the engine's `done`\", or one the User abandoned. A spec still in \
flight moved into the archive disappears from every session's view, and a spec folder deleted outright \
loses the history (`landed.md`, `99-user.md`, the reviews) later specs read.",
    bad: "fondue/specs/archive/old-cache/current-state.txt",
    good: "fondue/specs/archive/old-cache/current-state.txt",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let path = spec.path("current-state.txt");
        if spec.deleted {
            sink.emit(&path, Span::line(1), "deleted", format!("the spec folder `{}` is deleted", spec.root))
                .help("move a finished or abandoned spec into `archive/<spec>/` instead of deleting it");
            continue;
        }
        match spec.state() {
            Some(State::Done | State::Abandoned) | None => {}
            Some(state) if spec.archived => {
                sink.emit(&path, Span::line(1), "state", format!("an archived spec is `{state}`, not `done` or `abandoned`"))
                    .help("archive a spec only once it is `done` or `abandoned`; move it back to fondue/specs/<spec>/ to continue it");
            }
            Some(_) => {}
        }
    }
}
