use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/adr-format",
    default_severity: Severity::Error,
    summary: "each `adrs_referenced` entry is `ADR-<digits>`",
    why: "ADR-099: \"every ADR cited in adrs_referenced is actually quoted or honoured\". To check that, \
each entry must name an ADR unambiguously: `ADR-` and its number (`ADR-095`).",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/adr-format/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/adr-format/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
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
