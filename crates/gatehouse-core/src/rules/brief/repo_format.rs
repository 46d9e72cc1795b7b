use super::BriefView;
use crate::docs::pathref::is_repo_name;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/repo-format",
    view: BriefView,
    severity: Error,
    summary: "each `repos_touched` entry is `owner/name`",
    why: "ADR-099's failures were briefs that prescribed work in the wrong repository. `repos_touched` \
says where the agent may work and where body paths are looked up, so each entry must name a \
repository exactly: `owner/name`, as GitHub spells it.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (repo, node) in brief.strings("repos_touched") {
            if !is_repo_name(repo) {
                sink.emit(
                    brief.path,
                    Span::at(node.line(), node.col(), repo.chars().count() as u32),
                    repo,
                    format!("`{repo}` is not a repository name of the form `owner/name`"),
                )
                .help("write the repository as `owner/name`, e.g. `gyrum-labs/infra`");
            }
        }
    }
}
