//! The dashboard's calls: the open pull requests with what the dashboard
//! shows of them, and the issue it keeps (read, found, opened, edited).

use reqwest::Method;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use super::answers::{CheckRun, CheckRunList};
use super::{ApiError, Call, RepoClient};

/// At most this many open pull requests are listed (one page).
pub(crate) const MAX_LISTED: usize = 100;

/// An open pull request as "List pull requests" gives it (the fields read).
#[derive(Debug, Deserialize)]
pub(crate) struct OpenPull {
    pub number: u64,
    pub title: String,
    #[serde(default)]
    pub draft: bool,
    pub head: PullHead,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PullHead {
    pub sha: String,
}

/// `issue` (the fields read).
#[derive(Debug, Deserialize)]
pub(crate) struct Issue {
    pub number: u64,
    /// `open` or `closed`.
    pub state: String,
    #[serde(default)]
    pub body: Option<String>,
    /// Set when the issue is a pull request ("List repository issues" lists both).
    pub pull_request: Option<IgnoredAny>,
}

/// The open pull requests, oldest first, at most [`MAX_LISTED`].
pub(crate) async fn open_pulls(repo: &RepoClient) -> Result<Vec<OpenPull>, ApiError> {
    let mut pulls: Vec<OpenPull> = repo.get("/pulls?state=open&per_page=100&sort=created&direction=asc").await?;
    pulls.truncate(MAX_LISTED);
    Ok(pulls)
}

/// Every run this App made on `sha` ("List check runs for a Git
/// reference", `filter=all`: the earlier runs say since when a check waits).
pub(crate) async fn runs(repo: &RepoClient, sha: &str) -> Result<Vec<CheckRun>, ApiError> {
    let url = format!("/commits/{sha}/check-runs?per_page=100&filter=all&app_id={}", repo.app_id());
    let list: CheckRunList = repo.get(&url).await?;
    Ok(list
        .check_runs
        .into_iter()
        .filter(|r| r.external_id.as_deref().is_some_and(|e| e.starts_with("gatehouse:")))
        .collect())
}

/// Issue `number` ("Get an issue"); `None` when GitHub has none (deleted,
/// transferred).
pub(crate) async fn issue(repo: &RepoClient, number: u64) -> Result<Option<Issue>, ApiError> {
    match repo.get(&format!("/issues/{number}")).await {
        Ok(issue) => Ok(Some(issue)),
        Err(ApiError::Status { status: 404 | 410, .. }) => Ok(None),
        Err(err) => Err(err),
    }
}

/// The open issue whose body starts with `mark` ("List repository issues").
pub(crate) async fn find_open(repo: &RepoClient, mark: &str) -> Result<Option<u64>, ApiError> {
    let issues: Vec<Issue> = repo.pages("/issues?state=open&per_page=100", 10).await?;
    Ok(issues
        .into_iter()
        .find(|i| i.pull_request.is_none() && i.body.as_deref().is_some_and(|b| b.starts_with(mark)))
        .map(|i| i.number))
}

/// Opens an issue ("Create an issue"); its number. A create: an
/// unconfirmed one is looked up ([`find_open`]), not repeated.
pub(crate) async fn create(repo: &RepoClient, title: &str, body: &str) -> Result<u64, ApiError> {
    let issue: Issue =
        repo.send(Method::POST, "/issues", &json!({ "title": title, "body": body }), Call::Create).await?;
    Ok(issue.number)
}

/// Replaces issue `number`'s body ("Update an issue").
pub(crate) async fn edit_body(repo: &RepoClient, number: u64, body: &str) -> Result<(), ApiError> {
    let _: IgnoredAny =
        repo.send(Method::PATCH, &format!("/issues/{number}"), &json!({ "body": body }), Call::Idempotent).await?;
    Ok(())
}
