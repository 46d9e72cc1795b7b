use super::BriefView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/repo-duplicate",
    view: BriefView,
    severity: Warning,
    summary: "each repository is listed once in `repos_touched`",
    why: "ADR-099's review threshold counts the repositories a brief touches (\"touching more than one repo \
MUST go through brief-PR review\"). GitHub's repository names are case-insensitive, so `acme/factory` and \
`Acme/Factory` are one repository: gatehouse counts distinct repositories, and a repeated entry is \
reported so that the list says what it means.",
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
            .help("list each repository once");
        }
    }
}
