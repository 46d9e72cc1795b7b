//! **burst** (`--only burst`): `prs` pull requests (default 2,000) of one
//! installation, over 20 repositories, opened and delivered within 20 s,
//! against a simulated GitHub answering after `latency` (default 20 ms),
//! both as an instance without secondary limits; the time until every job
//! is done, or what is left after 5 minutes.
//!
//! With `--kills N`, each brief has a finding (so each pull request gets a
//! review with an inline comment), and the App is killed N times, evenly
//! through the deliveries (its tasks aborted mid-job, as SIGKILL leaves
//! them), and started again at once on the same database. At the end it
//! counts, over every pull request, the reviews missing or posted twice and
//! the check runs duplicated or left open, and for the pull requests whose
//! job was running at a kill, the time from the kill to their review.
//! `--database-url postgres://…` runs the App on PostgreSQL (a schema of
//! its own) instead of SQLite.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use gatehouse::app::{self, AppConfig, Running};
use gatehouse_sim::Sim;

use super::feedback::{REPO, base, brief, deliver};
use super::{in_process, ms, percentile};

const REPOS: u64 = 20;
const SPREAD: Duration = Duration::from_secs(20);
const DEADLINE: Duration = Duration::from_secs(300);

/// Pull request `n` of the burst: (repository, number).
fn pull(n: u64) -> (String, u64) {
    (format!("load/burst-{}", n % REPOS), n / REPOS + 1)
}

/// What the burst asks for beyond its size.
pub struct Options {
    pub latency: Duration,
    pub prs: u64,
    pub workers: usize,
    pub kills: u32,
    /// PostgreSQL instead of SQLite.
    pub database_url: Option<String>,
}

pub async fn main(options: Options) -> Result<()> {
    let Options { latency, prs, workers, kills, database_url } = options;
    let sim = Arc::new(super::github().await?);
    sim.set_latency(latency);
    let dir = tempfile::tempdir()?;
    let mut config = in_process(&sim, &dir.path().join("burst.db"))?;
    if let Some(url) = &database_url {
        config.database_url = url.clone();
        config.database_schema = Some(format!("loadgen_burst_{}", std::process::id()));
    }
    config.workers = workers;
    let mut running = app::start(config.clone()).await?;
    let kill_after: Vec<u64> = (1..=u64::from(kills)).map(|k| prs * k / (u64::from(kills) + 1)).collect();
    // Per pull request interrupted by a kill: when the kill was.
    let interrupted: Arc<Mutex<BTreeMap<u64, Instant>>> = Arc::default();
    let reviewed_after: Arc<Mutex<BTreeMap<u64, Duration>>> = Arc::default();
    let watcher = tokio::spawn(watch_reviews(sim.clone(), interrupted.clone(), reviewed_after.clone()));
    let started = Instant::now();
    for n in 0..prs {
        let (repo, number) = pull(n);
        let mut tree = base();
        let text = brief(n, kills == 0).replace(REPO, &repo);
        tree.insert(format!("dark-factory/briefs/SWARM-F{n}-brief.md"), text.into_bytes());
        sim.open_pr(&repo, number, base(), tree, "One brief.");
        let event = sim.pull_request_event(&repo, number, "opened");
        deliver(&running, "pull_request", &format!("burst-{n}"), &event).await?;
        if kill_after.contains(&(n + 1)) {
            running = kill_and_restart(running, &config, &interrupted).await?;
        }
        let due = SPREAD.mul_f64((n + 1) as f64 / prs as f64);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            tokio::time::sleep(wait).await;
        }
    }
    let delivered = started.elapsed();
    let settled = loop {
        let counts = running.store.job_counts().await?;
        if counts.queued + counts.running == 0 {
            break Some(started.elapsed());
        }
        if started.elapsed() > DEADLINE {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    watcher.abort();
    // The last reviews may have come after the watcher's last look.
    note_reviews(&sim, &interrupted, &reviewed_after);
    let counts = running.store.job_counts().await?;
    let engine = if database_url.is_some() { "PostgreSQL" } else { "SQLite" };
    println!(
        "burst: {prs} pull requests of one installation over {REPOS} repositories, delivered in {:.1} s, a simulated \
         GitHub answering after {} ms, no secondary limits on either side ({workers} workers, {engine})",
        delivered.as_secs_f64(),
        latency.as_millis()
    );
    match settled {
        Some(at) => println!("  settled after {:.1} s", at.as_secs_f64()),
        None => println!("  not settled after {} s", DEADLINE.as_secs()),
    }
    println!("  jobs: {counts:?}; writes {}; requests {}", sim.content_writes(), sim.requests().len());
    if kills > 0 {
        report_kills(&sim, prs, kills, &interrupted.lock().unwrap(), &reviewed_after.lock().unwrap());
    }
    running.kill();
    if let (Some(url), Some(schema)) = (&database_url, &config.database_schema) {
        // The schema was the burst's alone.
        let pool = sqlx::PgPool::connect(url).await?;
        // The name is this process's own (`loadgen_burst_` and its id).
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE"))).execute(&pool).await?;
    }
    Ok(())
}

/// Kills the App mid-job and starts it again on the same database; notes
/// the pull requests whose job was running.
async fn kill_and_restart(
    running: Running,
    config: &AppConfig,
    interrupted: &Mutex<BTreeMap<u64, Instant>>,
) -> Result<Running> {
    let running_jobs = running_deliveries(config).await?;
    running.kill();
    let at = Instant::now();
    // A job the first kill interrupted may still wait for its lease at the
    // second: its wait counts from the first.
    {
        let mut interrupted = interrupted.lock().unwrap();
        for n in running_jobs {
            interrupted.entry(n).or_insert(at);
        }
    }
    app::start(config.clone()).await
}

/// The pull requests whose job is running, by their delivery (`burst-{n}`),
/// read from the App's table of jobs.
async fn running_deliveries(config: &AppConfig) -> Result<Vec<u64>> {
    const RUNNING: &str = "SELECT delivery FROM gh_jobs WHERE state = 'running'";
    let deliveries: Vec<String> = match &config.database_schema {
        Some(schema) => {
            let pool = sqlx::PgPool::connect(&config.database_url).await?;
            // The schema is this process's own (`loadgen_burst_` and its id).
            let sql = format!("SELECT delivery FROM {schema}.gh_jobs WHERE state = 'running'");
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_all(&pool).await?
        }
        None => {
            let pool = sqlx::SqlitePool::connect(&config.database_url).await?;
            sqlx::query_scalar(RUNNING).fetch_all(&pool).await?
        }
    };
    Ok(deliveries.iter().filter_map(|d| d.strip_prefix("burst-")?.parse().ok()).collect())
}

/// Notes when each interrupted pull request got its review.
async fn watch_reviews(
    sim: Arc<Sim>,
    interrupted: Arc<Mutex<BTreeMap<u64, Instant>>>,
    reviewed_after: Arc<Mutex<BTreeMap<u64, Duration>>>,
) {
    loop {
        note_reviews(&sim, &interrupted, &reviewed_after);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Notes the interrupted pull requests reviewed since the last look.
fn note_reviews(
    sim: &Sim,
    interrupted: &Mutex<BTreeMap<u64, Instant>>,
    reviewed_after: &Mutex<BTreeMap<u64, Duration>>,
) {
    let waiting: Vec<(u64, Instant)> = {
        let seen = reviewed_after.lock().unwrap();
        interrupted.lock().unwrap().iter().filter(|(n, _)| !seen.contains_key(n)).map(|(n, t)| (*n, *t)).collect()
    };
    for (n, killed) in waiting {
        let (repo, number) = pull(n);
        if sim.reviews(&repo, number).iter().any(|r| r.user == "gatehouse[bot]") {
            reviewed_after.lock().unwrap().insert(n, killed.elapsed());
        }
    }
}

fn report_kills(
    sim: &Sim,
    prs: u64,
    kills: u32,
    interrupted: &BTreeMap<u64, Instant>,
    reviewed_after: &BTreeMap<u64, Duration>,
) {
    let (mut missing, mut twice) = (0, 0);
    for n in 0..prs {
        let (repo, number) = pull(n);
        match sim.reviews(&repo, number).iter().filter(|r| r.user == "gatehouse[bot]").count() {
            0 => missing += 1,
            1 => {}
            _ => twice += 1,
        }
    }
    let runs = sim.all_check_runs();
    let mut seen = BTreeSet::new();
    let duplicated = runs.iter().filter(|r| !seen.insert((&r.repo, &r.head_sha, &r.external_id))).count();
    let open = runs.iter().filter(|r| r.status != "completed").count();
    println!(
        "  killed {kills} times: reviews missing {missing}, posted twice {twice}; check runs duplicated {duplicated}, \
         left open {open}"
    );
    let mut waits: Vec<Duration> = reviewed_after.values().copied().collect();
    waits.sort();
    if waits.is_empty() {
        println!("  no pull request's job was running at a kill");
        return;
    }
    println!(
        "  {} pull requests were mid-job at a kill, {} reviewed since: kill to review p50 {:.0} ms, max {:.0} ms",
        interrupted.len(),
        waits.len(),
        ms(percentile(&waits, 0.5)),
        ms(*waits.last().unwrap())
    );
}
