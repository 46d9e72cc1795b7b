use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-superseded",
    view: BriefView,
    severity: Warning,
    summary: "a cited ADR is not superseded or rejected (the successor is named)",
    why: "ADR-099 grounds briefs in \"the merged ADR + the first PR that landed under it\". A brief \
built on an ADR whose `Status:` is superseded or rejected, or that names a successor in \
`Superseded by: ADR-NNN`, prescribes a decision the team has since reversed.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (id, node) in brief.strings("adrs_referenced") {
            let Some(adr) = parse_id(id).and_then(|n| view.adrs.get(&n)) else { continue };
            if !adr.is_retired() {
                continue;
            }
            let (message, help) = match adr.superseded_by {
                Some(next) => (
                    format!("{id} is superseded by ADR-{next:03}"),
                    format!("build on ADR-{next:03} instead, or say in the body why {id} still applies"),
                ),
                None => (
                    format!("{id} has status `{}` ({})", adr.status.as_deref().unwrap_or("retired"), adr.path),
                    format!("find the decision that replaced {id} and cite that one"),
                ),
            };
            sink.emit(brief.path, Span::at(node.line(), node.col(), id.chars().count() as u32), id, message).help(help);
        }
    }
}
