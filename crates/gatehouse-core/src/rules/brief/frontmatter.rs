use super::BriefView;
use crate::docs::frontmatter::FrontmatterError;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/frontmatter",
    view: BriefView,
    severity: Error,
    summary: "the frontmatter is present, terminated and valid YAML",
    why: "ADR-099: \"The brief markdown carries frontmatter with a fixed schema so reviewers (and future \
tooling) can verify the brief mechanically.\" Without a readable frontmatter no other check can run, \
so a missing `---` block, an unclosed one, or YAML that does not parse (including nesting deeper than 32 \
levels, which no brief needs, and aliases standing for more than 10,000 values in all, an alias bomb) is an \
error at its line. The YAML is read by the 1.2 core schema: anchors, aliases and merge keys (`<<: *base`) \
are expanded, a tab may separate a value from its colon.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Err(error) = &brief.frontmatter else { continue };
        let (span, help) = match error {
            FrontmatterError::Empty => (
                Span::line(1),
                "write the brief: a `---` line, the six ADR-099 fields, a closing `---` line, then the body",
            ),
            FrontmatterError::Missing => {
                (Span::line(1), "start the file with a `---` line, the six ADR-099 fields, then a closing `---` line")
            }
            FrontmatterError::Unterminated { open } => {
                (Span::line(*open), "add a `---` line after the last frontmatter field")
            }
            FrontmatterError::Yaml(e) => (Span::at(e.line, e.col, e.width), e.help.as_str()),
            FrontmatterError::NotMapping { line, .. } => {
                (Span::line(*line), "write the frontmatter as `key: value` lines")
            }
        };
        sink.emit(brief.path, span, "frontmatter", error.to_string()).help(help);
    }
}
