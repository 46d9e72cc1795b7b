use super::BriefView;
use crate::docs::adr::parse_id;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::{in_flow, scalar_range};

declare_rule! {
    id: "brief/adr-format",
    view: BriefView,
    severity: Error,
    summary: "each `adrs_referenced` entry is `ADR-<digits>`",
    why: "ADR-099: \"every ADR cited in adrs_referenced is actually quoted or honoured\". To check that, \
each entry must name an ADR unambiguously: `ADR-` and its number (`ADR-095`).",
    fix: "rewrites an id whose number is plain (`adr95`, `ADR 95`, `ADR_095`, `adr-0095`) as `ADR-` and \
the number in three digits or more (`ADR-095`), unless the list names that ADR already",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let entries = brief.strings("adrs_referenced");
        let declared: Vec<&str> = entries.iter().map(|(id, _)| *id).collect();
        for &(id, node) in &entries {
            if parse_id(id).is_none() {
                sink.emit(
                    brief.path,
                    Span::at(node.line(), node.col(), id.chars().count() as u32),
                    id,
                    format!("`{id}` is not an ADR id of the form `ADR-<digits>`"),
                )
                .help("write the id as `ADR-` and its number, e.g. `ADR-095`")
                .fix(canonical(id).filter(|c| !declared.contains(&c.as_str())).and_then(|canonical| {
                    let range = scalar_range(
                        brief.text,
                        node.line(),
                        node.col(),
                        in_flow(brief.text, node.line(), node.col()),
                    )?;
                    Some(Fix::replace(format!("write `{canonical}`"), brief.path, range, canonical))
                }));
            }
        }
    }
}

/// `ADR-<number>` for an id written with another case or separator.
fn canonical(id: &str) -> Option<String> {
    let rest = id.trim();
    let rest = rest.get(..3).filter(|p| p.eq_ignore_ascii_case("adr")).map(|_| &rest[3..])?;
    let digits = rest.trim_start_matches(['-', '_', ' ', '#']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 6 {
        return None;
    }
    let number: u32 = digits.parse().ok()?;
    Some(format!("ADR-{number:03}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_numbers_become_adr_ids() {
        for (id, canonical) in
            [("adr95", "ADR-095"), ("ADR 95", "ADR-095"), ("ADR_0095", "ADR-095"), ("adr-1234", "ADR-1234")]
        {
            assert_eq!(super::canonical(id).as_deref(), Some(canonical), "{id}");
        }
        for id in ["ADR-95a", "RFC-95", "ADR", "ADR-"] {
            assert_eq!(super::canonical(id), None, "{id}");
        }
    }
}
