//! Merge groups of GitHub's merge queue: the five check runs on the group's
//! head, evaluating the documents of the head against the group's base, so
//! what no single pull request shows (two queued PRs adding briefs with one
//! agent id) fails the group. A group's jobs are keyed by its head commit,
//! so they share one lock and coalesce like a PR's.

use anyhow::{Context, Result};
use tokio::sync::oneshot;

use super::progress::{Progress, read_in_view};
use super::worker::{Ctx, check_names, writer};
use crate::github::{HeadSha, RepoClient};
use crate::plan::merge_group::{self, left_the_queue};
use crate::publish::runs::HeadRuns;
use crate::publish::{self, Answer, checks};
use crate::source::evaluation::Checks;
use crate::source::merge_group::{self as group_source, COMPARE_FILES, Change, Group};
use crate::store::Job;

/// Evaluates the merge group whose head is `head`: read, plan, publish.
pub(super) async fn evaluate(
    ctx: &Ctx,
    job: &Job,
    repo: &RepoClient,
    head: &HeadSha,
    progress: &mut Progress,
) -> Result<()> {
    let head = head.0.as_str();
    let group = ctx
        .store
        .merge_group(&job.repo, head)
        .await?
        .with_context(|| format!("no merge group with head {head} was recorded"))?;
    // The queue's request and the check suite of the group's push are
    // answered once per group; a re-run (of one check or all) evaluates again.
    let names = check_names(job.scope);
    let finished = if job.once_per_head { ctx.store.finished_jobs(job).await? } else { Default::default() };
    let checks = Checks { names: &names, once_per_head: job.once_per_head, finished: &finished };
    let at = Group { base: &group.base_sha, head, head_ref: &group.head_ref };
    let (seen, on_seen) = oneshot::channel();
    let read = async { Ok(group_source::read(repo, at, checks, &ctx.reads, seen).await?) };
    let (reading, started) = read_in_view(ctx, job, repo, &names, progress, read, on_seen).await?;
    let Some(change) = reading.change else {
        tracing::info!(job = job.id, %head, "this merge group was evaluated already");
        return Ok(());
    };
    progress.note(repo, head, &names);
    let (answer, error) = match change {
        Change::Read(read) => {
            let planned =
                tokio::task::spawn_blocking(move || merge_group::plan(&read)).await.context("the rules panicked")?;
            (Answer::Plan(planned), None)
        }
        Change::TooManyFiles => (Answer::FailClosed(too_many_files()), None),
        Change::Unreadable(err) => (Answer::FailClosed(format!("Reading the merge group failed: {err}")), Some(err)),
    };
    let runs = HeadRuns::new(writer(job), head, names, reading.shown, started);
    publish::merge_group(repo, &runs, answer).await?;
    if let Some(err) = error {
        return Err(err.into());
    }
    tracing::info!(job = job.id, %head, "merge group evaluated");
    Ok(())
}

/// Why every check fails closed on a group the compare cannot list whole.
fn too_many_files() -> String {
    format!(
        "This merge group changes {COMPARE_FILES} files or more; GitHub's compare lists at most {COMPARE_FILES}, \
         so gatehouse cannot see the whole change. Queue fewer pull requests together."
    )
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
