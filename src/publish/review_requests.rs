//! Asking for the reviews the plan names (`POST
//! pulls/{n}/requested_reviewers`): users as `reviewers`, a team the plan
//! writes `@org/slug` as `team_reviewers` by its slug. A login or team
//! GitHub refuses (422: not a collaborator, the PR's author, a team without
//! access) is kept apart, for the gate's summary.

use reqwest::Method;
use serde::de::IgnoredAny;
use serde_json::json;

use crate::github::{ApiError, Call, RepoClient};
use crate::plan::requests::Made;

/// Requests reviews of `wanted` on PR `number`; returns who was requested
/// and who GitHub refused.
pub(crate) async fn request(repo: &RepoClient, number: u64, wanted: &[String]) -> Result<Made, ApiError> {
    let path = format!("/pulls/{number}/requested_reviewers");
    let mut made = Made::default();
    if wanted.is_empty() {
        return Ok(made);
    }
    match post(repo, &path, wanted).await {
        Ok(()) => made.requested = wanted.to_vec(),
        // One refused login refuses the whole request: ask one by one to
        // learn which.
        Err(err) if refusal(&err) => {
            for login in wanted {
                match post(repo, &path, std::slice::from_ref(login)).await {
                    Ok(()) => made.requested.push(login.clone()),
                    Err(err) if refusal(&err) => made.refused.push(login.clone()),
                    Err(err) => return Err(err),
                }
            }
        }
        Err(err) => return Err(err),
    }
    tracing::info!(pr = number, requested = ?made.requested, refused = ?made.refused, "review requests");
    Ok(made)
}

/// GitHub will not request a review from this login (not transient).
fn refusal(err: &ApiError) -> bool {
    matches!(err, ApiError::Status { status: 422 | 403 | 404, .. })
}

async fn post(repo: &RepoClient, path: &str, wanted: &[String]) -> Result<(), ApiError> {
    let (reviewers, teams) = crate::gate::split_teams(wanted);
    let body = json!({ "reviewers": reviewers, "team_reviewers": teams });
    repo.send::<IgnoredAny>(Method::POST, path, &body, Call::Idempotent).await?;
    Ok(())
}
