use super::BriefView;
use crate::model::{LOCAL_REPO, PathLookup, Sink};
use crate::suggest::{did_you_mean, nearest};

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
destination (`[runbook](runbooks/restore.md)`, `[r]: runbooks/restore.md`, without its `#fragment`) is one \
unless it is a URL: one relative to the brief (`./x.md`, `../x.md`) or rooted at its repository \
(`/docs/x.md`) is resolved as GitHub resolves it and must exist in the brief's own repository; the commands \
of a shell fence (```` ```bash ````, `~~~console`, …) are read as a code span's are; a word of prose is one when it has a folder and a known \
extension (`runbooks/restore.md`) or ends in `/`. Host paths in prose and commands (`/etc/hosts`) are not \
checked. `owner/repo:path` and `owner/repo@ref:path` name the repo and commit; an unqualified path must \
exist in at least one repo of `repos_touched`; a trailing `/` names a folder. A `to-be-created:` flag \
covers the path it follows on its line (else the first after it), one path each: a second path on that \
line is still checked. A hard-wrapped paragraph reads as one line (CommonMark: a soft line break is a \
space), so a flag that opens a wrapped line covers the last path of the line before, unless a sentence \
ends between them.",
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
                None if repo == LOCAL_REPO => "this repository".to_string(),
                None => repo.clone(),
            })
            .collect();
        let what = if target.path.ends_with('/') { "folder" } else { "path" };
        let trees = path.lookups.iter().filter(|(_, l)| *l == PathLookup::Missing);
        let trees = trees.filter_map(|(repo, _)| view.changes.repos.tree(repo, target.rev.as_deref()));
        let mut near: Vec<String> = trees.flat_map(|tree| nearest_paths(&target.path, tree.files())).collect();
        near.dedup();
        let fix = "add `to-be-created: <why it will exist>` on the same line";
        let help = match did_you_mean(&near.iter().map(String::as_str).collect::<Vec<_>>()) {
            Some(suggestion) => format!("{suggestion} Else {fix}"),
            None => format!("fix the path against the repository's source, or {fix}"),
        };
        sink.emit(
            brief.path,
            path.span,
            format!("path:{}", path.text),
            format!("{what} `{}` does not exist in {}", target.path, places.join(" or ")),
        )
        .help(help);
    }
}

/// The paths of `files` nearest a missing `path`, among the files and
/// folders beside where it would be and the files of the same name
/// elsewhere (a scan of the listing, done only for a missing path).
fn nearest_paths(path: &str, files: &[String]) -> Vec<String> {
    let folder = path.ends_with('/');
    let path = path.trim_end_matches('/');
    let (parent, name) = path.rsplit_once('/').map_or(("", path), |(p, n)| (p, n));
    let mut candidates: Vec<&str> = Vec::new();
    for file in files {
        // Folders are the ancestors of files; a candidate folder is one
        // whose parent is `path`'s parent, or whose parent's parent is.
        let mut dir = parent_of(file);
        while !dir.is_empty() && folder {
            if parent_of(dir) == parent_of(parent) || parent_of(dir) == parent {
                candidates.push(dir);
            }
            dir = parent_of(dir);
        }
        if !folder && (parent_of(file) == parent || file.rsplit('/').next() == Some(name)) {
            candidates.push(file);
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let slash = if folder { "/" } else { "" };
    nearest(path, candidates).into_iter().map(|p| format!("{p}{slash}")).collect()
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

#[cfg(test)]
mod tests {
    use super::nearest_paths;

    #[test]
    fn near_files_and_folders_are_suggested() {
        let files: Vec<String> =
            ["runbooks/restore.md", "scripts/backup.sh", "services/api/src/main.rs", "docs/restore.md"]
                .map(String::from)
                .to_vec();
        assert_eq!(nearest_paths("runbooks/restor.md", &files), ["runbooks/restore.md"]);
        assert_eq!(nearest_paths("scripts/bakup.sh", &files), ["scripts/backup.sh"]);
        assert_eq!(nearest_paths("services/api/scr/", &files), ["services/api/src/"]);
        assert!(nearest_paths("gyrum-pipelines/manifest/", &files).is_empty());
    }
}
