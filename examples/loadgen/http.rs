//! **http**: a separate `gatehouse serve` process (or any receiver at
//! `--target`, such as a Node `@octokit/webhooks` one) driven over HTTP as
//! a load balancer drives it: keep-alive connections, every request a
//! distinct signed `pull_request.opened` body of about 28 KB with a
//! distinct delivery id. A fresh server (and database) per concurrency.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use gatehouse::webhook::signature;
use gatehouse_sim::Sim;

use super::client::send;
use super::served::Served;
use super::{Args, Delivery, REPOS, SECRET, WARM_UP, ms, one_brief_pr, percentile};

/// Where the load goes.
pub enum Target {
    /// `gatehouse serve` from this binary, started per concurrency.
    Serve(PathBuf),
    /// A receiver already listening at this URL.
    Url(String),
}

/// Opens `count` PRs and signs a GitHub-sized `pull_request.opened` body
/// for each (the PR's description fills it out).
fn deliveries(sim: &Sim, first: usize, count: usize) -> Result<Vec<Delivery>> {
    (first..first + count)
        .map(|n| {
            let repo = format!("load/repo-{}", n % REPOS);
            let number = (n / REPOS + 1) as u64;
            let (base, head) = one_brief_pr(n);
            sim.open_pr(&repo, number, base, head, "One brief.");
            let event = sim.pull_request_event(&repo, number, "opened");
            let body = super::payload::github_sized(event, &repo, n);
            let signature = signature::sign(SECRET.as_bytes(), &body);
            Ok(Delivery { id: super::delivery_id(n), body: body.into(), signature })
        })
        .collect()
}

struct Run {
    concurrency: usize,
    latencies: Vec<std::time::Duration>,
    elapsed: std::time::Duration,
    not_202: usize,
    body_bytes: usize,
    /// The server's peak resident set, when this run started it.
    peak_rss: Option<u64>,
}

async fn run(args: &Args, target: &Target, concurrency: usize) -> Result<Run> {
    let sim = super::github().await?;
    if !args.github_latency.is_zero() {
        sim.set_faults(gatehouse_sim::Faults { slow_next: u32::MAX, delay: args.github_latency, ..Default::default() });
    }
    let warm_up = deliveries(&sim, 0, WARM_UP)?;
    let measured = deliveries(&sim, WARM_UP, args.deliveries)?;
    let body_bytes = measured.iter().map(|d| d.body.len()).sum::<usize>() / measured.len().max(1);
    let served = match target {
        Target::Serve(binary) => {
            let dir = tempfile::tempdir()?;
            if args.history > 0 {
                super::history::fill(&super::served::database(dir.path()), args.history).await?;
            }
            Some(Served::start(binary, dir, &sim.url(), args.workers, &[])?)
        }
        Target::Url(_) => None,
    };
    let url = match (&served, target) {
        (Some(served), _) => format!("http://{}/webhook", served.addr),
        (None, Target::Url(url)) => url.clone(),
        (None, Target::Serve(_)) => unreachable!("started above"),
    };
    let (_, warm_up_failed) = send(&url, concurrency, warm_up).await?;
    if warm_up_failed > 0 {
        bail!("{warm_up_failed} warm-up deliveries to {url} were not answered 202");
    }
    let started = Instant::now();
    let (mut latencies, not_202) = send(&url, concurrency, measured).await?;
    let elapsed = started.elapsed();
    latencies.sort();
    let peak_rss = served.as_ref().map(|s| s.memory("VmHWM")).transpose()?;
    Ok(Run { concurrency, latencies, elapsed, not_202, body_bytes, peak_rss })
}

pub fn main(client: &tokio::runtime::Runtime, args: &Args, target: &Target) -> Result<()> {
    let mut runs = Vec::new();
    for &concurrency in &args.concurrency {
        runs.push(client.block_on(run(args, target, concurrency))?);
    }
    let to = match target {
        Target::Serve(binary) => format!(
            "{} serve (SQLite, synchronous=FULL group commit, {} workers against the simulated GitHub answering in {} ms{})",
            binary.display(),
            args.workers,
            args.github_latency.as_millis(),
            match args.history {
                0 => String::new(),
                n => format!("; the database holding {n} earlier deliveries, their jobs done"),
            }
        ),
        Target::Url(url) => url.clone(),
    };
    println!(
        "http: {} distinct signed pull_request.opened deliveries per row ({} bytes each on average, after {WARM_UP} unmeasured) to {to}",
        args.deliveries,
        runs.first().map_or(0, |r| r.body_bytes)
    );
    println!(
        "{:>5} {:>8} {:>8} {:>9} {:>8} {:>12} {:>7} {:>13}",
        "conns", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "deliveries/s", "not 202", "peak RSS MiB"
    );
    for run in &runs {
        let l = &run.latencies;
        println!(
            "{:>5} {:>8.2} {:>8.2} {:>9.2} {:>8.2} {:>12.0} {:>7} {:>13}",
            run.concurrency,
            ms(percentile(l, 0.50)),
            ms(percentile(l, 0.99)),
            ms(percentile(l, 0.999)),
            ms(l.last().copied().unwrap_or_default()),
            l.len() as f64 / run.elapsed.as_secs_f64(),
            run.not_202,
            run.peak_rss.map_or("-".to_string(), |b| (b >> 20).to_string()),
        );
    }
    Ok(())
}
