//! Workers: claim a job with a lease (renewed while it runs), read the PR,
//! run the rules, publish, complete. A transient failure puts the job back
//! with a delay; a crash lets the lease lapse and another worker takes over.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use tokio::sync::{Notify, watch};

use super::metrics::Metrics;
use crate::gate;
use crate::github::{ApiError, GitHub, RepoName};
use crate::publish::{self, checks, review, summary};
use crate::source::github::{self as source, MAX_FILES, PullRequest, Read, TreeCache};
use crate::store::{Job, Store};

/// Attempts before a job is given up on.
const MAX_ATTEMPTS: i64 = 6;
/// How often an idle worker looks for jobs it was not woken for.
const POLL: Duration = Duration::from_millis(200);

pub(crate) struct Ctx {
    pub store: Store,
    pub github: GitHub,
    pub metrics: Arc<Metrics>,
    pub trees: TreeCache,
    pub lease: Duration,
    pub wake: Arc<Notify>,
}

pub(crate) fn worker_id(n: usize) -> String {
    let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("worker-{}-{nonce:08x}-{n}", std::process::id())
}

pub(crate) async fn run(ctx: Arc<Ctx>, worker: String, mut stop: watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            break;
        }
        match ctx.store.claim(&worker, ctx.lease).await {
            Ok(Some(job)) => process(&ctx, &worker, job).await,
            Ok(None) => {
                tokio::select! {
                    _ = ctx.wake.notified() => {}
                    _ = tokio::time::sleep(POLL) => {}
                    _ = stop.changed() => {}
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot claim a job");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

async fn process(ctx: &Arc<Ctx>, worker: &str, job: Job) {
    let started = Instant::now();
    tracing::info!(job = job.id, repo = %job.repo, pr = job.pr, reason = %job.reason, attempt = job.attempts, "job claimed");
    // Dropped with this future: a worker that dies stops renewing its lease.
    let heartbeat = AbortOnDrop({
        let (ctx, job, worker) = (ctx.clone(), job.clone(), worker.to_string());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(ctx.lease / 3).await;
                match ctx.store.renew(&job, &worker, ctx.lease).await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(err) => tracing::warn!(job = job.id, error = %err, "cannot renew a lease"),
                }
            }
        })
    });
    let result = evaluate_job(ctx, &job).await;
    drop(heartbeat);
    let stored = match result {
        Ok(()) => {
            ctx.metrics.job_finished(started.elapsed().as_secs_f64());
            ctx.store.complete(&job, worker).await
        }
        Err(err) => {
            let transient = err.downcast_ref::<ApiError>().is_some_and(ApiError::is_transient);
            let message = format!("{err:#}");
            if transient && job.attempts < MAX_ATTEMPTS {
                let delay = Duration::from_secs(1u64 << job.attempts.clamp(0, 6));
                tracing::warn!(job = job.id, error = %message, delay_s = delay.as_secs(), "job failed; will retry");
                ctx.store.retry_later(&job, worker, delay, &message).await
            } else {
                tracing::error!(job = job.id, error = %message, "job failed");
                ctx.store.fail(&job, worker, &message).await
            }
        }
    };
    match stored {
        Ok(true) => {}
        Ok(false) => tracing::warn!(job = job.id, "the job's lease was lost before it finished"),
        Err(err) => tracing::warn!(job = job.id, error = %err, "cannot record the job's end"),
    }
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn evaluate_job(ctx: &Ctx, job: &Job) -> Result<()> {
    let repo = RepoName::parse(&job.repo).ok_or_else(|| anyhow!("{:?} is not owner/name", job.repo))?;
    let prs = match (job.pr, &job.head_sha) {
        (0, Some(sha)) => source::pulls_for_head(&ctx.github, job.installation, &repo, sha).await?,
        (pr, _) => vec![pr],
    };
    for pr in prs {
        evaluate_pr(ctx, job, &repo, pr).await?;
    }
    Ok(())
}

async fn evaluate_pr(ctx: &Ctx, job: &Job, repo: &RepoName, number: u64) -> Result<()> {
    let gh = &ctx.github;
    let inst = job.installation;
    let pr = source::pull_request(gh, inst, repo, number).await?;
    let head = pr.head_sha.0.clone();
    let names = if job.review_only() { vec![summary::REVIEW_CHECK.to_string()] } else { publish::check_names() };
    let runs = checks::start(gh, inst, repo, &head, job.id, &names, job.reason == "check_suite.requested").await?;
    if runs.ids.is_empty() {
        tracing::info!(job = job.id, "this head was evaluated already");
        return Ok(());
    }
    let read = source::read(gh, inst, repo, pr.clone(), &ctx.trees).await;
    let snapshot = match read {
        Ok(Read::Snapshot(snapshot)) => snapshot,
        Ok(Read::TooManyFiles { pr }) => {
            let reason = format!(
                "This pull request changes {} files; GitHub lists at most {MAX_FILES}, so gatehouse cannot see the whole \
                 change. Split it into smaller pull requests.",
                pr.changed_files
            );
            return fail_closed(ctx, inst, repo, &runs, &names, &reason).await;
        }
        Err(err) if err.is_transient() => return Err(err.into()),
        Err(err) => {
            let reason = format!("Reading the pull request failed: {err}");
            fail_closed(ctx, inst, repo, &runs, &names, &reason).await?;
            return Err(err.into());
        }
    };
    let changes = snapshot.changes;
    let policy = changes.config.review.clone();
    let (report, applicability) =
        tokio::task::spawn_blocking(move || (crate::rules::evaluate(&changes), gate::applicability(&changes)))
            .await
            .context("the rules panicked")?;
    let outcome = match applicability.applies {
        true => {
            let (reviews, authors) = source::reviews_and_authors(gh, inst, repo, number).await?;
            Some(gate::evaluate(&policy, &reviews, &authors, &head))
        }
        false => None,
    };
    let review_gate = summary::review_gate(&applicability, outcome.as_ref());
    for (output, findings) in publish::outputs(&report, review_gate) {
        let Some(id) = runs.ids.get(&output.name) else { continue };
        let delivered = runs.completed.get(&output.name).copied();
        checks::finish(gh, inst, repo, *id, &output, &findings, delivered).await?;
    }
    if job.review_only() {
        tracing::info!(job = job.id, pr = number, head = %short(&pr), "review gate evaluated");
        return Ok(());
    }
    if ctx.store.superseded(job).await? {
        tracing::info!(job = job.id, "a newer head is queued: no review for this one");
        return Ok(());
    }
    let findings: Vec<_> = report.findings().collect();
    let published = review::publish(gh, inst, repo, number, &head, &findings, &snapshot.files).await?;
    tracing::info!(job = job.id, pr = number, head = %short(&pr), ?published, "evaluated");
    Ok(())
}

fn short(pr: &PullRequest) -> &str {
    &pr.head_sha.0[..pr.head_sha.0.len().min(7)]
}

async fn fail_closed(
    ctx: &Ctx,
    inst: u64,
    repo: &RepoName,
    runs: &checks::CheckRuns,
    names: &[String],
    reason: &str,
) -> Result<()> {
    for name in names {
        if let Some(id) = runs.ids.get(name) {
            let delivered = runs.completed.get(name).copied();
            checks::finish(&ctx.github, inst, repo, *id, &summary::fail_closed(name, reason), &[], delivered).await?;
        }
    }
    Ok(())
}
