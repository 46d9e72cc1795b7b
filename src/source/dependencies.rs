//! The base branch's side of what an evaluation depends on
//! (`gatehouse_core::depends`): each document read at the base branch's tip,
//! so the evaluation sees the ADRs, config and cited documents the pull
//! request will merge into (a brief citing an ADR that was superseded on
//! the base after the PR branched is checked against the superseded ADR),
//! and a digest of each for the dependency index. The documents are read
//! like any other (cached by commit and path, in the process and the
//! database), so the pull requests on one base commit read them once.

use sha2::{Digest, Sha256};

use super::contents::{self, ReadCache, Wanted};
use crate::config::CONFIG_PATH;
use crate::config::inherit::Parent;
use crate::depends::{Dependency, dependencies};
use crate::github::{ApiError, RepoClient};
use crate::model::{ChangeSet, FileContent};
use crate::plan::dependencies::AtBase;

/// Reads `changes`' dependencies at `base_sha`, lays those the change does
/// not touch over both sides of it, and returns each with its digest.
/// `base_is_tip`: the change's base side was read at `base_sha` (the PR
/// branched from the base's tip), so nothing needs reading.
pub(crate) async fn read(
    repo: &RepoClient,
    changes: &mut ChangeSet,
    base_sha: &str,
    base_is_tip: bool,
    limit: u64,
    cache: &ReadCache,
) -> Result<Vec<AtBase>, ApiError> {
    let found = dependencies(changes);
    let contents: Vec<Option<FileContent>> = if base_is_tip {
        let side = |d: &Dependency| if d.touched { &changes.base } else { &changes.head };
        found.iter().map(|d| side(d).get(&d.path).cloned()).collect()
    } else {
        let wanted: Vec<Wanted> =
            found.iter().map(|d| Wanted { commit: base_sha, path: &d.path, blob: None }).collect();
        contents::read(repo, &wanted, limit, cache).await?.into_iter().map(|b| b.map(|b| b.content)).collect()
    };
    let mut out = Vec::with_capacity(found.len());
    for (dependency, at_base) in found.into_iter().zip(contents) {
        if !dependency.touched && changes.head.get(&dependency.path) != at_base.as_ref() {
            match &at_base {
                Some(content) => {
                    changes.head.insert(dependency.path.clone(), content.clone());
                    changes.base.insert(dependency.path.clone(), content.clone());
                }
                None => {
                    changes.head.remove(&dependency.path);
                    changes.base.remove(&dependency.path);
                }
            }
        }
        out.push(AtBase { digest: at_base.as_ref().map(digest), dependency });
    }
    out.extend(extended(changes));
    Ok(out)
}

/// The configs the repository's config extends, as read, each under its
/// source's name (`acme/.github:gatehouse.yml`): a push to one of them
/// re-checks the pull requests that read it (`app::push`).
fn extended(changes: &ChangeSet) -> impl Iterator<Item = AtBase> + '_ {
    changes.inheritance.parents.iter().filter(|(source, _)| source.repo.is_some()).map(|(source, parent)| AtBase {
        dependency: Dependency {
            path: source.to_string(),
            why: format!("the config `{CONFIG_PATH}` extends"),
            touched: false,
        },
        digest: match parent {
            Parent::Text(text) => Some(digest(&FileContent::Text(text.as_str().into()))),
            Parent::Unreadable(_) | Parent::Absent(_) => None,
        },
    })
}

/// What identifies a document's content across commits.
pub(crate) fn digest(content: &FileContent) -> String {
    let mut hasher = Sha256::new();
    match content {
        FileContent::Text(text) => hasher.update(text.as_bytes()),
        other => hasher.update(format!("{other:?}").as_bytes()),
    }
    hex::encode(hasher.finalize())
}
