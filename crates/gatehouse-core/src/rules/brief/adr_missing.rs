use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/adr-missing",
    default_severity: Severity::Error,
    summary: "each ADR in `adrs_referenced` exists in the repository",
    why: "ADR-099 asks that a brief be \"verified against the merged ADR\". An ADR that is not in the \
repository (at the base, or added by the same PR) cannot have been read. ADRs are found under \
`adrs.paths` (default `dark-factory/docs/decisions/**/*.md`, `docs/decisions/**/*.md`, \
`docs/adr/**/*.md`) by the `ADR-<n>` in their file name or first heading; `ADR-95` and `ADR-095` are \
the same ADR.",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/adr-missing/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/adr-missing/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (id, node) in brief.strings("adrs_referenced") {
            let Some(number) = parse_id(id) else { continue };
            if !view.adrs.contains_key(&number) {
                sink.emit(
                    brief.path,
                    Span::at(node.line(), node.col(), id.chars().count() as u32),
                    id,
                    format!("{id} is not among the repository's ADRs"),
                )
                .help(format!(
                    "fix the id, or add the ADR under one of: {}",
                    view.changes.config.adrs.paths.join(", ")
                ));
            }
        }
    }
}
