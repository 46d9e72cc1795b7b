use super::BriefView;
use crate::model::{PathLookup, Sink};

declare_rule! {
    id: "brief/path-missing",
    view: BriefView,
    severity: Error,
    summary: "each path in the body exists in its repository, or is flagged `to-be-created:`",
    why: "ADR-099: \"every path named in the brief body exists in the named repo at the named commit, or \
is explicitly flagged as 'to-be-created' with the rationale\". SWARM-AQ's brief \"had invented a \
directory that doesn't exist\". Paths are read where a renderer shows them: an inline code span is a \
path when it has no spaces, is not a URL, an ADR id, `owner/repo#N` or a listed repo, has no pattern \
characters (`*`, `<…>`, `{…}`) or placeholder words (`NNNN-title.md`, `YYYY-MM-DD`), and contains `/` or \
ends in a known file extension; in a span with spaces (a command: `scripts/restore.sh --latest`) each \
argument that names a file by its extension, ends in `/` or starts with `./` is one; a link's or image's \
destination (`[runbook](runbooks/restore.md)`, without its `#fragment`) is one unless it is a URL or \
relative to the brief's own folder (`../x.md`); a word of prose is one when it has a folder and a known \
extension (`runbooks/restore.md`) or ends in `/`. Host paths in prose and commands (`/etc/hosts`) are not \
checked. `owner/repo:path` and `owner/repo@ref:path` name the repo and commit; an unqualified path must \
exist in at least one repo of `repos_touched`; a trailing `/` names a folder. A `to-be-created:` flag \
covers the path it follows on its line (else the first after it), one path each: a second path on that \
line is still checked.",
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
