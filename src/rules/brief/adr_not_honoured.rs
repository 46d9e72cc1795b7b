use super::BriefView;
use crate::docs::adr::{mentions, parse_id};
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/adr-not-honoured",
    default_severity: Severity::Error,
    summary: "each cited ADR is mentioned in the brief's body",
    why: "ADR-099: reviewers verify that \"every ADR cited in adrs_referenced is actually quoted or \
honoured, not just name-dropped\". SWARM-AR was briefed to implement ADR-095 against the ADR's own \
non-negotiable rules. The body must engage with each cited ADR: mention it where it constrains \
the work, or quote it.",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../fixtures/rules/brief/adr-not-honoured/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../fixtures/rules/brief/adr-not-honoured/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let mentioned: Vec<u32> = mentions(brief.body).iter().map(|m| m.number).collect();
        for (id, node) in brief.strings("adrs_referenced") {
            let Some(number) = parse_id(id) else { continue };
            if !mentioned.contains(&number) {
                sink.emit(
                    brief.path,
                    Span::at(node.line, node.col, id.chars().count() as u32),
                    id,
                    format!("{id} is cited but the body never mentions it"),
                )
                .help(format!("say in the body how {id} constrains the work, or quote it in a `>` blockquote"));
            }
        }
    }
}
