//! Resolving paths named in documents against the repositories the change
//! can see. Shared by every family that checks paths (briefs' body paths,
//! voting docs' example artefacts).

use crate::docs::pathref::PathRef;
use crate::model::{LOCAL_REPO, PathLookup, RepoIndex};

/// Where a path is looked up: its own repo when qualified, else each of
/// `repos` (a brief's `repos_touched`, a voting doc's own repository). A
/// checkout whose `owner/name` is unknown stands in for the one repo of the
/// document that cannot otherwise be read; when several cannot,
/// it is one more place to look, and a path found nowhere stays unverifiable.
pub(super) fn lookups(
    index: &RepoIndex,
    own: Option<&str>,
    repos: &[&str],
    path: &PathRef,
) -> Vec<(String, PathLookup)> {
    let unreadable: Vec<&str> = repos.iter().copied().filter(|r| index.tree(r, None).is_none()).collect();
    let stand_in = (own.is_none() && unreadable.len() == 1).then(|| unreadable[0]);
    let look = |repo: &str, rev: Option<&str>| {
        if rev.is_none() && stand_in.is_some_and(|s| s.eq_ignore_ascii_case(repo)) {
            index.lookup(LOCAL_REPO, None, &path.path)
        } else {
            index.lookup(repo, rev, &path.path)
        }
    };
    if let Some(repo) = &path.repo {
        return vec![(repo.clone(), look(repo, path.rev.as_deref()))];
    }
    let mut out: Vec<(String, PathLookup)> = repos.iter().map(|repo| (repo.to_string(), look(repo, None))).collect();
    if own.is_none() && stand_in.is_none() && !unreadable.is_empty() && index.tree(LOCAL_REPO, None).is_some() {
        out.push(("this checkout".to_string(), index.lookup(LOCAL_REPO, None, &path.path)));
    }
    out
}
