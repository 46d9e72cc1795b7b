//! Merge groups of GitHub's merge queue: the five check runs on the group's
//! head, evaluating the documents of the head against the group's base, so
//! what no single pull request shows (two queued PRs adding briefs with one
//! agent id) fails the group. A group's jobs are keyed by its head commit,
//! so they share one lock and coalesce like a PR's.

use anyhow::{Context, Result};

use super::worker::{Ctx, Progress, head_runs};
use crate::github::{HeadSha, RepoClient};
use crate::model::Report;
use crate::plan::merge_group::{PullGate, left_the_queue, review_gate};
use crate::plan::{self, REVIEW_CHECK};
use crate::publish::checks;
use crate::source::merge_group::{self as group_source, COMPARE_FILES};
use crate::source::pull_request::{self as source, PullRequest, Read};
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
    let mut runs = head_runs(repo, job, &head, progress).await?;
    if runs.evaluated_already() {
        tracing::info!(job = job.id, %head, "this merge group was evaluated already");
        return Ok(());
    }
    let too_many = format!(
        "This merge group changes {COMPARE_FILES} files or more; GitHub's compare lists at most {COMPARE_FILES}, \
         so gatehouse cannot see the whole change. Queue fewer pull requests together."
    );
    let decided = runs.while_slow(ctx.progress_after, repo, decide(ctx, repo, &group, &head, &too_many)).await?;
    let (report, gates) = match decided {
        Ok(decided) => decided,
        Err((reason, error)) => {
            runs.fail_closed(repo, &reason).await?;
            return error.map_or(Ok(()), Err);
        }
    };
    runs.publish_all(repo, &plan::outputs(&report, review_gate(&gates)), None).await?;
    let prs: Vec<u64> = gates.iter().map(|g| g.number).collect();
    tracing::info!(job = job.id, %head, ?prs, "merge group evaluated");
    Ok(())
}

/// The group's report and the review gates of its pull requests, or why
/// every check fails closed (and the job's own error, when it has one).
type GroupDecision = std::result::Result<(Report, Vec<PullGate>), (String, Option<anyhow::Error>)>;

/// Reads the merge group and evaluates it.
async fn decide(
    ctx: &Ctx,
    repo: &RepoClient,
    group: &MergeGroupRecord,
    head: &str,
    too_many: &str,
) -> Result<GroupDecision> {
    let change = group_source::compare(repo, &group.base_sha, head).await?;
    if change.files.len() >= COMPARE_FILES {
        return Ok(Err((too_many.to_string(), None)));
    }
    let pulls = group_source::group_pulls(repo, &change.commits, &group.head_ref).await?;
    let described = PullRequest {
        number: 0,
        base_sha: HeadSha(group.base_sha.clone()),
        merge_base: Some(HeadSha(change.merge_base.clone())),
        head_sha: HeadSha(head.to_string()),
        body: None,
        changed_files: change.files.len() as u64,
        draft: false,
    };
    let files = change.files;
    let read = source::read_changes(repo, described, async { Ok(files) }, &ctx.reads).await;
    let snapshot = match read {
        Ok(Read::Snapshot(snapshot)) => snapshot,
        Ok(Read::TooManyFiles { .. }) => return Ok(Err((too_many.to_string(), None))),
        Err(err) if err.is_transient() => return Err(err.into()),
        Err(err) => return Ok(Err((format!("Reading the merge group failed: {err}"), Some(err.into())))),
    };
    let changes = snapshot.changes;
    let report =
        tokio::task::spawn_blocking(move || crate::rules::evaluate(&changes)).await.context("the rules panicked")?;
    let mut gates = Vec::with_capacity(pulls.len());
    for (number, pr_head) in pulls {
        let runs = group_source::our_runs(repo, &pr_head).await?;
        let last = runs.into_iter().filter(|r| r.name == REVIEW_CHECK).max_by_key(|r| r.id);
        gates.push(PullGate { number, head: pr_head, run: last.map(|r| (r.status, r.conclusion)) });
    }
    Ok(Ok((report, gates)))
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
