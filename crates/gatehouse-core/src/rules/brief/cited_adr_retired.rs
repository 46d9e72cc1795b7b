use std::collections::BTreeMap;

use super::BriefView;
use crate::config::PathFilter;
use crate::docs::adr::{Adr, index, parse_id};
use crate::docs::brief::Brief;
use crate::model::{Files, Sink, Span};

declare_rule! {
    id: "brief/cited-adr-retired",
    view: BriefView,
    severity: Notice,
    summary: "a change that supersedes, rejects or deprecates an ADR names the merged briefs that cite it",
    why: "ADR-099 makes the merged ADR a brief's upstream contract: a brief is verified \"against the merged \
ADR\", and once merged \"the brief in the repo is the contract; the sub-agent reads it from source, the same way \
it would read an ADR\". A change that retires an ADR (its status becomes superseded, rejected or deprecated, it \
names a successor, or an accepted ADR says it supersedes it) moves the contract under every merged brief that \
cites it in `adrs_referenced`. The notice sits on the line that retires the ADR and names those briefs, so \
their owners write a new brief on the successor (merged briefs are not edited) or confirm the work still \
holds. It never blocks: retiring an ADR is a decision the team may take.",
    bad: "docs/adr/ADR-095-backups.md",
    good: "docs/adr/ADR-095-backups.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    let changes = view.changes;
    let adrs = PathFilter::globs(&changes.config.adrs.paths);
    let touched: Vec<&str> = changes.changed_in(&adrs).map(|(p, _)| p).collect();
    if touched.is_empty() {
        return;
    }
    let read = |files: &Files| -> BTreeMap<u32, Adr> {
        index(adrs.select(files).filter_map(|(path, content)| content.text().and_then(|t| Adr::parse(path, t))))
    };
    let (base, head) = (read(&changes.base), read(&changes.head));
    let mut cited_by: Option<BTreeMap<u32, Vec<String>>> = None;
    for (number, adr) in &head {
        let was_in_force = base.get(number).is_some_and(|b| !b.is_retired());
        if !adr.is_retired() || !was_in_force {
            continue;
        }
        // The line that retires it: its own status line when the change edits
        // it, else the `Supersedes` of the ADR the change adds or edits.
        let Some((path, line)) = retired_where(adr, &head, &touched) else { continue };
        let cited_by = cited_by.get_or_insert_with(|| merged_citations(view));
        let Some(briefs) = cited_by.get(number).filter(|b| !b.is_empty()) else { continue };
        let how = match (adr.superseded_by, adr.status.as_deref()) {
            (Some(next), _) => format!("is superseded by ADR-{next:03}"),
            (None, Some(status)) => format!("becomes `{status}`"),
            (None, None) => "is retired".to_string(),
        };
        let whose = if briefs.len() == 1 { "merged brief cites it as its" } else { "merged briefs cite it as their" };
        let list = briefs.iter().map(|b| format!("`{b}`")).collect::<Vec<_>>().join(", ");
        sink.emit(
            path,
            Span::line(line),
            format!("ADR-{number:03}"),
            format!("ADR-{number:03} {how} in this change; {} {whose} contract: {list}", briefs.len()),
        )
        .help("write a new brief on the successor for each (merged briefs are not edited), or confirm with their agents that the work still holds");
    }
}

fn retired_where<'h>(adr: &'h Adr, head: &'h BTreeMap<u32, Adr>, touched: &[&str]) -> Option<(&'h str, u32)> {
    if touched.contains(&adr.path.as_str()) {
        return Some((&adr.path, adr.status_line));
    }
    head.values()
        .find(|other| other.supersedes.contains(&adr.number) && touched.contains(&other.path.as_str()))
        .map(|other| (other.path.as_str(), other.status_line))
}

/// The ADR numbers the merged briefs (on the base, and not changed here)
/// cite in `adrs_referenced`, each with those briefs' paths.
fn merged_citations(view: &BriefView) -> BTreeMap<u32, Vec<String>> {
    let changes = view.changes;
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (path, content) in view.filter.select(&changes.base) {
        if changes.head.get(path) != Some(content) {
            continue;
        }
        let Some(text) = content.text() else { continue };
        let brief = Brief::parse(path, text);
        for (id, _) in brief.strings("adrs_referenced") {
            if let Some(number) = parse_id(id) {
                let briefs = out.entry(number).or_default();
                if !briefs.contains(path) {
                    briefs.push(path.clone());
                }
            }
        }
    }
    out
}
