use super::VotingView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "voting/filename",
    view: VotingView,
    severity: Error,
    summary: "a voting doc is named `<doc>@v<n>.md` (or `<doc>.md@v<n>`)",
    why: "ADR-140 places voting docs in the module-guidelines tier of ADR-117, \
`dark-factory/guidelines/<doc>@v<n>.md`, and says \"Each new doc is a new file at <topic>.md@v<n>; bumps mint \
immutable new files.\" The doc name and the version in the file name are what `Guideline: <name>@v<n>` cites \
and what `voting/immutable-version` counts on, so both spellings are accepted and anything else is an error: \
`<doc>` is kebab-case and `<n>` a whole number from 1.",
    bad: "dark-factory/guidelines/Smoke-Spec-Path.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for doc in &view.docs {
        if let Err(message) = doc.file_name() {
            sink.emit(doc.path, Span::line(1), "filename", message).help(
                "rename the file `<doc>@v<n>.md`, e.g. `smoke-spec-path@v1.md` (`<doc>.md@v<n>` is accepted too)",
            );
        }
    }
}
