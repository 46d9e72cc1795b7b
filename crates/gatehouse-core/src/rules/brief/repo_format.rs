use super::BriefView;
use crate::docs::pathref::is_repo_name;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/repo-format",
    default_severity: Severity::Error,
    summary: "each `repos_touched` entry is `owner/name`",
    why: "ADR-099's failures were briefs that prescribed work in the wrong repository. `repos_touched` \
says where the agent may work and where body paths are looked up, so each entry must name a \
repository exactly: `owner/name`, as GitHub spells it.",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/repo-format/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/repo-format/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
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
