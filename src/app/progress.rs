//! What a job has begun on GitHub, so that a job failing for good ends it,
//! and showing a job's checks in progress while its read step is slow.

use std::future::Future;

use anyhow::Result;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::worker::Ctx;
use crate::github::{RepoClient, RepoName};
use crate::publish::{self, checks::CheckRuns};
use crate::source::evaluation::HeadSeen;
use crate::store::Job;

/// The heads a job began to evaluate and their checks, so a job that fails
/// for good can conclude them, and the head the store knows it began.
#[derive(Default)]
pub(super) struct Progress {
    pub(super) heads: Vec<(RepoName, String, Vec<String>)>,
    recorded: Option<String>,
}

impl Progress {
    /// The job evaluates the checks `names` on `head`.
    pub(super) fn note(&mut self, repo: &RepoClient, head: &str, names: &[String]) {
        if !self.heads.iter().any(|(r, h, _)| *r == repo.repo && h == head) {
            self.heads.push((repo.repo.clone(), head.to_string(), names.to_vec()));
        }
    }

    /// Records in the store that `job` began on `head`, before anything is
    /// written there: a later attempt then closes what it left open should
    /// the pull request move on.
    pub(super) async fn record_start(&mut self, ctx: &Ctx, job: &Job, head: &str) -> Result<()> {
        let known = self.recorded.as_deref().or(job.started_sha.as_deref());
        if known != Some(head) {
            ctx.store.started(job, head).await?;
            self.recorded = Some(head.to_string());
        }
        Ok(())
    }
}

/// Awaits a job's read step. Once the read has sent the head it evaluates
/// on `seen`, and when it outlasts `ctx.progress_after`, the checks `names`
/// are shown in progress on that head while it goes on; a quick read posts
/// nothing; the head is recorded as begun first. Returns the read and the
/// runs shown in progress.
pub(super) async fn read_in_view<T>(
    ctx: &Ctx,
    job: &Job,
    repo: &RepoClient,
    names: &[String],
    progress: &mut Progress,
    read: impl Future<Output = Result<T>>,
    seen: oneshot::Receiver<HeadSeen>,
) -> Result<(T, CheckRuns)> {
    let began = Instant::now();
    tokio::pin!(read);
    let seen = tokio::select! {
        biased;
        done = &mut read => return Ok((done?, CheckRuns::default())),
        seen = seen => seen,
    };
    // The read stopped short of sending: nothing will be evaluated.
    let Ok(seen) = seen else { return Ok((read.await?, CheckRuns::default())) };
    let head = seen.head.clone();
    progress.note(repo, &head, names);
    tokio::select! {
        biased;
        done = &mut read => return Ok((done?, CheckRuns::default())),
        _ = tokio::time::sleep_until(began + ctx.progress_after) => {}
    }
    progress.record_start(ctx, job, &head).await?;
    let in_progress = seen.shown_in_progress(names);
    let started = publish::in_progress(repo, &head, job.id, &in_progress, &seen.shown).await?;
    Ok((read.await?, started))
}

/// Gives every check the job began and did not complete a `failure` saying
/// why: a required check never waits on a job that is gone.
pub(super) async fn conclude_runs(ctx: &Ctx, job: &Job, progress: &Progress, error: &str) {
    for (repo, head, names) in &progress.heads {
        let repo = RepoClient::new(ctx.github.clone(), job.installation, repo.clone());
        match publish::checks::conclude_failed(&repo, head, job.id, names, error).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(job = job.id, runs = n, "check runs concluded as failed"),
            Err(err) => tracing::error!(job = job.id, error = %err, "cannot conclude the job's check runs"),
        }
    }
}
