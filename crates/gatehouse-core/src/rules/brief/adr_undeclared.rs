use super::BriefView;
use crate::docs::adr::{mentions, parse_id};
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-undeclared",
    view: BriefView,
    severity: Warning,
    summary: "every ADR the body mentions is listed in `adrs_referenced`",
    why: "ADR-099's frontmatter is where \"Marcus knows where to look for the ADR list\". An ADR the body \
relies on but the frontmatter leaves out escapes the checks that cited ADRs get (exists, honoured, \
not superseded) and the architecture reviewer's eye.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        if brief.field("adrs_referenced").and_then(|f| f.as_seq()).is_none() {
            continue;
        }
        let declared: Vec<u32> = brief.strings("adrs_referenced").iter().filter_map(|(id, _)| parse_id(id)).collect();
        let mut reported = Vec::new();
        for m in mentions(brief.body) {
            if declared.contains(&m.number) || reported.contains(&m.number) {
                continue;
            }
            reported.push(m.number);
            let before = &brief.body[..m.offset];
            let line = brief.body_line + before.matches('\n').count() as u32;
            let col = before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
            let id = &brief.body[m.offset..m.offset + m.len];
            sink.emit(
                brief.path,
                Span::at(line, col, m.len as u32),
                format!("ADR-{}", m.number),
                format!("the body mentions {id}, which `adrs_referenced` does not list"),
            )
            .help(format!("add ADR-{:03} to `adrs_referenced`, or drop the mention", m.number));
        }
    }
}
