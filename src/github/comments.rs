//! A pull request's conversation as commands use it: reacting to a comment,
//! reading who may ask for what, listing and posting comments.

use reqwest::Method;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use super::{ApiError, Call, RepoClient};

/// `issue-comment` (the fields read).
#[derive(Debug, Deserialize)]
pub(crate) struct IssueComment {
    #[serde(default)]
    pub body: Option<String>,
}

/// The answer of "Get repository permissions for a user"
/// (`repository-collaborator-permission`): `permission` is the legacy
/// level (`admin`, `write`, `read`, `none`: triage reads as `read`,
/// maintain as `write`), `role_name` the role itself.
#[derive(Debug, Deserialize)]
struct CollaboratorPermission {
    permission: String,
    #[serde(default)]
    role_name: Option<String>,
}

/// Reacts to comment `id` with `content` (`eyes`, `+1`...) ("Create
/// reaction for an issue comment": GitHub answers 200 with the reaction
/// that exists already, so a repeat adds nothing).
pub(crate) async fn react(repo: &RepoClient, id: u64, content: &str) -> Result<(), ApiError> {
    let path = format!("/issues/comments/{id}/reactions");
    let _: IgnoredAny = repo.send(Method::POST, &path, &json!({ "content": content }), Call::Idempotent).await?;
    Ok(())
}

/// Whether `login` holds at least the triage role on the repository ("Get
/// repository permissions for a user"); a login GitHub does not know as a
/// collaborator (404) holds none.
pub(crate) async fn may_triage(repo: &RepoClient, login: &str) -> Result<bool, ApiError> {
    let answer: CollaboratorPermission = match repo.get(&format!("/collaborators/{login}/permission")).await {
        Ok(answer) => answer,
        Err(ApiError::Status { status: 404, .. }) => return Ok(false),
        Err(err) => return Err(err),
    };
    let role = answer.role_name.as_deref().unwrap_or("");
    Ok(matches!(answer.permission.as_str(), "admin" | "write") || matches!(role, "triage" | "maintain"))
}

/// The bodies of the pull request's conversation comments, oldest first
/// ("List issue comments"), at most 10 pages of 100.
pub(crate) async fn bodies(repo: &RepoClient, number: u64) -> Result<Vec<String>, ApiError> {
    let comments: Vec<IssueComment> = repo.pages(&format!("/issues/{number}/comments?per_page=100"), 10).await?;
    Ok(comments.into_iter().filter_map(|c| c.body).collect())
}

/// Posts `body` on the pull request's conversation ("Create an issue
/// comment"). A create: an unconfirmed post is looked up, not repeated.
pub(crate) async fn post(repo: &RepoClient, number: u64, body: &str) -> Result<(), ApiError> {
    let path = format!("/issues/{number}/comments");
    let _: IgnoredAny = repo.send(Method::POST, &path, &json!({ "body": body }), Call::Create).await?;
    Ok(())
}
