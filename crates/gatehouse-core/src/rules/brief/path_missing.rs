use super::BriefView;
use crate::model::{PathLookup, Sink};

declare_rule! {
    id: "brief/path-missing",
    view: BriefView,
    severity: Error,
    summary: "each path in the body exists in its repository, or is flagged `to-be-created:`",
    why: "ADR-099: \"every path named in the brief body exists in the named repo at the named commit, or \
is explicitly flagged as 'to-be-created' with the rationale\". SWARM-AQ's brief \"had invented a \
directory that doesn't exist\". An inline code span is a path when it has no spaces, is not a URL, an \
ADR id, `owner/repo#N` or a listed repo, has no pattern characters (`*`, `<…>`, `{…}`), and contains \
`/` or ends in a known file extension. `owner/repo:path` and `owner/repo@ref:path` name the repo and \
commit; an unqualified path must exist in at least one repo of `repos_touched`; a trailing `/` names \
a folder.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for path in view.paths.iter().filter(|p| p.flag.is_none() && p.missing()) {
        let brief = &view.briefs[path.brief];
        let Some(target) = path.path() else { continue };
        let places: Vec<String> = path
            .lookups
            .iter()
            .filter(|(_, l)| *l == PathLookup::Missing)
            .map(|(repo, _)| match &target.rev {
                Some(rev) => format!("{repo}@{rev}"),
                None => repo.clone(),
            })
            .collect();
        let what = if target.path.ends_with('/') { "folder" } else { "path" };
        sink.emit(brief.path, path.span, format!("path:{}", path.text), format!("{what} `{}` does not exist in {}", target.path, places.join(" or ")))
            .help("fix the path against the repository's source, or add `to-be-created: <why it will exist>` on the same line");
    }
}
