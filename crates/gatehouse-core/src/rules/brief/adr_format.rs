use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-format",
    view: BriefView,
    severity: Error,
    summary: "each `adrs_referenced` entry is `ADR-<digits>`",
    why: "ADR-099: \"every ADR cited in adrs_referenced is actually quoted or honoured\". To check that, \
each entry must name an ADR unambiguously: `ADR-` and its number (`ADR-095`).",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (id, node) in brief.strings("adrs_referenced") {
            if parse_id(id).is_none() {
                sink.emit(
                    brief.path,
                    Span::at(node.line(), node.col(), id.chars().count() as u32),
                    id,
                    format!("`{id}` is not an ADR id of the form `ADR-<digits>`"),
                )
                .help("write the id as `ADR-` and its number, e.g. `ADR-095`");
            }
        }
    }
}
