//! Load generator for the App.
//!
//! `cargo run --release --example loadgen` runs two benchmarks:
//! - **ack**: the App as `gatehouse serve` runs it (`app::start` on a runtime
//!   of its own, SQLite in a temporary folder, 4 workers) with its workers
//!   evaluating for real against the simulated GitHub, which holds one open
//!   PR per delivery. Signed `pull_request.opened` deliveries, each with a
//!   fresh delivery id, are sent at 8 and then at 64 connections (a fresh
//!   database each); a table gives p50/p99/p99.9/max ack latency,
//!   throughput, deliveries not acknowledged or lost, jobs the workers
//!   finished meanwhile, and where the store's write time went (group
//!   commits and their fsyncs, write-lock waits and holds). Budget:
//!   p99 < 10 ms at both, none lost.
//! - **e2e**: PR opened → every check run completed on the simulated GitHub, for
//!   a 10-document PR, 50 times; prints p50 and p99. Budget: p50 < 50 ms.
//!
//!
//! Two more, run only when asked, drive `gatehouse serve` as a process of
//! its own (the release binary: `cargo build --release` first):
//! - **http** (`--only http`): see [`http`]; `--target URL` drives any
//!   other receiver with the same bodies instead.
//! - **flood** (`--flood N`): see [`flood`].
//!
//! And one more in this process, when asked:
//! - **feedback** (`--only feedback`): see [`feedback`]; `--prs N`,
//!   `--github-latency-ms N` (default 100 here).
//! - **burst** (`--only burst`): see [`burst`]; `--prs N` (default 2,000),
//!   `--github-latency-ms N` (default 20 here), `--kills N`,
//!   `--database-url URL`.
//!
//! `--deliveries N` (per concurrency, after 1,000 unmeasured),
//! `--concurrency N` (repeatable; default 8 and 64), `--workers N`,
//! `--only ack|e2e|http`, `--github-latency-ms N` (how slowly the simulated
//! GitHub answers the workers; default 0: the workers are as busy as they
//! can be), `--target URL`, `--serve-bin PATH` (default
//! target/release/gatehouse), `--history N` (see [`history`]), `--flood N`,
//! `--flood-secs N` (default 20).

mod burst;
mod client;
mod feedback;
mod flood;
mod history;
mod http;
mod payload;
mod served;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::body::Bytes;
use gatehouse::app::{self, AppConfig};
use gatehouse::github::Token;
use gatehouse::store::{JobCounts, StoreStats};
use gatehouse::webhook::{Secrets, signature};
use gatehouse_sim::{Sim, Tree};

const SECRET: &str = "loadgen-secret";
const APP_ID: u64 = 1;
const INSTALLATION: u64 = 1;
const PRIVATE_KEY: &str = include_str!("../../fixtures/app/test-app-key.pem");
const PUBLIC_KEY: &str = include_str!("../../fixtures/app/test-app-key.pub.pem");
/// Deliveries sent at each concurrency before measuring (connections
/// opened, caches and the database warm).
const WARM_UP: usize = 1_000;
/// The PRs are spread over this many repositories.
const REPOS: usize = 20;

struct Args {
    deliveries: usize,
    concurrency: Vec<usize>,
    workers: usize,
    only: Option<String>,
    /// How long the simulated GitHub takes to answer (GitHub itself: tens to
    /// hundreds of milliseconds).
    github_latency: Duration,
    target: Option<String>,
    serve_bin: std::path::PathBuf,
    flood: Option<usize>,
    flood_secs: u64,
    /// Earlier deliveries the http mode's database holds when it starts.
    history: usize,
    /// Pull requests per scenario of the feedback mode.
    prs: u64,
    /// How often the burst kills the App mid-way.
    kills: u32,
    /// The burst's database, when not SQLite in a temporary folder.
    database_url: Option<String>,
    /// Whether `--github-latency-ms` and `--prs` were given.
    latency_given: bool,
    prs_given: bool,
}

fn args() -> Result<Args> {
    let mut args = Args {
        deliveries: 20_000,
        concurrency: Vec::new(),
        workers: 4,
        only: None,
        github_latency: Duration::ZERO,
        target: None,
        serve_bin: served::default_binary(),
        flood: None,
        flood_secs: 20,
        history: 0,
        prs: 10,
        kills: 0,
        database_url: None,
        latency_given: false,
        prs_given: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--deliveries" => args.deliveries = it.next().context("--deliveries N")?.parse()?,
            "--concurrency" => args.concurrency.push(it.next().context("--concurrency N")?.parse()?),
            "--workers" => args.workers = it.next().context("--workers N")?.parse()?,
            "--only" => args.only = Some(it.next().context("--only ack|e2e|http|feedback|burst")?),
            "--target" => args.target = Some(it.next().context("--target URL")?),
            "--serve-bin" => args.serve_bin = it.next().context("--serve-bin PATH")?.into(),
            "--flood" => args.flood = Some(it.next().context("--flood N")?.parse()?),
            "--flood-secs" => args.flood_secs = it.next().context("--flood-secs N")?.parse()?,
            "--history" => args.history = it.next().context("--history N")?.parse()?,
            "--kills" => args.kills = it.next().context("--kills N")?.parse()?,
            "--database-url" => args.database_url = Some(it.next().context("--database-url URL")?),
            "--prs" => {
                args.prs = it.next().context("--prs N")?.parse()?;
                args.prs_given = true;
            }
            "--github-latency-ms" => {
                args.github_latency = Duration::from_millis(it.next().context("--github-latency-ms N")?.parse()?);
                args.latency_given = true;
            }
            other => bail!("unknown argument {other}"),
        }
    }
    if args.concurrency.is_empty() {
        args.concurrency = vec![8, 64];
    }
    if args.history > 0 && (args.only.as_deref() != Some("http") || args.target.is_some()) {
        bail!("--history N fills the database of the http mode's gatehouse serve: use it with --only http");
    }
    if (args.kills > 0 || args.database_url.is_some()) && args.only.as_deref() != Some("burst") {
        bail!("--kills and --database-url are the burst's: use them with --only burst");
    }
    if args.concurrency.contains(&0) || args.workers == 0 {
        bail!("--concurrency and --workers must be at least 1");
    }
    Ok(args)
}

fn main() -> Result<()> {
    let args = args()?;
    // The load and the simulated GitHub run here; the App on a runtime of
    // its own, built as `gatehouse serve` builds it.
    let client = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    if let Some(connections) = args.flood {
        return client.block_on(flood::main(&args.serve_bin, connections, args.flood_secs));
    }
    if args.only.as_deref() == Some("burst") {
        let latency = if args.latency_given { args.github_latency } else { Duration::from_millis(20) };
        let prs = if args.prs_given { args.prs } else { 2_000 };
        let options = burst::Options {
            latency,
            prs: prs.max(1),
            workers: args.workers,
            kills: args.kills,
            database_url: args.database_url.clone(),
        };
        return client.block_on(burst::main(options));
    }
    if args.only.as_deref() == Some("feedback") {
        let latency = if args.latency_given { args.github_latency } else { Duration::from_millis(100) };
        return client.block_on(feedback::main(latency, args.prs.max(1), args.workers));
    }
    if args.only.as_deref() == Some("http") || args.target.is_some() {
        let target = match &args.target {
            Some(url) => http::Target::Url(url.clone()),
            None => http::Target::Serve(args.serve_bin.clone()),
        };
        return http::main(&client, &args, &target);
    }
    if args.only.as_deref() != Some("e2e") {
        let mut runs = Vec::new();
        for &concurrency in &args.concurrency {
            runs.push(ack(&client, &args, concurrency)?);
        }
        print_ack(&args, &runs);
    }
    if args.only.as_deref() != Some("ack") {
        client.block_on(e2e())?;
    }
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// One signed delivery, ready to send.
struct Delivery {
    id: String,
    body: Bytes,
    signature: String,
}

/// A PR adding one brief over a base with an ADR: every rule family runs on it.
fn one_brief_pr(n: usize) -> (Tree, Tree) {
    let (base, mut head) = ten_document_pr(n);
    head.retain(|path, _| !path.contains("/briefs/") || path.ends_with("SWARM-A0-brief.md"));
    (base, head)
}

/// The `n`th delivery's `X-GitHub-Delivery`: a GUID as GitHub makes them, a
/// time-based (version 1) UUID (the example in GitHub's REST description of
/// a hook delivery, `58474f00-b361-11eb-836d-0e4f3503ccbe`, reads as the
/// 100-nanosecond count of its `delivered_at`), here for deliveries 100 µs
/// apart from 2026-12-01T00:00:00Z, so that runs repeat. Their first field
/// is the count's low 32 bits, so ids made close together sort close
/// together in the store's delivery-id index, as GitHub's do.
fn delivery_id(n: usize) -> String {
    guid(FIRST_TICKS + n as u64 * 1_000)
}

/// 100-ns intervals from 1582-10-15 (the UUID epoch) to 2026-12-01.
const FIRST_TICKS: u64 = 0x1f1_ed1a_26bc_4000;

/// A time-based GUID at `ticks` 100-ns intervals from the UUID epoch.
fn guid(ticks: u64) -> String {
    format!(
        "{:08x}-{:04x}-1{:03x}-9b1e-5f0c2a7d4e81",
        ticks & 0xffff_ffff,
        (ticks >> 32) & 0xffff,
        (ticks >> 48) & 0x0fff
    )
}

/// Opens `count` PRs on the simulated GitHub and signs a `pull_request.opened`
/// delivery for each, the `first`th delivery's id first.
fn deliveries(sim: &Sim, first: usize, count: usize) -> Result<Vec<Delivery>> {
    (first..first + count)
        .map(|n| {
            let repo = format!("load/repo-{}", n % REPOS);
            let number = (n / REPOS + 1) as u64;
            let (base, head) = one_brief_pr(n);
            sim.open_pr(&repo, number, base, head, "One brief.");
            let body = serde_json::to_vec(&sim.pull_request_event(&repo, number, "opened"))?;
            let signature = signature::sign(SECRET.as_bytes(), &body);
            Ok(Delivery { id: delivery_id(n), body: body.into(), signature })
        })
        .collect()
}

/// One concurrency's figures.
struct AckRun {
    concurrency: usize,
    /// Sorted.
    latencies: Vec<Duration>,
    elapsed: Duration,
    not_202: usize,
    lost: i64,
    jobs: JobCounts,
    /// Counted over the measured deliveries only.
    store: StoreStats,
}

/// The App as `gatehouse serve` configures it, on SQLite at `db`, with the
/// simulated GitHub as its GitHub, both as an instance without secondary
/// limits (GitHub Enterprise Server's default): a flood of one installation
/// would otherwise measure the write budget instead of the App.
fn in_process(sim: &Sim, db: &std::path::Path) -> Result<AppConfig> {
    let mut config = AppConfig::new(APP_ID, Token::new(PRIVATE_KEY), Secrets::parse(SECRET));
    config.database_url = format!("sqlite://{}", db.display());
    config.bind = "127.0.0.1:0".parse()?;
    config.api_url = sim.url();
    config.budget = gatehouse::github::Budget::UNLIMITED;
    sim.set_secondary_limits(gatehouse_sim::SecondaryLimits::NONE);
    Ok(config)
}

/// The simulated GitHub of an organisation whose ruleset requires every
/// check of gatehouse's on `main`: a first evaluation writes them all, as
/// the figures in docs/performance.md count.
async fn github() -> Result<Sim> {
    let sim = Sim::start(APP_ID, PUBLIC_KEY.as_bytes(), INSTALLATION).await?;
    let names = gatehouse::publish::check_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    sim.require_checks_by_ruleset(None, "main", &names, Some(APP_ID));
    Ok(sim)
}

fn ack(client: &tokio::runtime::Runtime, args: &Args, concurrency: usize) -> Result<AckRun> {
    let server = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let dir = tempfile::tempdir()?;
    let sim = client.block_on(github())?;
    if !args.github_latency.is_zero() {
        sim.set_faults(gatehouse_sim::Faults { slow_next: u32::MAX, delay: args.github_latency, ..Default::default() });
    }
    let warm_up = deliveries(&sim, 0, WARM_UP)?;
    let measured = deliveries(&sim, WARM_UP, args.deliveries)?;
    let mut config = in_process(&sim, &dir.path().join("loadgen.db"))?;
    config.workers = args.workers;
    let running = server.block_on(app::start(config))?;
    let url = format!("http://{}/webhook", running.addr);
    let (_, warm_up_failed) = client.block_on(client::send(&url, concurrency, warm_up))?;
    if warm_up_failed > 0 {
        bail!("{warm_up_failed} warm-up deliveries were not acknowledged");
    }
    running.store.take_stats();
    let started = Instant::now();
    let (mut latencies, not_202) = client.block_on(client::send(&url, concurrency, measured))?;
    let elapsed = started.elapsed();
    let store = running.store.clone();
    let (stored, jobs, store) = server.block_on(async move {
        let stored = store.deliveries().await?;
        anyhow::Ok((stored, store.job_counts().await?, store.take_stats()))
    })?;
    running.kill();
    latencies.sort();
    let acknowledged = (WARM_UP + latencies.len() - not_202) as i64;
    Ok(AckRun { concurrency, latencies, elapsed, not_202, lost: acknowledged - stored, jobs, store })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_ack(args: &Args, runs: &[AckRun]) {
    println!(
        "ack: {} signed pull_request.opened deliveries per row (fresh ids, after {WARM_UP} unmeasured), SQLite \
         synchronous=FULL with group commit, {} workers evaluating against the simulated GitHub (answering in {} ms)",
        args.deliveries,
        args.workers,
        args.github_latency.as_millis()
    );
    println!(
        "{:>5} {:>8} {:>8} {:>9} {:>8} {:>12} {:>7} {:>5} {:>13}",
        "conns", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "deliveries/s", "not 202", "lost", "jobs finished"
    );
    for run in runs {
        let l = &run.latencies;
        println!(
            "{:>5} {:>8.2} {:>8.2} {:>9.2} {:>8.2} {:>12.0} {:>7} {:>5} {:>13}",
            run.concurrency,
            ms(percentile(l, 0.50)),
            ms(percentile(l, 0.99)),
            ms(percentile(l, 0.999)),
            ms(l.last().copied().unwrap_or_default()),
            l.len() as f64 / run.elapsed.as_secs_f64(),
            run.not_202,
            run.lost,
            run.jobs.done + run.jobs.failed + run.jobs.superseded,
        );
    }
    for run in runs {
        let s = &run.store;
        let per_commit = s.ack_deliveries as f64 / s.ack_commits.count.max(1) as f64;
        println!("store at {} connections (measured deliveries only):", run.concurrency);
        println!("  group commits, 1 WAL fsync each  {}  ({per_commit:.1} deliveries per commit)", s.ack_commits);
        println!("  WAL checkpoints after answering  {}", s.checkpoints);
        println!("  commits waiting for the lock     {}", s.ack_lock_waits);
        println!("  worker writes waiting            {}", s.worker_lock_waits);
        println!("  worker writes holding the lock   {}", s.worker_lock_holds);
    }
}

/// A PR adding ten briefs over a base with an ADR.
fn ten_document_pr(n: usize) -> (Tree, Tree) {
    let mut base = Tree::new();
    base.insert(
        "docs/adr/ADR-095-backups.md".into(),
        b"# ADR-095: Backups\n\nStatus: Accepted\n\nBackups go off-host.\n".to_vec(),
    );
    base.insert("scripts/backup.sh".into(), b"#!/bin/sh\n".to_vec());
    let mut head = base.clone();
    for i in 0..10 {
        let text = format!(
            "---\nagent: SWARM-A{i}\nrepos_touched: [load/e2e]\nadrs_referenced: [ADR-095]\nsuccess_criteria:\n  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"\nout_of_scope:\n  - restores\nlines_estimate: {}\n---\n\n# Brief {i}\n\nFollows ADR-095; edits `scripts/backup.sh`.\n",
            40 + n
        );
        head.insert(format!("dark-factory/briefs/SWARM-A{i}-brief.md"), text.into_bytes());
    }
    (base, head)
}

async fn e2e() -> Result<()> {
    const RUNS: usize = 50;
    let sim = github().await?;
    let dir = tempfile::tempdir()?;
    let config = in_process(&sim, &dir.path().join("e2e.db"))?;
    let running = app::start(config).await?;
    let client = reqwest::Client::new();
    let expected = gatehouse::publish::check_names().len();
    let mut times = Vec::with_capacity(RUNS);
    for n in 0..RUNS {
        let (base, head) = ten_document_pr(n);
        let pr = sim.open_pr("load/e2e", n as u64 + 1, base, head, "Ten briefs.");
        let body = serde_json::to_vec(&sim.pull_request_event("load/e2e", n as u64 + 1, "opened"))?;
        let started = Instant::now();
        client
            .post(format!("http://{}/webhook", running.addr))
            .header("x-github-event", "pull_request")
            .header("x-github-delivery", format!("e2e-{n}"))
            .header("x-hub-signature-256", signature::sign(SECRET.as_bytes(), &body))
            .body(body)
            .send()
            .await?;
        loop {
            let runs = sim.check_runs("load/e2e", &pr.head_sha);
            if runs.len() == expected && runs.iter().all(|r| r.status == "completed") {
                break;
            }
            if started.elapsed() > Duration::from_secs(30) {
                bail!("PR {n} was not evaluated within 30 s");
            }
            tokio::time::sleep(Duration::from_micros(500)).await;
        }
        times.push(started.elapsed());
    }
    times.sort();
    println!("e2e: PR opened → {expected} check runs completed, 10-document PR, {RUNS} runs");
    println!("  p50          {:.1} ms", percentile(&times, 0.50).as_secs_f64() * 1e3);
    println!("  p99          {:.1} ms", percentile(&times, 0.99).as_secs_f64() * 1e3);
    running.kill();
    Ok(())
}
