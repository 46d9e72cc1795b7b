//! Writing a plan where PR authors look, only where it differs from what
//! GitHub shows: one check run per family (and the review gate), the review
//! requests, and one review with inline comments per evaluated head.

pub(crate) mod checks;
pub(crate) mod review;
pub(crate) mod review_requests;
pub(crate) mod runs;

pub use crate::plan::{check_names, limits};

use anyhow::Result;

use crate::github::{RepoClient, Urgency};
use crate::plan::Plan;
use crate::plan::requests::{Made, Requests};
use runs::HeadRuns;

/// What applying a pull request's plan did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// The review requests made on this head (for the job runner to record).
    pub made: Option<Made>,
    pub review: Option<review::Published>,
}

/// Applies `plan` to PR `number`: asks the reviewers it names (a request
/// can wait for the checks a person waits for), writes its checks with what
/// came of asking in the review gate's summary, then, when `with_review`,
/// its review.
pub(crate) async fn pull_request(
    repo: &RepoClient,
    runs: &HeadRuns,
    number: u64,
    mut plan: Plan,
    with_review: bool,
) -> Result<Applied> {
    let mut applied = Applied::default();
    if let Requests::Ask(wanted) = &plan.requests {
        let background = repo.with_urgency(Urgency::Background);
        let made = review_requests::request(&background, number, wanted).await?;
        plan.requests_made(&made);
        applied.made = Some(made);
    }
    runs.publish_all(repo, &plan.checks, plan.base_note.as_deref()).await?;
    if with_review {
        applied.review = Some(review::publish(repo, number, &runs.head, &plan.review).await?);
    }
    Ok(applied)
}
