//! The configs a repository's config extends, read by the App: each named
//! file at the tip of its repository's default branch (a pull request in
//! that repository cannot change what inheriting repositories are gated
//! by until it is merged), through the installation's token. A file that
//! cannot be read (no such repository, one the installation cannot see, no
//! such file, not text) is recorded with the reason, and the config's check
//! reports it on the inheriting repository. Every chain ends at the
//! organisation's policy (`policy`).

use super::contents::{self, ReadCache, Wanted};
use super::default_branch;
use crate::config::inherit::{Inheritance, Parent, Source};
use crate::github::{ApiError, RepoClient, RepoName};
use crate::model::FileContent;
use crate::reads;

/// The inheritance of a repository whose config is `text`, every file of
/// its chain read, ending at its organisation's policy.
pub(crate) async fn read(repo: &RepoClient, text: Option<&str>, cache: &ReadCache) -> Result<Inheritance, ApiError> {
    let mut inheritance =
        Inheritance { default_parent: cache.policy.policy.source(&repo.repo.owner), ..Inheritance::default() };
    complete(repo, &mut inheritance, text, cache).await?;
    Ok(inheritance)
}

/// Reads every file the chain of `text` needs that `inheritance` lacks.
/// The organisation's policy read by default (no file names it, and the App
/// was not told it) and not found is absent, not unreadable: an
/// organisation need not keep one.
pub(crate) async fn complete(
    repo: &RepoClient,
    inheritance: &mut Inheritance,
    text: Option<&str>,
    cache: &ReadCache,
) -> Result<(), ApiError> {
    while let Some(source) = reads::wanted(text, inheritance) {
        let by_default = inheritance.default_parent.as_ref() == Some(&source)
            && !cache.policy.policy.must_exist()
            && reads::policy_by_default(text, inheritance);
        let parent = match cache.policy.absent(repo.installation, &source).filter(|_| by_default) {
            Some(why) => Parent::Absent(why),
            None => match parent(repo, &source, cache).await? {
                Parent::Unreadable(why) if by_default => {
                    cache.policy.found_absent(repo.installation, &source, &why);
                    Parent::Absent(why)
                }
                parent => parent,
            },
        };
        inheritance.parents.insert(source, parent);
    }
    Ok(())
}

/// One extended file; a transient failure is an error (the job is tried
/// again), any other answer a reason the file cannot be read.
async fn parent(repo: &RepoClient, source: &Source, cache: &ReadCache) -> Result<Parent, ApiError> {
    let Some(name) = source.repo.as_deref().and_then(RepoName::parse) else {
        return Ok(Parent::Unreadable("the App reads extended configs from repositories only".into()));
    };
    let full = name.full();
    let other = RepoClient { repo: name, ..repo.clone() };
    let unseen = || {
        Parent::Unreadable(format!(
            "the repository `{full}` does not exist, or the App's installation cannot see it: install the App on \
             `{full}` (read access to its contents is enough)"
        ))
    };
    let sha = match default_branch::tip_sha(&other).await {
        Ok(Some(sha)) => sha,
        Ok(None) => {
            return Ok(Parent::Unreadable(format!("the repository `{full}` is empty: it has no default branch")));
        }
        Err(e) if e.is_transient() => return Err(e),
        Err(_) => return Ok(unseen()),
    };
    let wanted = [Wanted { commit: &sha, path: &source.path, blob: None }];
    let blob = match contents::read(&other, &wanted, u64::MAX, cache).await {
        Ok(mut blobs) => blobs.pop().flatten(),
        Err(e) if e.is_transient() => return Err(e),
        Err(_) => return Ok(unseen()),
    };
    Ok(match blob.map(|blob| blob.content) {
        Some(FileContent::Text(text)) => Parent::Text(text.to_string()),
        Some(_) => {
            Parent::Unreadable(format!("`{}` on the default branch of `{full}` is not a text file", source.path))
        }
        None => Parent::Unreadable(format!("there is no `{}` on the default branch of `{full}`", source.path)),
    })
}
