use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Sink, Span};
use crate::suggest::{did_you_mean, nearest};

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
                let add = format!("add the ADR under one of: {}", view.changes.config.adrs.paths.join(", "));
                let near = nearest_adrs(id, number, view.adrs.keys().copied());
                let help = match did_you_mean(&near.iter().map(String::as_str).collect::<Vec<_>>()) {
                    Some(suggestion) => format!("{suggestion} Else {add}"),
                    None => format!("fix the id, or {add}"),
                };
                sink.emit(
                    brief.path,
                    Span::at(node.line(), node.col(), id.chars().count() as u32),
                    id,
                    format!("{id} is not among the repository's ADRs"),
                )
                .help(help);
            }
        }
    }
}

/// The existing ADR ids nearest `id` (number `number`), written with its
/// zero-padding: `ADR-210` finds `ADR-201`.
fn nearest_adrs(id: &str, number: u32, existing: impl Iterator<Item = u32>) -> Vec<String> {
    let digits = id.chars().rev().take_while(char::is_ascii_digit).count();
    let width = digits.max(number.to_string().len());
    let written = format!("{number:0width$}");
    let existing: Vec<String> = existing.map(|n| format!("{n:0width$}")).collect();
    let prefix = &id[..id.len() - digits];
    nearest(&written, existing.iter().map(String::as_str)).into_iter().map(|n| format!("{prefix}{n}")).collect()
}

#[cfg(test)]
mod tests {
    use super::nearest_adrs;

    #[test]
    fn suggestions_keep_the_written_padding() {
        assert_eq!(nearest_adrs("ADR-210", 210, [95, 99, 201].into_iter()), ["ADR-201"]);
        assert_eq!(nearest_adrs("ADR-96", 96, [95, 99, 201].into_iter()), ["ADR-95", "ADR-99"]);
        assert!(nearest_adrs("ADR-7", 7, [95, 99].into_iter()).is_empty());
    }
}
