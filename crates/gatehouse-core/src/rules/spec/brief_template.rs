use super::SpecView;
use crate::docs::spec::files::{BRIEF_SECTIONS, parse_brief, parse_user_log};
use crate::model::{Severity, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/brief-template",
    view: SpecView,
    severity: Error,
    summary: "00-brief.md has `# <title>`, Goal, Context, Open questions; amendments are well-formed; no `Mode:`",
    why: "fondue `spec` v9, pre-plan/00-brief.md: the brief is `# <spec title>`, `## Goal` (\"what exists when \
the spec is done, and any property it must keep\"), `## Context` and `## Open questions`. An amendment \
adds \"a line under the title [that] says `Amended <date>: <what changed>; ruling in 99-user.md`\", so the \
ruling must be in `99-user.md`. v9 removed light mode: \"A `Mode:` line in a brief is ignored: every spec \
runs every stage\" — a warning, because its author may expect it to matter.",
    bad: "fondue/specs/retry-queue/pre-plan/00-brief.md",
    good: Example {
        path: "fondue/specs/retry-queue/pre-plan/00-brief.md",
        text: include_str!("../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/pre-plan/00-brief.md"),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.current() {
        let Some(text) = spec.text("pre-plan/00-brief.md") else { continue };
        let path = spec.path("pre-plan/00-brief.md");
        let brief = parse_brief(text);
        let title = brief.title.unwrap_or(1);
        if brief.title.is_none() {
            sink.emit(&path, Span::line(1), "title", "the brief does not start with a `# <spec title>` heading")
                .help("start the brief with `# <spec title>`");
        }
        let mut at = 0;
        for name in BRIEF_SECTIONS {
            match brief.sections.iter().position(|(s, _)| crate::docs::label::names_section(s, name)) {
                None => {
                    sink.emit(
                        &path,
                        Span::line(title),
                        format!("section:{name}"),
                        format!("the brief has no `## {name}` section"),
                    )
                    .help("the brief's sections are `## Goal`, `## Context`, `## Open questions`, in that order");
                }
                Some(i) if i < at => {
                    sink.emit(
                        &path,
                        Span::line(brief.sections[i].1),
                        format!("order:{name}"),
                        format!("`## {name}` is out of order"),
                    )
                    .help("the brief's sections are `## Goal`, `## Context`, `## Open questions`, in that order");
                }
                Some(i) => at = i,
            }
        }
        let first_section = brief.sections.first().map_or(u32::MAX, |s| s.1);
        let rulings = spec.text("99-user.md").map(|t| parse_user_log(t).0).unwrap_or_default();
        for a in &brief.amendments {
            let anchor = format!("amended:{}", a.date.as_deref().unwrap_or("?"));
            let Some(date) = &a.date else {
                sink.emit(
                    &path,
                    Span::line(a.line),
                    anchor,
                    "an amendment line is not `Amended <date>: <what changed>; ruling in 99-user.md`",
                )
                .help("write `Amended YYYY-MM-DD: <what changed>; ruling in 99-user.md`");
                continue;
            };
            if a.line > first_section {
                sink.emit(
                    &path,
                    Span::line(a.line),
                    anchor,
                    "an amendment line sits below the sections, not under the title",
                )
                .help("move the `Amended …` line directly under the `# ` title");
            } else if !rulings.iter().any(|r| &r.date == date) {
                sink.emit(&path, Span::line(a.line), anchor, format!("the amendment of {date} has no ruling of that date in `99-user.md`"))
                    .help("record the ruling that changed the brief in 99-user.md: `## <date> <state>`, `**Asked:**`, `**Ruling:**`");
            }
        }
        if let Some(line) = brief.mode {
            sink.emit(
                &path,
                Span::line(line),
                "mode",
                "a `Mode:` line is ignored in spec v9: every spec runs every stage",
            )
            .help("remove the `Mode:` line; v9 has no light mode")
            .severity(Severity::Warning);
        }
    }
}
