//! Load generator for the App.
//!
//! `cargo run --release --example loadgen` runs two benchmarks:
//! - **ack**: starts the App as a child process (`gatehouse serve` on SQLite in a
//!   temporary folder, GitHub simulated), sends 20,000 signed deliveries at
//!   concurrency 64 and prints p50/p99 ack latency, throughput, lost deliveries
//!   and the server's peak RSS. Budget: p99 < 10 ms, ≥ 2,000/s, none lost,
//!   RSS < 100 MB.
//! - **e2e**: PR opened → every check run completed on the simulated GitHub, for
//!   a 10-document PR, 50 times; prints p50 and p99. Budget: p50 < 50 ms.
//!
//! `--deliveries N`, `--concurrency N`, `--target URL` (an App already running,
//! signed with `GATEHOUSE_WEBHOOK_SECRET`), `--only ack|e2e`,
//! `--github-latency-ms N` (how slowly the simulated GitHub answers the
//! workers during the ack run; default 50, 0 makes the workers DB-bound).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use gatehouse::app::{self, AppConfig};
use gatehouse::github::Token;
use gatehouse::sim::{Sim, Tree};
use gatehouse::webhook::{Secrets, signature};

const SECRET: &str = "loadgen-secret";
const APP_ID: u64 = 1;
const INSTALLATION: u64 = 1;
const PRIVATE_KEY: &str = include_str!("../fixtures/app/test-app-key.pem");
const PUBLIC_KEY: &str = include_str!("../fixtures/app/test-app-key.pub.pem");

struct Args {
    deliveries: usize,
    concurrency: usize,
    target: Option<String>,
    only: Option<String>,
    serve: bool,
    /// How long the simulated GitHub takes to answer (GitHub itself: tens to
    /// hundreds of milliseconds).
    github_latency: Duration,
}

fn args() -> Result<Args> {
    let mut args = Args {
        deliveries: 20_000,
        concurrency: 64,
        target: None,
        only: None,
        serve: false,
        github_latency: Duration::from_millis(50),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--deliveries" => args.deliveries = it.next().context("--deliveries N")?.parse()?,
            "--concurrency" => args.concurrency = it.next().context("--concurrency N")?.parse()?,
            "--target" => args.target = Some(it.next().context("--target URL")?),
            "--only" => args.only = Some(it.next().context("--only ack|e2e")?),
            "--serve" => args.serve = true,
            "--github-latency-ms" => {
                args.github_latency = Duration::from_millis(it.next().context("--github-latency-ms N")?.parse()?)
            }
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(args)
}

fn main() -> Result<()> {
    let args = args()?;
    if args.serve {
        // The child: `gatehouse serve` from the environment.
        return app::serve(AppConfig::from_env()?);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    if args.only.as_deref() != Some("e2e") {
        runtime.block_on(ack(&args))?;
    }
    if args.only.as_deref() != Some("ack") {
        runtime.block_on(e2e())?;
    }
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// CPU seconds (user + system) a process used, from /proc (Linux).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at ") ".
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Peak resident set of a process, from /proc (Linux).
fn peak_rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn spawn_server(db: &str, api: &str) -> Result<Server> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = Command::new(std::env::current_exe()?)
        .arg("--serve")
        .env("GATEHOUSE_APP_ID", APP_ID.to_string())
        .env("GATEHOUSE_PRIVATE_KEY", PRIVATE_KEY)
        .env("GATEHOUSE_WEBHOOK_SECRET", SECRET)
        .env("GATEHOUSE_DATABASE_URL", db)
        .env("GATEHOUSE_BIND", format!("127.0.0.1:{port}"))
        .env("GATEHOUSE_GITHUB_API_URL", api)
        // Every job fails by design (the simulated GitHub knows no repo): keep logs quiet.
        .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "off".into()))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start the server")?;
    let url = format!("http://127.0.0.1:{port}");
    let server = Server { child, url };
    for _ in 0..200 {
        if reqwest::get(format!("{}/readyz", server.url)).await.is_ok_and(|r| r.status().is_success()) {
            return Ok(server);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bail!("the server did not become ready")
}

async fn ack(args: &Args) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let db = format!("sqlite://{}", dir.path().join("loadgen.db").display());
    // The workers talk to a simulated GitHub that knows no repository: each
    // job is claimed, read (404) and recorded as failed — real store load.
    let sim = Sim::start(APP_ID, PUBLIC_KEY.as_bytes(), INSTALLATION).await?;
    if !args.github_latency.is_zero() {
        sim.set_faults(gatehouse::sim::Faults {
            slow_next: u32::MAX,
            delay: args.github_latency,
            ..Default::default()
        });
    }
    let server = match &args.target {
        Some(_) => None,
        None => Some(spawn_server(&db, &sim.url()).await?),
    };
    let target = match (&args.target, &server) {
        (Some(url), _) => url.trim_end_matches('/').to_string(),
        (None, Some(server)) => server.url.clone(),
        (None, None) => unreachable!("a server is spawned when no target is given"),
    };
    let secret = match &args.target {
        Some(_) => std::env::var("GATEHOUSE_WEBHOOK_SECRET").context("--target needs GATEHOUSE_WEBHOOK_SECRET")?,
        None => SECRET.to_string(),
    };
    let client = reqwest::Client::builder().pool_max_idle_per_host(args.concurrency).build()?;
    let per_task = args.deliveries.div_ceil(args.concurrency);
    println!(
        "ack: {} signed deliveries at concurrency {} to {target} (GitHub answering in {} ms)",
        args.deliveries,
        args.concurrency,
        args.github_latency.as_millis()
    );
    let started = Instant::now();
    let mut tasks = Vec::new();
    let secret = Arc::new(secret);
    for task in 0..args.concurrency {
        let (client, target, secret) = (client.clone(), format!("{target}/webhook"), secret.clone());
        let count = per_task.min(args.deliveries.saturating_sub(task * per_task));
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(count);
            let mut failed = 0usize;
            for i in 0..count {
                let n = task * per_task + i;
                let body = serde_json::to_vec(&serde_json::json!({
                    "action": "opened", "number": n + 1,
                    "pull_request": { "number": n + 1, "head": { "sha": format!("{n:040x}") } },
                    "repository": { "full_name": format!("load/repo-{}", n % 50) },
                    "installation": { "id": INSTALLATION },
                }))
                .expect("json");
                let sig = signature::sign(secret.as_bytes(), &body);
                let sent = Instant::now();
                let response = client
                    .post(&target)
                    .header("x-github-event", "pull_request")
                    .header("x-github-delivery", format!("load-{n}"))
                    .header("x-hub-signature-256", sig)
                    .body(body)
                    .send()
                    .await;
                latencies.push(sent.elapsed());
                if !response.is_ok_and(|r| r.status().as_u16() == 202) {
                    failed += 1;
                }
            }
            (latencies, failed)
        }));
    }
    let mut latencies = Vec::with_capacity(args.deliveries);
    let mut failed = 0;
    for task in tasks {
        let (l, f) = task.await?;
        latencies.extend(l);
        failed += f;
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let store = gatehouse::store::Store::connect(&db).await;
    let stored = match (&args.target, store) {
        (None, Ok(store)) => Some(store.deliveries().await?),
        _ => None,
    };
    println!("  p50 ack      {:.2} ms", percentile(&latencies, 0.50).as_secs_f64() * 1e3);
    println!("  p99 ack      {:.2} ms", percentile(&latencies, 0.99).as_secs_f64() * 1e3);
    println!("  throughput   {:.0} deliveries/s", latencies.len() as f64 / elapsed.as_secs_f64());
    println!("  not 202      {failed}");
    if let Some(stored) = stored {
        println!("  lost         {} (stored {stored} of {})", latencies.len() as i64 - stored, latencies.len());
    }
    if let Some(rss) = server.as_ref().and_then(|s| peak_rss_mb(s.child.id())) {
        println!("  peak RSS     {rss:.1} MB (server process)");
    }
    if let Some(cpu) = server.as_ref().and_then(|s| cpu_seconds(s.child.id())) {
        println!("  server CPU   {cpu:.2} s over {:.2} s wall (receiver and workers)", elapsed.as_secs_f64());
    }
    Ok(())
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
    let sim = Sim::start(APP_ID, PUBLIC_KEY.as_bytes(), INSTALLATION).await?;
    let dir = tempfile::tempdir()?;
    let mut config = AppConfig::new(APP_ID, Token::new(PRIVATE_KEY), Secrets::parse(SECRET));
    config.database_url = format!("sqlite://{}", dir.path().join("e2e.db").display());
    config.bind = "127.0.0.1:0".parse()?;
    config.api_url = sim.url();
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
