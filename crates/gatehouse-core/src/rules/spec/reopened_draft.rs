use super::SpecView;
use super::artifact_required::is_draft;
use crate::docs::label::{label, names_section};
use crate::docs::markdown;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/reopened-draft",
    view: SpecView,
    severity: Error,
    summary: "a reopened spec's drafts carry the sections Earlier attempts and Landed work",
    why: "fondue `spec` v9, Artifacts → pre-plan/NN-draft.md: \"A draft in a reopened spec carries two more \
sections: **Earlier attempts** - for each one: its approach in a few lines …, why it ended, the assumptions \
its `reopen.md` shows broken or the User's ruling rules out, if any, and why this approach does not rest on \
them. **Landed work** - every commit the spec has landed so far, by phase or audit topic and by attempt, \
including a phase or topic that never closed: keep, amend or revert, each with its reason.\" And on \
`pre-plan`, \"a draft that rests on an assumption an earlier `reopen.md` shows broken or rules out is a \
Blocker, and so is landed work the draft does not account for\": the two sections are where the reviewer \
finds both. A spec is reopened when it has an `attempts/NN/` folder; each draft of its live attempt \
(`pre-plan/NN-draft.md`, from `03`) has each section: a heading that starts with its name (`## Landed work \
(from landed.md)`), or a line that opens with the name as a bold label, as the seed writes it.",
    bad: "fondue/specs/retry-queue/pre-plan/03-draft.md",
    good: "fondue/specs/retry-queue/pre-plan/03-draft.md",
}

const SECTIONS: [&str; 2] = ["Earlier attempts", "Landed work"];

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.current().filter(|s| s.attempt > 1) {
        for (rel, content) in spec.head.iter().filter(|(rel, _)| is_draft(rel)) {
            let Some(text) = content.text() else { continue };
            let headings = markdown::parse(text, 1).headings;
            // A section is a heading that starts with its name, or a line
            // that opens with it as a bold label, as the seed writes it
            // (`**Earlier attempts** - for each one: …`).
            let has = |name: &str| {
                headings.iter().any(|h| h.level >= 2 && names_section(&h.text, name))
                    || text.lines().any(|line| label(line).is_some_and(|(label, _)| names_section(label, name)))
            };
            for name in SECTIONS.into_iter().filter(|name| !has(name)) {
                sink.emit(
                    &spec.path(rel),
                    Span::line(1),
                    format!("section:{name}"),
                    format!(
                        "the spec was reopened (attempt {:02}), and this draft has no `## {name}` section",
                        spec.attempt
                    ),
                )
                .help(match name {
                    "Earlier attempts" => {
                        "add `## Earlier attempts`: for each attempt in attempts/, its approach, why it ended, the \
                         assumptions its reopen.md shows broken, and why this approach does not rest on them"
                    }
                    _ => {
                        "add `## Landed work`: every commit landed so far (landed.md gives the boundaries), by phase \
                         or audit topic and attempt, each kept, amended or reverted with its reason"
                    }
                });
            }
        }
    }
}
