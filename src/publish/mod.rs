//! Writing a plan where PR authors look, only where it differs from what
//! GitHub shows: one check run per family (and the review gate), the review
//! requests, and one review with inline comments per evaluated head.

pub(crate) mod checks;
pub(crate) mod review;
pub(crate) mod review_requests;
pub(crate) mod runs;

pub use crate::plan::{check_names, limits};

use anyhow::Result;

use crate::github::check_runs::Shown;
use crate::github::{RepoClient, Urgency};
use crate::plan::requests::{Made, Requests};
use crate::plan::{CheckPlan, Plan};
use runs::HeadRuns;

/// What applying a pull request's plan did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// The review requests made on this head (for the job runner to record).
    pub made: Option<Made>,
    pub review: Option<review::Published>,
}

/// What a job answers on a head.
pub(crate) enum Answer<P> {
    /// The checks (and for a pull request, its review and requests) as planned.
    Plan(P),
    /// Every check fails closed, saying why.
    FailClosed(String),
}

/// Shows the checks `names` of `job` in progress on `head`, where GitHub
/// shows `shown`: for an evaluation taking long enough for a person to see it.
pub(crate) async fn in_progress(
    repo: &RepoClient,
    head: &str,
    job: i64,
    names: &[String],
    shown: &Shown,
) -> Result<checks::CheckRuns> {
    Ok(checks::start(repo, head, job, names, shown).await?)
}

/// Cancels the runs jobs left in progress on heads the PR moved past:
/// `earlier` holds (job, head, what GitHub shows there).
pub(crate) async fn close_stale(repo: &RepoClient, earlier: &[(i64, String, Shown)]) -> Result<()> {
    for (job, sha, shown) in earlier {
        let closed = checks::close_stale(repo, shown, *job).await?;
        if closed > 0 {
            tracing::info!(of_job = job, %sha, closed, "closed check runs of a replaced head");
        }
    }
    Ok(())
}

/// Applies the answer on PR `number`: cancels what jobs left on the heads
/// it moved past (`earlier`), then, for a plan, asks the reviewers it names
/// (a request can wait for the checks a person waits for), writes its
/// checks with what came of asking in the review gate's summary and, when
/// `with_review`, its review.
pub(crate) async fn pull_request(
    repo: &RepoClient,
    runs: &HeadRuns,
    earlier: &[(i64, String, Shown)],
    number: u64,
    answer: Answer<Box<Plan>>,
    with_review: bool,
) -> Result<Applied> {
    close_stale(repo, earlier).await?;
    let mut plan = match answer {
        Answer::Plan(plan) => plan,
        Answer::FailClosed(reason) => {
            runs.fail_closed(repo, &reason).await?;
            return Ok(Applied::default());
        }
    };
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

/// Applies a merge group's answer: its checks.
pub(crate) async fn merge_group(repo: &RepoClient, runs: &HeadRuns, answer: Answer<Vec<CheckPlan>>) -> Result<()> {
    match answer {
        Answer::Plan(checks) => runs.publish_all(repo, &checks, None).await,
        Answer::FailClosed(reason) => runs.fail_closed(repo, &reason).await,
    }
}
