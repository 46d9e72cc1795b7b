//! Reading a merge group of GitHub's merge queue: its change (the compare
//! of the group's base and head), the pull requests in it, and the review
//! gate's last verdict on each of their heads.
//!
//! The pull requests in a group are the open PRs whose head commit is among
//! the compare's commits (the queue's merge commits have each PR's head as
//! a parent), and the PR the group's `head_ref`
//! (`gh-readonly-queue/<base>/pr-<N>-<sha>`) names, which is the group's
//! last PR whatever the merge method. Two calls, however many PRs.

use tokio::sync::oneshot;

use super::contents::ReadCache;
use super::evaluation::{Checks, HeadSeen};
use super::pull_request::{self, PrFile, PullRequest, Read};
use crate::github::answers::{CheckRunList, Comparison, PullRequestSimple};
use crate::github::check_runs::{self, Shown};
use crate::github::{ApiError, HeadSha, RepoClient};
use crate::plan::REVIEW_CHECK;
use crate::plan::merge_group::{GroupRead, PullGate};

/// GitHub's compare lists at most this many changed files.
pub(crate) const COMPARE_FILES: usize = 300;

/// The commits and changed files between a group's base and head.
#[derive(Debug, Default)]
struct GroupChange {
    /// The compare's `merge_base_commit`.
    pub merge_base: String,
    pub commits: Vec<String>,
    pub files: Vec<PrFile>,
}

/// One of our check runs on a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OurRun {
    pub id: u64,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
}

/// What was read of a merge group, when its head was not answered before.
pub(crate) enum Change {
    Read(Box<GroupRead>),
    /// The group changes as many files as the compare lists, or more.
    TooManyFiles,
    /// GitHub refused to answer for the group's documents (not transient):
    /// its checks fail closed.
    Unreadable(ApiError),
}

/// What reading a merge group came to.
pub(crate) struct Reading {
    /// Our check runs on the group's head.
    pub shown: Shown,
    /// `None`: every check was answered on this head already.
    pub change: Option<Change>,
}

/// The merge group a job reads: from `base` to `head`, its queue branch
/// `head_ref`.
pub(crate) struct Group<'a> {
    pub base: &'a str,
    pub head: &'a str,
    pub head_ref: &'a str,
}

/// Reads our runs on the group's head (stopping there when `checks` were
/// answered on it before, else sending them on `seen`), then its change
/// and the review gate's last run on each of its pull requests.
pub(crate) async fn read(
    repo: &RepoClient,
    group: Group<'_>,
    checks: Checks<'_>,
    cache: &ReadCache,
    seen: oneshot::Sender<HeadSeen>,
) -> Result<Reading, ApiError> {
    let shown = check_runs::shown(repo, group.head).await?;
    if checks.all_answered(&shown) {
        return Ok(Reading { shown, change: None });
    }
    // The runner may have stopped listening (the read was quick).
    let _ = seen.send(HeadSeen { head: group.head.to_string(), shown: shown.clone(), required: None });
    let change = change(repo, group, cache).await?;
    Ok(Reading { shown, change: Some(change) })
}

async fn change(repo: &RepoClient, group: Group<'_>, cache: &ReadCache) -> Result<Change, ApiError> {
    let Group { base, head, head_ref } = group;
    let change = compare(repo, base, head).await?;
    if change.files.len() >= COMPARE_FILES {
        return Ok(Change::TooManyFiles);
    }
    let numbers = group_pulls(repo, &change.commits, head_ref).await?;
    let described = PullRequest {
        number: 0,
        base_sha: HeadSha(base.to_string()),
        base_branch: queue_base(head_ref).unwrap_or_default().to_string(),
        merge_base: Some(HeadSha(change.merge_base.clone())),
        head_sha: HeadSha(head.to_string()),
        body: None,
        changed_files: change.files.len() as u64,
        draft: false,
        author: String::new(),
        author_is_bot: false,
        assignees: Vec::new(),
    };
    let files = change.files;
    let changes = match pull_request::read_changes(repo, described, async { Ok(files) }, cache).await {
        Ok(Read::Snapshot(snapshot)) => snapshot.changes,
        Ok(Read::TooManyFiles { .. }) => return Ok(Change::TooManyFiles),
        Err(err) if err.is_transient() => return Err(err),
        Err(err) => return Ok(Change::Unreadable(err)),
    };
    let mut pulls = Vec::with_capacity(numbers.len());
    for (number, pr_head) in numbers {
        let runs = our_runs(repo, &pr_head).await?;
        let last = runs.into_iter().filter(|r| r.name == REVIEW_CHECK).max_by_key(|r| r.id);
        pulls.push(PullGate { number, head: pr_head, run: last.map(|r| (r.status, r.conclusion)) });
    }
    Ok(Change::Read(Box::new(GroupRead { changes, pulls })))
}

/// `GET /compare/{base}...{head}`, every page of commits (files come with
/// the first).
async fn compare(repo: &RepoClient, base: &str, head: &str) -> Result<GroupChange, ApiError> {
    let mut url = format!("/compare/{base}...{head}?per_page=100");
    let mut change = GroupChange::default();
    for _ in 0..30 {
        let (page, next) = repo.page::<Comparison>(&url).await?;
        change.merge_base = page.merge_base_commit.sha;
        change.commits.extend(page.commits.into_iter().map(|c| c.sha));
        change.files.extend(page.files.into_iter().flatten().map(PrFile::from));
        match next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(change)
}

/// The branch a merge queue branch merges into: `main` in
/// `refs/heads/gh-readonly-queue/main/pr-12-<sha>`.
fn queue_base(head_ref: &str) -> Option<&str> {
    let (_, rest) = head_ref.split_once("gh-readonly-queue/")?;
    Some(rest.rsplit_once("/pr-")?.0)
}

/// The PR number in a merge queue branch, `refs/heads/gh-readonly-queue/main/pr-12-<sha>`.
pub(crate) fn queue_pr(head_ref: &str) -> Option<u64> {
    let (_, rest) = head_ref.split_once("gh-readonly-queue/")?;
    let last = rest.rsplit('/').next()?;
    last.strip_prefix("pr-")?.split('-').next()?.parse().ok()
}

/// The group's pull requests (number, head commit), by number.
async fn group_pulls(repo: &RepoClient, commits: &[String], head_ref: &str) -> Result<Vec<(u64, String)>, ApiError> {
    let named = queue_pr(head_ref);
    let pulls: Vec<PullRequestSimple> = repo.pages("/pulls?state=open&per_page=100", 10).await?;
    let mut found: Vec<(u64, String)> = pulls
        .into_iter()
        .filter(|pull| named == Some(pull.number) || commits.contains(&pull.head.sha))
        .map(|pull| (pull.number, pull.head.sha))
        .collect();
    found.sort();
    found.dedup();
    Ok(found)
}

/// Our check runs on `sha` (an App lists only its own with `app_id`).
pub(crate) async fn our_runs(repo: &RepoClient, sha: &str) -> Result<Vec<OurRun>, ApiError> {
    // `filter=all`: the default lists only the latest run of each name.
    let mut url = format!("/commits/{sha}/check-runs?per_page=100&filter=all&app_id={}", repo.app_id());
    let mut out = Vec::new();
    for _ in 0..10 {
        let (page, next) = repo.page::<CheckRunList>(&url).await?;
        out.extend(
            page.check_runs
                .into_iter()
                .filter(|r| r.external_id.as_deref().is_some_and(|e| e.starts_with("gatehouse:")))
                .map(|r| OurRun { id: r.id, name: r.name, status: r.status, conclusion: r.conclusion }),
        );
        match next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_branch_names_its_last_pr() {
        assert_eq!(queue_pr("refs/heads/gh-readonly-queue/main/pr-12-0a1b2c3d"), Some(12));
        assert_eq!(queue_base("refs/heads/gh-readonly-queue/release/v2/pr-7-ffee"), Some("release/v2"));
        assert_eq!(queue_pr("gh-readonly-queue/release/v2/pr-7-ffee"), Some(7));
        assert_eq!(queue_pr("refs/heads/main"), None);
        assert_eq!(queue_pr("refs/heads/gh-readonly-queue/main/pr-x-1"), None);
    }
}
