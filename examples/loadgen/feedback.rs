//! **feedback** (`--only feedback`): how long a pull request's author waits
//! for gatehouse's answer when GitHub is as far away as it is in practice.
//! The App runs in this process (`app::start`, SQLite, 4 workers) against
//! the simulated GitHub answering every request after `--github-latency-ms`
//! (default 100) and enforcing GitHub.com's secondary limits (80 writes a
//! minute, 500 an hour, one at a time), with the App's default write budget
//! (the same limits). Four scenarios, each delivered as GitHub delivers it:
//! - **first**: a pull request opened (one brief with one finding), one at a
//!   time, `--prs N` times (default 10);
//! - **again**: the same heads delivered again (a `synchronize` with the
//!   same head, as a redelivery or a second event makes it);
//! - **fix**: a push to each that fixes its finding;
//! - **recheck**: a push to the default branch that edits the ADR 100 open
//!   pull requests cite. The 100 are first evaluated by an App without
//!   limits (their first answers are more writes than GitHub.com takes in
//!   an hour), then an App with the default budget, on the same database,
//!   takes the push.
//!
//! Each scenario's table row: the time from the delivery to the last check
//! concluded (p50, p99; for **again** and **recheck**, where nothing need be
//! written, to the job's end), requests and writes (content-generating
//! requests, as the simulated GitHub counts them) per pull request, and
//! the answers that were a secondary limit.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use gatehouse::app::{self, Running};
use gatehouse::github::Budget;
use gatehouse::webhook::signature;
use gatehouse_sim::{SecondaryLimits, Sim, Tree};

use super::{SECRET, in_process, ms, percentile};

pub(super) const REPO: &str = "load/feedback";
const ADR: &str = "docs/adr/ADR-095-backups.md";
const RECHECKED: u64 = 100;

pub(super) fn base() -> Tree {
    let mut base = Tree::new();
    base.insert(ADR.into(), b"# ADR-095: Backups\n\nStatus: Accepted\n\nBackups go off-host.\n".to_vec());
    base.insert("scripts/backup.sh".into(), b"#!/bin/sh\n".to_vec());
    base
}

/// A brief citing ADR-095; `missing` names a script that does not exist
/// (one `brief/path-missing` finding) or, fixed, one that does.
pub(super) fn brief(n: u64, fixed: bool) -> String {
    let script = if fixed { "scripts/backup.sh" } else { "scripts/restore.sh" };
    format!(
        "---\nagent: SWARM-F{n}\nrepos_touched: [{REPO}]\nadrs_referenced: [ADR-095]\nsuccess_criteria:\n  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"\nout_of_scope:\n  - restores\nlines_estimate: 40\n---\n\n# Brief {n}\n\nFollows ADR-095; edits `{script}`.\n"
    )
}

fn head(n: u64, fixed: bool) -> Tree {
    let mut head = base();
    head.insert(format!("dark-factory/briefs/SWARM-F{n}-brief.md"), brief(n, fixed).into_bytes());
    head
}

/// One scenario's figures.
#[derive(Default)]
struct Row {
    times: Vec<Duration>,
    requests: usize,
    writes: u64,
    limited: u32,
    prs: usize,
}

pub(super) async fn deliver(app: &Running, event: &str, id: &str, payload: &serde_json::Value) -> Result<()> {
    let body = serde_json::to_vec(payload)?;
    let status = reqwest::Client::new()
        .post(format!("http://{}/webhook", app.addr))
        .header("x-github-event", event)
        .header("x-github-delivery", id)
        .header("x-hub-signature-256", signature::sign(SECRET.as_bytes(), &body))
        .body(body)
        .send()
        .await?
        .status();
    if status.as_u16() != 202 {
        bail!("delivery {id} answered {status}");
    }
    Ok(())
}

async fn idle(app: &Running) -> Result<()> {
    let started = Instant::now();
    loop {
        let counts = app.store.job_counts().await?;
        if counts.queued + counts.running == 0 {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(900) {
            bail!("jobs still running after 15 minutes: {counts:?}");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until every check on `sha` is completed, or (`None`) the jobs end.
async fn concluded(sim: &Sim, app: &Running, sha: Option<&str>) -> Result<()> {
    let Some(sha) = sha else { return idle(app).await };
    let names = gatehouse::publish::check_names().len();
    let started = Instant::now();
    loop {
        let runs = sim.check_runs(REPO, sha);
        if runs.len() >= names && runs.iter().all(|r| r.status == "completed") {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(300) {
            bail!("the checks on {sha} did not conclude within 5 minutes");
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// A `synchronize` delivery of PR `n`'s head as the simulated GitHub has it,
/// updated at `minute` (a body of its own, as GitHub's deliveries differ).
fn synchronize(sim: &Sim, n: u64, minute: u32) -> serde_json::Value {
    let mut event = sim.pull_request_event(REPO, n, "synchronize");
    event["pull_request"]["updated_at"] = format!("2026-12-06T10:{minute:02}:00Z").into();
    event
}

/// Runs `step` for each PR, one at a time, and takes its row.
async fn scenario<F, Fut>(sim: &Sim, app: &Running, prs: u64, mut step: F) -> Result<Row>
where
    F: FnMut(u64) -> Fut,
    Fut: std::future::Future<Output = Result<Option<String>>>,
{
    let mut row = Row { prs: prs as usize, ..Row::default() };
    let (requests, writes, limited) = (sim.requests().len(), sim.content_writes(), sim.secondary_limit_answers());
    for n in 1..=prs {
        let started = Instant::now();
        let sha = step(n).await?;
        concluded(sim, app, sha.as_deref()).await?;
        row.times.push(started.elapsed());
        idle(app).await?;
    }
    row.requests = sim.requests().len() - requests;
    row.writes = sim.content_writes() - writes;
    row.limited = sim.secondary_limit_answers() - limited;
    row.times.sort();
    Ok(row)
}

pub async fn main(latency: Duration, prs: u64, workers: usize) -> Result<()> {
    let sim = super::github().await?;
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("feedback.db");

    // The 100 pull requests the base push re-checks, evaluated first by an
    // App on an instance without limits.
    sim.set_secondary_limits(SecondaryLimits::NONE);
    let mut config = in_process(&sim, &db)?;
    config.workers = workers;
    let setup = app::start(config).await?;
    for n in 1..=RECHECKED {
        sim.open_pr(REPO, n, base(), head(n, false), "One brief.");
        deliver(&setup, "pull_request", &format!("setup-{n}"), &sim.pull_request_event(REPO, n, "opened")).await?;
    }
    idle(&setup).await?;
    // The setup's writes are forgotten by the next App's write budget (a
    // SQLite store's is its process's) as by the simulated GitHub's count:
    // the scenarios start on a fresh hour.
    setup.shutdown().await;

    // From here on, GitHub.com's limits on both sides, and GitHub's latency.
    sim.set_secondary_limits(SecondaryLimits::GITHUB_COM);
    sim.set_latency(latency);
    let mut config = in_process(&sim, &db)?;
    config.workers = workers;
    config.budget = Budget::GITHUB_COM;
    let running = app::start(config).await?;
    let offset = RECHECKED;

    let first = scenario(&sim, &running, prs, |n| {
        let (sim, running) = (&sim, &running);
        async move {
            let pr = sim.open_pr(REPO, offset + n, base(), head(offset + n, false), "One brief.");
            deliver(
                running,
                "pull_request",
                &format!("first-{n}"),
                &sim.pull_request_event(REPO, offset + n, "opened"),
            )
            .await?;
            Ok(Some(pr.head_sha))
        }
    })
    .await?;
    let again = scenario(&sim, &running, prs, |n| {
        let (sim, running) = (&sim, &running);
        async move {
            deliver(running, "pull_request", &format!("again-{n}"), &synchronize(sim, offset + n, 1)).await?;
            Ok(None)
        }
    })
    .await?;
    let fix = scenario(&sim, &running, prs, |n| {
        let (sim, running) = (&sim, &running);
        async move {
            let sha = sim.push(REPO, offset + n, head(offset + n, true));
            deliver(running, "pull_request", &format!("fix-{n}"), &synchronize(sim, offset + n, 2)).await?;
            Ok(Some(sha))
        }
    })
    .await?;
    let recheck = scenario(&sim, &running, 1, |_| {
        let (sim, running) = (&sim, &running);
        async move {
            let mut main = base();
            main.insert(
                ADR.into(),
                b"# ADR-095: Backups\n\nStatus: Accepted\n\nBackups go off-host, encrypted.\n".to_vec(),
            );
            let push = sim.push_to_default_branch(REPO, 1, main, "Merge pull request #900");
            deliver(running, "push", "recheck", &push).await?;
            Ok(None)
        }
    })
    .await?;
    let evaluated = running.store.job_counts().await?;
    running.shutdown().await;

    println!(
        "feedback: the App against a simulated GitHub answering each request after {} ms, with GitHub.com's \
         secondary limits enforced and the App's default write budget ({workers} workers)",
        latency.as_millis()
    );
    println!(
        "{:<44} {:>9} {:>9} {:>13} {:>11} {:>16}",
        "scenario", "p50 ms", "p99 ms", "requests/PR", "writes/PR", "secondary limits"
    );
    let rows = [
        ("first evaluation (PR opened)", &first),
        ("the same head delivered again", &again),
        ("a push that fixes one finding", &fix),
        ("a base push re-checking 100 open PRs (all)", &recheck),
    ];
    for (name, row) in rows {
        let per = if name.starts_with("a base push") { RECHECKED as f64 } else { row.prs as f64 };
        println!(
            "{name:<44} {:>9.0} {:>9.0} {:>13.1} {:>11.1} {:>16}",
            ms(percentile(&row.times, 0.5)),
            ms(percentile(&row.times, 0.99)),
            row.requests as f64 / per,
            row.writes as f64 / per,
            row.limited
        );
    }
    println!("jobs at the end: {evaluated:?}");
    Ok(())
}
