use super::BriefView;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::{in_flow, line_range, offset, scalar_range, whole_line};

declare_rule! {
    id: "brief/repo-duplicate",
    view: BriefView,
    severity: Warning,
    summary: "each repository is listed once in `repos_touched`",
    why: "ADR-099's review threshold counts the repositories a brief touches (\"touching more than one repo \
MUST go through brief-PR review\"). GitHub's repository names are case-insensitive, so `acme/factory` and \
`Acme/Factory` are one repository: gatehouse counts distinct repositories, and a repeated entry is \
reported so that the list says what it means.",
    fix: "removes the repeated entry (its `- ` line, or its `, entry` in a `[…]` list)",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let entries = brief.strings("repos_touched");
        for (i, (repo, node)) in entries.iter().enumerate() {
            let Some((first, _)) = entries[..i].iter().find(|(r, _)| r.eq_ignore_ascii_case(repo)) else { continue };
            let same = if first == repo { String::new() } else { format!(" (`{first}`: names are case-insensitive)") };
            sink.emit(
                brief.path,
                Span::at(node.line(), node.col(), repo.chars().count() as u32),
                format!("repo:{}", repo.to_ascii_lowercase()),
                format!("`{repo}` is already listed in `repos_touched`{same}; it counts once"),
            )
            .help("list each repository once")
            .fix(
                removal(brief.text, node.line(), node.col())
                    .map(|range| Fix::replace(format!("remove the repeated `{repo}`"), brief.path, range, "")),
            );
        }
    }
}

/// The bytes that remove the list entry at `line`, `col`: its `- ` line in a
/// block list, or the `, entry` before it in a flow list.
fn removal(text: &str, line: u32, col: u32) -> Option<std::ops::Range<usize>> {
    let start = offset(text, line, col)?;
    let line_start = line_range(text, line)?.start;
    if in_flow(text, line, col) {
        let scalar = scalar_range(text, line, col, true)?;
        let comma = line_start + text[line_start..start].rfind(',')?;
        return Some(comma..scalar.end);
    }
    let lead = &text[line_start..start];
    let scalar = scalar_range(text, line, col, false)?;
    let rest = &text[scalar.end..line_range(text, line)?.end];
    (lead.trim() == "-" && rest.trim().is_empty()).then(|| whole_line(text, line)).flatten()
}
