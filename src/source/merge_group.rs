//! Reading a merge group of GitHub's merge queue: its change (the compare
//! of the group's base and head), the pull requests in it, and the review
//! gate's last verdict on each of their heads.
//!
//! The pull requests in a group are the open PRs whose head commit is among
//! the compare's commits (the queue's merge commits have each PR's head as
//! a parent), and the PR the group's `head_ref`
//! (`gh-readonly-queue/<base>/pr-<N>-<sha>`) names, which is the group's
//! last PR whatever the merge method. Two calls, however many PRs.

use reqwest::Method;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::github::PrFile;
use crate::github::{ApiError, Call, GitHub, RepoName};

/// GitHub's compare lists at most this many changed files.
pub const COMPARE_FILES: usize = 300;

#[derive(Deserialize)]
struct Comparison {
    #[serde(default)]
    commits: Vec<CommitRef>,
    /// Only on the first page.
    files: Option<Vec<DiffEntry>>,
}

#[derive(Deserialize)]
struct CommitRef {
    sha: String,
}

#[derive(Deserialize)]
struct DiffEntry {
    filename: String,
    status: String,
    previous_filename: Option<String>,
    patch: Option<String>,
    additions: u64,
    deletions: u64,
}

#[derive(Deserialize)]
struct PullSummary {
    number: u64,
    head: PullHead,
}

#[derive(Deserialize)]
struct PullHead {
    sha: String,
}

#[derive(Deserialize)]
struct CheckRunList {
    check_runs: Vec<CheckRunSummary>,
}

#[derive(Deserialize)]
struct CheckRunSummary {
    id: u64,
    name: String,
    status: String,
    conclusion: Option<String>,
    external_id: Option<String>,
}

/// The commits and changed files between a group's base and head.
#[derive(Debug, Default)]
pub struct GroupChange {
    pub commits: Vec<String>,
    pub files: Vec<PrFile>,
}

/// One of our check runs on a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OurRun {
    pub id: u64,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
}

fn typed<T: DeserializeOwned>(body: serde_json::Value, what: &str) -> Result<T, ApiError> {
    serde_json::from_value(body).map_err(|e| ApiError::Status {
        status: 200,
        what: what.to_string(),
        message: format!("an answer not shaped as GitHub documents it: {e}"),
    })
}

/// `GET /compare/{base}...{head}`, every page of commits (files come with
/// the first).
pub async fn compare(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    base: &str,
    head: &str,
) -> Result<GroupChange, ApiError> {
    let mut url = format!("/repos/{}/{}/compare/{base}...{head}?per_page=100", repo.owner, repo.name);
    let mut change = GroupChange::default();
    for _ in 0..30 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        let page: Comparison = typed(response.body, "GET compare")?;
        change.commits.extend(page.commits.into_iter().map(|c| c.sha));
        for f in page.files.into_iter().flatten() {
            change.files.push(PrFile {
                path: f.filename,
                status: f.status,
                previous: f.previous_filename,
                patch: f.patch,
                additions: f.additions,
                deletions: f.deletions,
            });
        }
        match response.next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(change)
}

/// The PR number in a merge queue branch, `refs/heads/gh-readonly-queue/main/pr-12-<sha>`.
pub fn queue_pr(head_ref: &str) -> Option<u64> {
    let (_, rest) = head_ref.split_once("gh-readonly-queue/")?;
    let last = rest.rsplit('/').next()?;
    last.strip_prefix("pr-")?.split('-').next()?.parse().ok()
}

/// The group's pull requests (number, head commit), by number.
pub async fn group_pulls(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    commits: &[String],
    head_ref: &str,
) -> Result<Vec<(u64, String)>, ApiError> {
    let named = queue_pr(head_ref);
    let mut url = format!("/repos/{}/{}/pulls?state=open&per_page=100", repo.owner, repo.name);
    let mut found = Vec::new();
    for _ in 0..10 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        let pulls: Vec<PullSummary> = typed(response.body, "GET pulls")?;
        for pull in pulls {
            if named == Some(pull.number) || commits.contains(&pull.head.sha) {
                found.push((pull.number, pull.head.sha));
            }
        }
        match response.next {
            Some(next) => url = next,
            None => break,
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// Our check runs on `sha` (an App lists only its own with `app_id`).
pub async fn our_runs(gh: &GitHub, installation: u64, repo: &RepoName, sha: &str) -> Result<Vec<OurRun>, ApiError> {
    let mut url =
        format!("/repos/{}/{}/commits/{sha}/check-runs?per_page=100&app_id={}", repo.owner, repo.name, gh.app_id());
    let mut out = Vec::new();
    for _ in 0..10 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        let page: CheckRunList = typed(response.body, "GET check-runs")?;
        out.extend(
            page.check_runs
                .into_iter()
                .filter(|r| r.external_id.as_deref().is_some_and(|e| e.starts_with("gatehouse:")))
                .map(|r| OurRun { id: r.id, name: r.name, status: r.status, conclusion: r.conclusion }),
        );
        match response.next {
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
        assert_eq!(queue_pr("gh-readonly-queue/release/v2/pr-7-ffee"), Some(7));
        assert_eq!(queue_pr("refs/heads/main"), None);
        assert_eq!(queue_pr("refs/heads/gh-readonly-queue/main/pr-x-1"), None);
    }
}
