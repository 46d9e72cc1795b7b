use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-missing",
    view: BriefView,
    severity: Error,
    summary: "each ADR in `adrs_referenced` exists in the repository",
    why: "ADR-099 asks that a brief be \"verified against the merged ADR\". An ADR that is not in the \
repository (at the base, or added by the same PR) cannot have been read. ADRs are found under \
`adrs.paths` (default `dark-factory/docs/decisions/**/*.md`, `docs/decisions/**/*.md`, \
`docs/adr/**/*.md`, `doc/adr/**/*.md` (adr-tools), `docs/architecture/decisions/**/*.md`) by their \
number: `ADR-<n>` in the file name (`ADR-095-backups.md`) or the title (`# ADR-095: …`, or a first \
line `ADR-099: …`), else the file name's leading number (`0005-use-sqlite.md`, as adr-tools, MADR \
and log4brains name records), else a numbered title (`# 5. Use SQLite`). `ADR-5`, `ADR-005` and \
`ADR-0005` are the same ADR.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
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
