//! Workers: claim a job with a lease (renewed while it runs), read the PR,
//! run the rules, publish, complete. A transient failure puts the job back
//! with a delay (see [`Failure`] for what is transient); a crash lets the lease lapse and another worker takes over.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use tokio::sync::{Notify, oneshot, watch};

use super::StopPoint;
use super::failure::Failure;
use super::progress::{Progress, conclude_runs, read_in_view};
use crate::github::RetryPolicy;
use crate::github::{GitHub, RepoClient, RepoName};
use crate::metrics::Metrics;
use crate::plan::requests::Requests;
use crate::plan::{self, REVIEW_CHECK};
use crate::publish::runs::{HeadRuns, Writer};
use crate::publish::{self, Answer};
use crate::source::contents::ReadCache;
use crate::source::evaluation::{self, Change};
use crate::source::pull_request::{self as source, MAX_FILES};
use crate::store::{Job, PrNumber, Scope, Store, Target, now_ms};

/// How often an idle worker looks for jobs it was not woken for.
const POLL: Duration = Duration::from_millis(200);

pub(crate) struct Ctx {
    pub store: Store,
    pub github: GitHub,
    pub metrics: Arc<Metrics>,
    pub reads: ReadCache,
    pub lease: Duration,
    pub wake: Arc<Notify>,
    pub retry: RetryPolicy,
    pub progress_after: Duration,
    pub stops: super::StopPoints,
    pub attestation: Arc<crate::attestation::AttestationKeys>,
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
        if let Some(wait) = ctx.github.outage_wait() {
            // GitHub is down: another worker's job is the probe.
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = stop.changed() => {}
            }
            continue;
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
    tracing::info!(job = job.id, repo = %job.repo, target = %job.target, reason = %job.reason, attempt = job.attempts, "job claimed");
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
    let mut progress = Progress::default();
    let result = evaluate_job(ctx, worker, &job, &mut progress).await;
    drop(heartbeat);
    keep_reads(ctx).await;
    let stored = match result {
        Ok(Outcome::Evaluated) => {
            ctx.metrics.job_finished(started.elapsed().as_secs_f64());
            ctx.store.complete(&job, worker).await
        }
        Ok(Outcome::Resolved) => Ok(true),
        Err(err) => {
            let failure = Failure::of(&err);
            let message = format!("{err:#}");
            let age = Duration::from_millis((now_ms() - job.created_at).max(0) as u64);
            let retry_after = match failure {
                Failure::Transient { retry_after } => Some(retry_after),
                Failure::Unauthorized if job.attempts < ctx.retry.unauthorized_attempts => Some(None),
                Failure::Unauthorized | Failure::Permanent => None,
            };
            match retry_after {
                Some(at) if age < ctx.retry.job_deadline => {
                    // A rate limit's job runs again when GitHub said it may.
                    let backoff = ctx.retry.job_backoff(job.attempts);
                    let delay = at.map_or(backoff, |wait| wait.max(backoff));
                    tracing::warn!(job = job.id, error = %message, delay_s = delay.as_secs_f64(), "job failed; will retry");
                    ctx.metrics.job_failed(true);
                    ctx.store.retry_later(&job, worker, delay, &message).await
                }
                _ => {
                    tracing::error!(job = job.id, error = %message, "job failed for good");
                    ctx.metrics.job_failed(false);
                    conclude_runs(ctx, &job, &progress, &message).await;
                    ctx.store.fail(&job, worker, &message).await
                }
            }
        }
    };
    match stored {
        Ok(true) => {}
        Ok(false) => tracing::warn!(job = job.id, "the job's lease was lost before it finished"),
        Err(err) => tracing::warn!(job = job.id, error = %err, "cannot record the job's end"),
    }
}

/// Keeps in the store what jobs read from GitHub, once their answers are
/// out. A fault costs later jobs GitHub reads, never this job.
async fn keep_reads(ctx: &Ctx) {
    let reads = ctx.reads.take_unkept();
    if reads.is_empty() {
        return;
    }
    if let Err(err) = super::kept::keep(&ctx.store, reads).await {
        tracing::warn!(error = %format!("{err:#}"), "cannot keep the contents read");
    }
}

/// What a job did.
pub(super) enum Outcome {
    Evaluated,
    /// A head commit's job became jobs of its PRs (already recorded).
    Resolved,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The names of the check runs a job of `scope` evaluates.
pub(super) fn check_names(scope: Scope) -> Vec<String> {
    match scope {
        Scope::All => plan::check_names(),
        Scope::Check(check) => vec![check.name().to_string()],
        Scope::ReviewGate => vec![REVIEW_CHECK.to_string()],
    }
}

/// Runs a job by its target: a pull request or a merge group is evaluated;
/// a head, an install and a push are resolved into jobs of pull requests.
async fn evaluate_job(ctx: &Ctx, worker: &str, job: &Job, progress: &mut Progress) -> Result<Outcome> {
    if let Target::Team(team) = &job.target {
        // An organisation's team: its job names no one repository.
        return super::team::recheck(ctx, worker, job, team).await;
    }
    let repo = RepoName::parse(&job.repo).ok_or_else(|| anyhow!("{:?} is not owner/name", job.repo))?;
    let client = RepoClient::new(ctx.github.clone(), job.installation, repo).with_urgency(job.urgency());
    match &job.target {
        Target::Pr { number, .. } => {
            evaluate_pr(ctx, job, &client, number.0, progress).await?;
            Ok(Outcome::Evaluated)
        }
        Target::MergeGroup(head) => {
            super::merge_group::evaluate(ctx, job, &client, head, progress).await?;
            Ok(Outcome::Evaluated)
        }
        Target::MergeGroupDestroyed(head) => {
            super::merge_group::leave_queue(job, &client, head).await?;
            Ok(Outcome::Evaluated)
        }
        Target::OpenPrs => {
            // An install: every open PR of the repository, bounded.
            let prs: Vec<PrNumber> = source::open_pulls(&client).await?.into_iter().map(PrNumber).collect();
            if ctx.store.resolve(job, worker, &prs).await? {
                tracing::info!(job = job.id, ?prs, "install resolved to the open pull requests");
                ctx.wake.notify_waiters();
            }
            Ok(Outcome::Resolved)
        }
        Target::BaseTip(tip) => {
            // A push to the default branch: resolved to jobs of the PRs it
            // affects, which keep its reason and are evaluated as PRs.
            super::push::recheck(ctx, worker, job, &client, tip).await?;
            Ok(Outcome::Resolved)
        }
        Target::Command { number, command } => {
            super::commands::answer(ctx, worker, job, &client, *number, command).await
        }
        Target::Dashboard => {
            super::dashboard::refresh(ctx, job, &client).await?;
            Ok(Outcome::Evaluated)
        }
        Target::Merged { number, merge } => {
            super::attest::merged(ctx, job, &client, *number, merge).await?;
            Ok(Outcome::Evaluated)
        }
        Target::Team(team) => super::team::recheck(ctx, worker, job, team).await,
        Target::Head(sha) => {
            // Resolved to its PRs before anything is evaluated: each PR's job
            // then takes that PR's lock and coalesces with its other jobs.
            let prs: Vec<PrNumber> = source::pulls_for_head(&client, &sha.0).await?.into_iter().map(PrNumber).collect();
            if prs.is_empty() && ctx.store.merge_group(&job.repo, &sha.0).await?.is_some() {
                // A re-run of a merge group's check: the group is no PR's head.
                super::merge_group::evaluate(ctx, job, &client, sha, progress).await?;
                return Ok(Outcome::Evaluated);
            }
            if ctx.store.resolve(job, worker, &prs).await? {
                tracing::info!(job = job.id, head = %sha, ?prs, "head resolved to its pull requests");
                ctx.wake.notify_waiters();
            }
            Ok(Outcome::Resolved)
        }
    }
}

async fn evaluate_pr(ctx: &Ctx, job: &Job, repo: &RepoClient, number: u64, progress: &mut Progress) -> Result<()> {
    // Runs left open on heads the PR moved past: this job's own from an
    // earlier attempt, and those of the jobs it superseded.
    let begun: Vec<(i64, String)> =
        job.started_sha.iter().map(|sha| (job.id, sha.clone())).chain(job.stale.iter().cloned()).collect();
    // What the store knows of this PR: the requests made on its last head
    // asked, and what the last evaluation depended on.
    let repo_name = repo.repo.full();
    let made = ctx.store.review_requests(&repo_name, number).await?;
    let previous = ctx.store.dependencies(&repo_name, number).await?;
    // Only a job that skips an answered head needs to know who finished.
    let finished = if job.once_per_head { ctx.store.finished_jobs(job).await? } else { Default::default() };
    let review_only = job.scope == Scope::ReviewGate;
    let names = check_names(job.scope);
    let checks = evaluation::Checks { names: &names, once_per_head: job.once_per_head, finished: &finished };
    let known = evaluation::Known { made, previous };
    // A job that comes of a team's change reads the teams afresh.
    let fresh_teams = matches!(job.reason.as_str(), "membership" | "team");
    let ask = evaluation::Ask { number, begun: &begun, checks, known, with_review: !review_only, fresh_teams };
    let (seen, on_seen) = oneshot::channel();
    let read = async { Ok(evaluation::read(repo, ask, &ctx.reads, seen).await?) };
    let (reading, started) = read_in_view(ctx, job, repo, &names, progress, read, on_seen).await?;
    let evaluation::Reading { head: evaluation::Head { pr, shown, earlier }, change } = reading;
    let head = pr.head_sha.0.clone();
    let Some(change) = change else {
        tracing::info!(job = job.id, "this head was evaluated already, by a job that finished");
        return publish::close_stale(repo, &earlier).await;
    };
    progress.note(repo, &head, &names);
    let (answer, error) = match change {
        Change::Read(read) => {
            let plan =
                tokio::task::spawn_blocking(move || plan::pull_request(&read)).await.context("the rules panicked")?;
            (Answer::Plan(Box::new(plan)), None)
        }
        Change::TooManyFiles(changed) => (Answer::FailClosed(too_many_files(changed)), None),
        Change::Unreadable(err) => {
            let reason =
                format!("Reading the pull request failed: {err}\n\nPress **Re-run** on this check to try again.");
            (Answer::FailClosed(reason), Some(err))
        }
    };
    let superseded = !review_only && ctx.store.superseded(job, &head).await?;
    if superseded {
        tracing::info!(job = job.id, "a newer head is queued: no review for this one");
    }
    let with_review = !review_only && !superseded;
    let after = match &answer {
        Answer::Plan(plan) => Some((plan.index_entry.clone(), plan.dashboard, plan.remind_every_days)),
        Answer::FailClosed(_) => None,
    };
    progress.record_start(ctx, job, &head).await?;
    ctx.stops.reached(StopPoint::Begun).await;
    // Whom the plan asks is recorded before asking: an attempt killed after
    // asking asks the same logins again (see `plan::requests::Recorded`).
    if let Answer::Plan(plan) = &answer
        && let Requests::Ask(wanted) = &plan.requests
        && !wanted.is_empty()
    {
        ctx.store.record_asking(&repo_name, number, &head, wanted).await?;
        ctx.stops.reached(StopPoint::AskingRecorded).await;
    }
    let runs = HeadRuns::new(writer(job), &head, names, shown, started);
    let applied = publish::pull_request(repo, &runs, &earlier, number, answer, with_review).await?;
    if let Some(err) = error {
        return Err(err.into());
    }
    // What follows the writes is recorded after them all; an attempt killed
    // in between writes nothing again on GitHub and records it all.
    if let Some(made) = &applied.made {
        ctx.store.record_review_requests(&repo_name, number, &head, made).await?;
        ctx.stops.reached(StopPoint::AskedRecorded).await;
    }
    if let Some((index_entry, dashboard, remind_every_days)) = after {
        ctx.store.record_dependencies(&repo_name, &index_entry).await?;
        ctx.stops.reached(StopPoint::DependenciesRecorded).await;
        ctx.store.note_dashboard(job, dashboard).await?;
        ctx.stops.reached(StopPoint::DashboardNoted).await;
        ctx.store.schedule_reminders(&repo_name, number, job.installation, remind_every_days).await?;
        ctx.stops.reached(StopPoint::RemindersScheduled).await;
    }
    tracing::info!(job = job.id, pr = number, head = %&head[..head.len().min(7)], published = ?applied.review, "evaluated");
    Ok(())
}

/// How the job writes its runs.
pub(super) fn writer(job: &Job) -> Writer {
    Writer { job: job.id, once_per_head: job.once_per_head, rerun: job.rerun_asked() }
}

/// Why every check fails closed on a pull request changing `changed` files.
fn too_many_files(changed: u64) -> String {
    format!(
        "This pull request changes {changed} files; GitHub lists at most {MAX_FILES}, so gatehouse cannot see the whole \
         change. Split it into smaller pull requests."
    )
}
