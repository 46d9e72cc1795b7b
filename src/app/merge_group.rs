//! Merge groups of GitHub's merge queue: the five check runs on the group's
//! head, evaluating the documents of the head against the group's base, so
//! what no single pull request shows (two queued PRs adding briefs with one
//! agent id) fails the group. A group's jobs are keyed by its head commit,
//! so they share one lock and coalesce like a PR's.

use anyhow::{Context, Result};

use super::worker::{Ctx, Progress, head_runs};
use crate::github::{HeadSha, RepoClient};
use crate::plan::CheckPlan;
use crate::plan::merge_group::{self, left_the_queue};
use crate::publish::checks;
use crate::source::merge_group::{self as group_source, COMPARE_FILES, Outcome};
use crate::store::{Job, MergeGroupRecord};

/// Evaluates the merge group whose head is `head`.
pub(super) async fn evaluate(
    ctx: &Ctx,
    job: &Job,
    repo: &RepoClient,
    head: &HeadSha,
    progress: &mut Progress,
) -> Result<()> {
    let head = head.0.clone();
    let group = ctx
        .store
        .merge_group(&job.repo, &head)
        .await?
        .with_context(|| format!("no merge group with head {head} was recorded"))?;
    // The queue's request and the check suite of the group's push are
    // answered once per group; a re-run (of one check or all) evaluates again.
    let shown = group_source::shown(repo, &head).await?;
    let mut runs = head_runs(repo, job, &head, shown, progress);
    if runs.evaluated_already() {
        tracing::info!(job = job.id, %head, "this merge group was evaluated already");
        return Ok(());
    }
    let too_many = format!(
        "This merge group changes {COMPARE_FILES} files or more; GitHub's compare lists at most {COMPARE_FILES}, \
         so gatehouse cannot see the whole change. Queue fewer pull requests together."
    );
    let decided = runs.while_slow(ctx.progress_after, repo, decide(ctx, repo, &group, &head, &too_many)).await?;
    let planned = match decided {
        Ok(planned) => planned,
        Err((reason, error)) => {
            runs.fail_closed(repo, &reason).await?;
            return error.map_or(Ok(()), Err);
        }
    };
    runs.publish_all(repo, &planned, None).await?;
    tracing::info!(job = job.id, %head, "merge group evaluated");
    Ok(())
}

/// The group's checks as planned, or why every check fails closed (and
/// the job's own error, when it has one).
type GroupDecision = std::result::Result<Vec<CheckPlan>, (String, Option<anyhow::Error>)>;

/// Reads the merge group and plans its checks.
async fn decide(
    ctx: &Ctx,
    repo: &RepoClient,
    group: &MergeGroupRecord,
    head: &str,
    too_many: &str,
) -> Result<GroupDecision> {
    let read = match group_source::read(repo, &group.base_sha, head, &group.head_ref, &ctx.reads).await? {
        Outcome::Read(read) => read,
        Outcome::TooManyFiles => return Ok(Err((too_many.to_string(), None))),
        Outcome::Unreadable(err) => {
            return Ok(Err((format!("Reading the merge group failed: {err}"), Some(err.into()))));
        }
    };
    let planned = tokio::task::spawn_blocking(move || merge_group::plan(&read)).await.context("the rules panicked")?;
    Ok(Ok(planned))
}

/// Ends the group's runs still in progress: nothing will finish them.
pub(super) async fn leave_queue(job: &Job, repo: &RepoClient, head: &HeadSha) -> Result<()> {
    let runs = group_source::our_runs(repo, &head.0).await?;
    let open: Vec<_> = runs.into_iter().filter(|r| r.status != "completed").collect();
    for run in &open {
        checks::complete_plain(repo, run.id, &left_the_queue(&run.name)).await?;
    }
    tracing::info!(job = job.id, %head, cancelled = open.len(), "merge group left the queue");
    Ok(())
}
