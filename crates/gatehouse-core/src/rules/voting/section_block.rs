use super::VotingView;
use crate::docs::voting::BlockError;
use crate::model::{Sink, Span};

declare_rule! {
    id: "voting/section-block",
    view: VotingView,
    severity: Error,
    summary: "each `## ` section carries exactly one readable ```voting block",
    why: "ADR-140: standards docs \"carry sections with structured arguments. Each section declares one \
active_argument … and an array of arguments.\" Each `## ` heading is a section and carries exactly one fenced \
block whose info string is `voting`; consumers (the brief generator, the vote wrapper, the curator) read that \
block and nothing else. A section with no block or with two, a `voting` block outside any section, an unclosed \
fence, or YAML that does not parse (aliases standing for more than 10,000 values in all, an alias bomb, \
are refused; anchors, aliases and merge keys within that bound are expanded) is an error at its line. Prose that is not a section belongs before the first `## ` or under a `### ` heading.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for doc in &view.docs {
        if doc.sections.is_empty() {
            sink.emit(
                doc.path,
                Span::line(1),
                "no-sections",
                "the doc has no `## ` section, so it carries no arguments",
            )
            .help("add a `## <rule>` section with one ```voting block of arguments");
        }
        for &line in &doc.stray_blocks {
            sink.emit(
                doc.path,
                Span::line(line),
                format!("stray:{line}"),
                "this `voting` block is outside any `## ` section",
            )
            .help("move the block under the `## ` heading of the section it belongs to");
        }
        for section in &doc.sections {
            let anchor = format!("section:{}", section.heading);
            match section.fences.as_slice() {
                [] => {
                    sink.emit(doc.path, Span::line(section.line), anchor.clone(), format!("section `{}` has no `voting` block", section.heading))
                        .help("add one ```voting block with the section's arguments, or make the heading `###` if it is prose");
                }
                [first, rest @ ..] => {
                    for &line in rest {
                        sink.emit(doc.path, Span::line(line), format!("{anchor}:extra"), format!("section `{}` has a second `voting` block (the first is on line {first})", section.heading))
                            .help("keep one `voting` block per section: merge the arguments into the first block, or start a new `## ` section");
                    }
                }
            }
            if let Some(Err(error)) = &section.block {
                let (span, help) = match error {
                    BlockError::Unclosed { line } => (Span::line(*line), "close the block with a ``` line"),
                    BlockError::Yaml(e) => (Span::at(e.line, e.col, e.width), e.help.as_str()),
                    BlockError::NotMapping { line, .. } => {
                        (Span::line(*line), "write the block as `section:`, `active_argument:` and `arguments:` keys")
                    }
                };
                sink.emit(doc.path, span, format!("{anchor}:invalid"), error.to_string()).help(help);
            }
        }
    }
}
