//! Workers: claim a job with a lease (renewed while it runs), read the PR,
//! run the rules, publish, complete. A transient failure puts the job back
//! with a delay (see [`Failure`] for what is transient); a crash lets the lease lapse and another worker takes over.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use tokio::sync::{Notify, watch};

use super::failure::Failure;
use crate::gate;
use crate::github::RetryPolicy;
use crate::github::{GitHub, RepoClient, RepoName, Urgency};
use crate::metrics::Metrics;
use crate::publish::review_requests::{self, GateState};
use crate::publish::{self, checks, review, summary};
use crate::source::contents::ReadCache;
use crate::source::pull_request::{self as source, MAX_FILES, PullRequest, Read};
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
                    ctx.store.retry_later(&job, worker, delay, &message).await
                }
                _ => {
                    tracing::error!(job = job.id, error = %message, "job failed for good");
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

/// What a job did.
enum Outcome {
    Evaluated,
    /// A head commit's job became jobs of its PRs (already recorded).
    Resolved,
}

/// The heads a job began to evaluate and their checks, so a job that fails
/// for good can conclude them.
#[derive(Default)]
pub(super) struct Progress {
    pub(super) heads: Vec<(RepoName, String, Vec<String>)>,
}

/// Gives every check the job began and did not complete a `failure` saying
/// why: a required check never waits on a job that is gone.
async fn conclude_runs(ctx: &Ctx, job: &Job, progress: &Progress, error: &str) {
    for (repo, head, names) in &progress.heads {
        let repo = RepoClient::new(ctx.github.clone(), job.installation, repo.clone());
        match checks::conclude_failed(&repo, head, job.id, names, error).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(job = job.id, runs = n, "check runs concluded as failed"),
            Err(err) => tracing::error!(job = job.id, error = %err, "cannot conclude the job's check runs"),
        }
    }
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
        Scope::All => publish::check_names(),
        Scope::Check(check) => vec![check.name().to_string()],
        Scope::ReviewGate => vec![summary::REVIEW_CHECK.to_string()],
    }
}

/// Runs a job by its target: a pull request or a merge group is evaluated;
/// a head, an install and a push are resolved into jobs of pull requests.
async fn evaluate_job(ctx: &Ctx, worker: &str, job: &Job, progress: &mut Progress) -> Result<Outcome> {
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

/// A job's check runs on one head: what GitHub showed when the job began,
/// and the runs it showed in progress while it was slow.
pub(super) struct HeadRuns {
    pub head: String,
    pub names: Vec<String>,
    shown: checks::Shown,
    started: checks::CheckRuns,
    once_per_head: bool,
    /// A person asked for a re-run: every check is written anew.
    rerun: bool,
}

impl HeadRuns {
    /// Reads our runs on `head`; the job evaluates the checks `names`.
    pub(super) async fn read(
        repo: &RepoClient,
        job: &Job,
        head: &str,
        names: Vec<String>,
        progress: &mut Progress,
    ) -> Result<HeadRuns> {
        let shown = checks::shown(repo, head).await?;
        progress.heads.push((repo.repo.clone(), head.to_string(), names.clone()));
        let (once_per_head, rerun) = (job.once_per_head, job.rerun_asked());
        Ok(HeadRuns { head: head.to_string(), names, shown, started: Default::default(), once_per_head, rerun })
    }

    /// Every check this job evaluates was completed on this head by another
    /// job, and a head is evaluated once.
    pub(super) fn evaluated_already(&self) -> bool {
        self.once_per_head && self.shown.all_completed(&self.names)
    }

    /// Runs `work`; if it takes longer than `ctx.progress_after`, the checks
    /// are shown in progress meanwhile (a quick one posts none).
    pub(super) async fn while_slow<T>(
        &mut self,
        ctx: &Ctx,
        job: &Job,
        repo: &RepoClient,
        work: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        tokio::pin!(work);
        tokio::select! {
            done = &mut work => done,
            _ = tokio::time::sleep(ctx.progress_after) => {
                self.started = checks::start(repo, &self.head, job.id, &self.names, &self.shown).await?;
                work.await
            }
        }
    }

    /// Writes one check's output where it differs from what GitHub shows;
    /// `note` (what changed on the base) is added to a summary written
    /// anyway.
    pub(super) async fn publish(
        &self,
        repo: &RepoClient,
        job: &Job,
        mut output: summary::CheckOutput,
        findings: &[&crate::model::Finding],
        note: Option<&str>,
    ) -> Result<()> {
        if !self.names.contains(&output.name) {
            return Ok(());
        }
        let digest = checks::digest(&output, findings);
        let unchanged_skips = (!self.rerun).then_some(digest.as_str());
        let planned =
            checks::plan(&self.shown, &self.started, job.id, &output.name, unchanged_skips, self.once_per_head);
        if let Some(note) = note {
            output.summary = summary::fit(format!("{}\n\n{note}\n", output.summary.trim_end()));
        }
        checks::publish(repo, &self.head, job.id, planned, &output, findings, &digest).await?;
        Ok(())
    }

    /// Fails every check closed, saying why.
    pub(super) async fn fail_closed(&self, repo: &RepoClient, job: &Job, reason: &str) -> Result<()> {
        for name in &self.names {
            self.publish(repo, job, summary::fail_closed(name, reason), &[], None).await?;
        }
        Ok(())
    }
}

async fn evaluate_pr(ctx: &Ctx, job: &Job, repo: &RepoClient, number: u64, progress: &mut Progress) -> Result<()> {
    let pr = source::describe(repo, number).await?;
    let head = pr.head_sha.0.clone();
    // Runs left open on heads the PR moved past: this job's own from an
    // earlier attempt, and those of the jobs it superseded.
    let own = job.started_sha.iter().map(|sha| (job.id, sha.clone()));
    for (id, sha) in own.chain(job.stale.iter().cloned()).filter(|(_, sha)| *sha != head) {
        let closed = checks::close_stale(repo, &sha, id).await?;
        if closed > 0 {
            tracing::info!(job = job.id, of_job = id, %sha, closed, "closed check runs of a replaced head");
        }
    }
    let review_only = job.scope == Scope::ReviewGate;
    let mut runs = HeadRuns::read(repo, job, &head, check_names(job.scope), progress).await?;
    if runs.evaluated_already() {
        tracing::info!(job = job.id, "this head was evaluated already");
        return Ok(());
    }
    if job.started_sha.as_deref() != Some(head.as_str()) {
        ctx.store.started(job, &head).await?;
    }
    let decided = runs.while_slow(ctx, job, repo, decide(ctx, repo, &pr)).await?;
    let decided = match decided {
        Decided::Evaluated(decided) => decided,
        Decided::FailClosed { reason, error } => {
            runs.fail_closed(repo, job, &reason).await?;
            return error.map_or(Ok(()), Err);
        }
    };
    let Evaluation { report, review_gate, base_note, index_entry, files, suggestions } = *decided;
    for (output, findings) in publish::outputs(&report, review_gate) {
        runs.publish(repo, job, output, &findings, base_note.as_deref()).await?;
    }
    ctx.store.record_dependencies(&repo.repo.full(), &index_entry).await?;
    if review_only {
        tracing::info!(job = job.id, pr = number, head = %short(&pr), "review gate evaluated");
        return Ok(());
    }
    if ctx.store.superseded(job, &head).await? {
        tracing::info!(job = job.id, "a newer head is queued: no review for this one");
        return Ok(());
    }
    let findings: Vec<_> = report.findings().collect();
    let published = review::publish(repo, number, &head, &findings, &files, &suggestions).await?;
    tracing::info!(job = job.id, pr = number, head = %short(&pr), ?published, "evaluated");
    Ok(())
}

/// What a pull request's evaluation decided.
enum Decided {
    Evaluated(Box<Evaluation>),
    /// Every check fails closed for `reason`; `error` is the job's own
    /// failure, when it has one.
    FailClosed {
        reason: String,
        error: Option<anyhow::Error>,
    },
}

struct Evaluation {
    report: crate::model::Report,
    review_gate: summary::CheckOutput,
    /// What changed on the base since the last evaluation.
    base_note: Option<String>,
    index_entry: crate::store::Dependencies,
    files: Vec<crate::source::pull_request::PrFile>,
    suggestions: BTreeMap<String, crate::model::LineChange>,
}

/// Reads the pull request and decides each check's output, asking for the
/// reviews the gate needs.
async fn decide(ctx: &Ctx, repo: &RepoClient, pr: &PullRequest) -> Result<Decided> {
    let number = pr.number;
    let head = pr.head_sha.0.clone();
    let snapshot = match source::read(repo, pr.clone(), &ctx.reads).await {
        Ok(Read::Snapshot(snapshot)) => snapshot,
        Ok(Read::TooManyFiles { pr }) => {
            let reason = format!(
                "This pull request changes {} files; GitHub lists at most {MAX_FILES}, so gatehouse cannot see the whole \
                 change. Split it into smaller pull requests.",
                pr.changed_files
            );
            return Ok(Decided::FailClosed { reason, error: None });
        }
        Err(err) if err.is_transient() => return Err(err.into()),
        Err(err) => {
            let reason =
                format!("Reading the pull request failed: {err}\n\nPress **Re-run** on this check to try again.");
            return Ok(Decided::FailClosed { reason, error: Some(err.into()) });
        }
    };
    let repo_name = repo.repo.full();
    let previous = ctx.store.dependencies(&repo_name, number).await?;
    let base_note = super::push::base_changes(previous.as_ref(), &pr.base_sha.0, &snapshot.dependencies);
    let index_entry = super::push::entry(number, &pr.base_sha.0, &snapshot.dependencies);
    let changes = snapshot.changes;
    let policy = changes.config.review.clone();
    let (report, applicability, suggestions) = tokio::task::spawn_blocking(move || {
        let report = crate::rules::evaluate(&changes);
        let suggestions = review::suggestions(&report, &changes);
        (report, gate::applicability(&changes), suggestions)
    })
    .await
    .context("the rules panicked")?;
    let mut requests = None;
    let mut unreadable_authors = false;
    let outcome = match (applicability.applies, &policy) {
        (true, Some(policy)) => {
            let (reviews, authors) = source::reviews_and_authors(repo, number).await?;
            unreadable_authors = authors.is_none();
            let contents =
                crate::source::approved::contents(repo, policy, &head, &applicability.documents, &reviews).await?;
            let authors = authors.as_deref().unwrap_or_default();
            let outcome = gate::evaluate_contents(policy, &reviews, authors, &head, &contents);
            let state = GateState {
                number,
                head: &head,
                policy,
                outcome: &outcome,
                reviews: &reviews,
                hold: pr.draft || unreadable_authors,
            };
            // A review request can wait for the checks a person waits for.
            let background = repo.with_urgency(Urgency::Background);
            requests = review_requests::ask(&background, &ctx.store, &state).await?;
            Some(outcome)
        }
        _ => None,
    };
    let mut review_gate = match policy {
        None if applicability.applies => summary::review_gate_unconfigured(&applicability),
        _ => summary::review_gate(&applicability, outcome.as_ref()),
    };
    if unreadable_authors {
        let reason = format!(
            "This pull request has {} commits or more; GitHub lists at most that many, so gatehouse cannot read \
             every commit author to decide who is recused. Squash or split the pull request.",
            source::MAX_COMMITS
        );
        review_gate = summary::fail_closed(summary::REVIEW_CHECK, &reason);
    } else if let Some(note) = requests {
        review_gate.summary = summary::fit(format!("{}\n\n{note}\n", review_gate.summary.trim_end()));
    }
    let files = snapshot.files;
    Ok(Decided::Evaluated(Box::new(Evaluation { report, review_gate, base_note, index_entry, files, suggestions })))
}

fn short(pr: &PullRequest) -> &str {
    &pr.head_sha.0[..pr.head_sha.0.len().min(7)]
}
