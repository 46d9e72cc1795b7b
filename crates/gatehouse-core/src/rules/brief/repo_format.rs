use super::BriefView;
use crate::docs::pathref::is_repo_name;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::{in_flow, scalar_range};

declare_rule! {
    id: "brief/repo-format",
    view: BriefView,
    severity: Error,
    summary: "each `repos_touched` entry is `owner/name`",
    why: "ADR-099's failures were briefs that prescribed work in the wrong repository. `repos_touched` \
says where the agent may work and where body paths are looked up, so each entry must name a \
repository exactly: `owner/name`, as GitHub spells it.",
    fix: "rewrites a GitHub address of a repository as its `owner/name` \
(`https://github.com/gyrum-labs/infra.git` becomes `gyrum-labs/infra`); a bare name needs its owner, which \
only the author knows",
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
                .help("write the repository as `owner/name`, e.g. `gyrum-labs/infra`")
                .fix(owner_name(repo).and_then(|name| {
                    let range = scalar_range(
                        brief.text,
                        node.line(),
                        node.col(),
                        in_flow(brief.text, node.line(), node.col()),
                    )?;
                    Some(Fix::replace(format!("write `{name}`"), brief.path, range, name))
                }));
            }
        }
    }
}

/// The `owner/name` a GitHub address of a repository names:
/// `https://github.com/o/n`, `github.com/o/n.git`, `git@github.com:o/n`.
fn owner_name(entry: &str) -> Option<String> {
    let rest =
        ["https://github.com/", "http://github.com/", "https://www.github.com/", "github.com/", "git@github.com:"]
            .iter()
            .find_map(|prefix| entry.trim().strip_prefix(prefix))?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    is_repo_name(rest).then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn github_addresses_name_their_repository() {
        for entry in [
            "https://github.com/gyrum-labs/infra",
            "github.com/gyrum-labs/infra.git",
            "git@github.com:gyrum-labs/infra.git",
            "https://github.com/gyrum-labs/infra/",
        ] {
            assert_eq!(super::owner_name(entry).as_deref(), Some("gyrum-labs/infra"), "{entry}");
        }
        for entry in [
            "infra",
            "https://github.com/gyrum-labs",
            "https://gitlab.com/gyrum-labs/infra",
            "https://github.com/a/b/tree/main",
        ] {
            assert_eq!(super::owner_name(entry), None, "{entry}");
        }
    }
}
