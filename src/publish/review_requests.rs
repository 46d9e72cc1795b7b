//! Asking for the reviews the gate needs: when the review gate applies and
//! has not passed, the core reviewers who could still approve and the
//! advisory reviewers who have not reviewed are requested
//! (`POST pulls/{n}/requested_reviewers`), once per head, never one who is
//! recused, reviewed already or is requested already. A login GitHub
//! refuses (422: not a collaborator, or the PR's author) is named in the
//! gate's summary; the head is not asked again either way. A draft asks
//! nobody (as GitHub leaves code owners unasked until a PR is ready for
//! review, "About code owners"): its `ready_for_review` evaluation asks. A
//! reviewer whose approval a push ended (it changed a document the approval
//! covered, or `review.approvals_end_on: any_push`) is asked again.

use reqwest::Method;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use crate::config::ReviewConfig;
use crate::gate::{Outcome, Review, reviewers_to_request, same_login};
use crate::github::{ApiError, Call, RepoClient};
use crate::store::{ReviewRequests, Store};

/// `GET pulls/{n}/requested_reviewers` (`pull-request-review-request`).
#[derive(Deserialize)]
struct Requested {
    users: Vec<User>,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

/// One pull request head, as the gate saw it.
pub(crate) struct GateState<'a> {
    pub number: u64,
    pub head: &'a str,
    pub policy: &'a ReviewConfig,
    pub outcome: &'a Outcome,
    pub reviews: &'a [Review],
    /// Ask nobody on this head: a draft, or a PR whose commit authors (the
    /// recused) could not all be read.
    pub hold: bool,
}

/// Requests the reviews the gate needs on this head unless that was done
/// for it; returns what to say in the gate's summary.
pub(crate) async fn ask(repo: &RepoClient, store: &Store, gate: &GateState<'_>) -> anyhow::Result<Option<String>> {
    if !gate.policy.request_reviewers || gate.outcome.passed || gate.hold {
        return Ok(None);
    }
    let repo_name = repo.repo.full();
    if let Some(made) = store.review_requests(&repo_name, gate.number, gate.head).await? {
        return Ok(note(&made));
    }
    let path = format!("/pulls/{}/requested_reviewers", gate.number);
    let requested: Requested = repo.get(&path).await?;
    let already: Vec<String> = requested.users.into_iter().map(|u| u.login).collect();
    let counting = still_reviewed(gate.reviews, &gate.outcome.stale);
    let wanted = reviewers_to_request(gate.outcome, &counting, &already);
    let mut made = ReviewRequests::default();
    if !wanted.is_empty() {
        match request(repo, &path, &wanted).await {
            Ok(()) => made.requested = wanted,
            // One refused login refuses the whole request: ask one by one to
            // learn which.
            Err(err) if refusal(&err) => {
                for login in wanted {
                    match request(repo, &path, std::slice::from_ref(&login)).await {
                        Ok(()) => made.requested.push(login),
                        Err(err) if refusal(&err) => made.refused.push(login),
                        Err(err) => return Err(err.into()),
                    }
                }
            }
            Err(err) => return Err(err.into()),
        }
    }
    store.record_review_requests(&repo_name, gate.number, gate.head, &made).await?;
    tracing::info!(pr = gate.number, requested = ?made.requested, refused = ?made.refused, "review requests");
    Ok(note(&made))
}

/// The reviews that still count as a reviewer having reviewed this head:
/// those of a reviewer whose approval a push ended (`stale`) are left out,
/// so the gate asks them again.
fn still_reviewed(reviews: &[Review], stale: &[String]) -> Vec<Review> {
    reviews.iter().filter(|r| !stale.iter().any(|s| same_login(s, &r.login))).cloned().collect()
}

/// GitHub will not request a review from this login (not transient).
fn refusal(err: &ApiError) -> bool {
    matches!(err, ApiError::Status { status: 422 | 403 | 404, .. })
}

async fn request(repo: &RepoClient, path: &str, logins: &[String]) -> Result<(), ApiError> {
    let body = json!({ "reviewers": logins });
    repo.send::<IgnoredAny>(Method::POST, path, &body, Call::Idempotent).await?;
    Ok(())
}

fn names(logins: &[String]) -> String {
    logins.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
}

/// The gate summary's paragraph on the requests made for this head.
pub(crate) fn note(made: &ReviewRequests) -> Option<String> {
    let mut out = Vec::new();
    if !made.requested.is_empty() {
        out.push(format!("gatehouse requested reviews from {} (the gate still needs them).", names(&made.requested)));
    }
    if !made.refused.is_empty() {
        out.push(format!(
            "GitHub refused to request a review from {}: reviews can only be requested from collaborators of the \
             repository, and not from the pull request's author. Add them as collaborators, or correct \
             `review.core.reviewers` / `review.advisory` in `.github/gatehouse.yml`.",
            names(&made.refused)
        ));
    }
    (!out.is_empty()).then(|| out.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::ReviewState;

    #[test]
    fn an_approval_a_push_ended_is_not_a_review_of_this_head() {
        let review = |login: &str, state, commit: &str| Review {
            login: login.into(),
            state,
            commit: Some(commit.into()),
            submitted_at: None,
        };
        let reviews = [
            review("gyrum-lin", ReviewState::Approved, "old"),
            review("gyrum-dana", ReviewState::Approved, "new"),
            review("gyrum-priya", ReviewState::Approved, "old"),
            review("gyrum-priya", ReviewState::Commented, "new"),
        ];
        // A push ended gyrum-lin's approval; gyrum-priya's still counts.
        let kept = still_reviewed(&reviews, &["Gyrum-Lin".to_string()]);
        let kept: Vec<&str> = kept.iter().map(|r| r.login.as_str()).collect();
        assert_eq!(kept, ["gyrum-dana", "gyrum-priya", "gyrum-priya"]);
    }

    #[test]
    fn the_note_names_who_was_asked_and_who_github_refused() {
        assert_eq!(note(&ReviewRequests::default()), None);
        let made = ReviewRequests { requested: vec!["gyrum-lin".into()], refused: vec!["gyrum-dana".into()] };
        let text = note(&made).unwrap();
        assert!(text.contains("requested reviews from `gyrum-lin`"), "{text}");
        assert!(text.contains("refused to request a review from `gyrum-dana`"), "{text}");
    }
}
