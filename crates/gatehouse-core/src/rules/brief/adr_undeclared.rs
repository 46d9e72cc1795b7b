use super::BriefView;
use crate::docs::adr::{mentions, parse_id};
use crate::docs::brief::Brief;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::{line_range, offset, whole_line};

declare_rule! {
    id: "brief/adr-undeclared",
    view: BriefView,
    severity: Warning,
    summary: "every ADR the body mentions is listed in `adrs_referenced`",
    why: "ADR-099's frontmatter is where \"Marcus knows where to look for the ADR list\". An ADR the body \
relies on but the frontmatter leaves out escapes the checks that cited ADRs get (exists, honoured, \
not superseded) and the architecture reviewer's eye.",
    fix: "adds the id to `adrs_referenced` (`ADR-` and three digits or more), offered only when the \
brief then passes the checks a cited ADR gets: it exists, is in force and the body honours it",
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
            .help(format!("add ADR-{:03} to `adrs_referenced`, or drop the mention", m.number))
            .fix(declare(brief, &format!("ADR-{:03}", m.number)));
        }
    }
}

/// Adds `id` to the brief's `adrs_referenced` list: before the `]` of a
/// `[…]` list, or as a `- ` line after the last item of a block list.
fn declare(brief: &Brief, id: &str) -> Option<Fix> {
    let list = brief.field("adrs_referenced")?;
    let items = list.as_seq()?;
    let text = brief.text;
    let message = format!("add {id} to `adrs_referenced`");
    let start = offset(text, list.line(), list.col())?;
    if text[start..].starts_with('[') {
        let line_end = line_range(text, list.line())?.end;
        let close = start + text[start..line_end].find(']')?;
        let separator = if items.is_empty() { "" } else { ", " };
        let at = text[..close].trim_end().len();
        return Some(Fix::replace(message, brief.path, at..at, format!("{separator}{id}")));
    }
    let last = items.iter().last()?;
    let item_line = line_range(text, last.line())?;
    let lead = &text[item_line.start..offset(text, last.line(), last.col())?];
    if lead.trim() != "-" || last.as_str().is_none() {
        return None;
    }
    let at = whole_line(text, last.line())?.end;
    let newline = if text[..at].ends_with('\n') { "" } else { "\n" };
    Some(Fix::replace(message, brief.path, at..at, format!("{newline}{lead}{id}\n")))
}
