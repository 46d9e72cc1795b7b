//! `gatehouse demo`: the App end to end on this machine. Starts the simulated
//! GitHub with a demo pull request built from `fixtures/app/demo`, starts the
//! App on a SQLite file in a temporary folder, delivers the signed
//! `pull_request.opened` webhook, waits for the result and prints what the
//! PR author would see.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use gatehouse_sim::{Sim, tree_from_dir};

use crate::app::{self, AppConfig};
use crate::github::{RetryPolicy, Token};
use crate::plan::REVIEW_CHECK;
use crate::webhook::{Secrets, signature};

const APP_ID: u64 = 1;
const INSTALLATION: u64 = 1;
const REPO: &str = "acme/handbook";
const SECRET: &str = "demo-webhook-secret";
/// The throwaway key pair of `fixtures/app` (never a real App's key).
const PRIVATE_KEY: &str = include_str!("../fixtures/app/test-app-key.pem");
const PUBLIC_KEY: &str = include_str!("../fixtures/app/test-app-key.pub.pem");

fn fixtures() -> Result<PathBuf> {
    let candidates =
        [PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/app/demo"), PathBuf::from("fixtures/app/demo")];
    candidates
        .into_iter()
        .find(|p| p.is_dir())
        .context("the demo needs fixtures/app/demo: run it from a gatehouse checkout")
}

/// Runs the demo on its own runtime.
pub(crate) fn run() -> Result<()> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run_async())
}

/// Runs the demo on the caller's runtime.
pub(crate) async fn run_async() -> Result<()> {
    let dir = fixtures()?;
    let base = tree_from_dir(&dir.join("base"))?;
    let mut head = base.clone();
    head.extend(tree_from_dir(&dir.join("head"))?);
    let body = std::fs::read_to_string(dir.join("pr-body.md")).unwrap_or_default();

    let sim = Sim::start(APP_ID, PUBLIC_KEY.as_bytes(), INSTALLATION).await?;
    let pr = sim.open_pr(REPO, 1, base, head, &body);
    // The repository requires two of gatehouse's checks, as docs/operating.md shows: the App writes
    // those and the checks of the families the pull request touches.
    let required = ["gatehouse/briefs", REVIEW_CHECK];
    sim.require_checks_by_ruleset(Some(REPO), "main", &required, Some(APP_ID));
    let data = tempfile::tempdir()?;
    let mut config = AppConfig::new(APP_ID, Token::new(PRIVATE_KEY), Secrets::parse(SECRET));
    config.database_url = format!("sqlite://{}", data.path().join("gatehouse.db").display());
    config.bind = "127.0.0.1:0".parse()?;
    config.api_url = sim.url();
    config.retry = RetryPolicy { backoff: Duration::from_millis(50), ..RetryPolicy::default() };
    let running = app::start(config).await?;
    crate::cli::emit("gatehouse demo\n")?;
    crate::cli::emit(&format!("  simulated GitHub  {}\n", sim.url()))?;
    crate::cli::emit(&format!("  App               http://{} (SQLite in {})\n", running.addr, data.path().display()))?;
    crate::cli::emit(&format!("  required checks   {} (a ruleset on main)\n", required.join(", ")))?;
    crate::cli::emit(&format!("  pull request      {REPO}#1, head {}\n\n", &pr.head_sha[..7]))?;

    let payload = serde_json::to_vec(&sim.pull_request_event(REPO, 1, "opened"))?;
    let mut requests = sim.watch();
    let started = Instant::now();
    let status = reqwest::Client::new()
        .post(format!("http://{}/webhook", running.addr))
        .header("x-github-event", "pull_request")
        .header("x-github-delivery", "demo-delivery-1")
        .header("x-hub-signature-256", signature::sign(SECRET.as_bytes(), &payload))
        .body(payload)
        .send()
        .await?
        .status();
    crate::cli::emit(&format!("delivered pull_request.opened: HTTP {status}\n"))?;
    crate::cli::emit("the App's requests to GitHub, as they are answered:\n")?;

    loop {
        while let Ok(request) = requests.try_recv() {
            crate::cli::emit(&format!(
                "  {:>6} ms  {:<5} {} → {}\n",
                started.elapsed().as_millis(),
                request.method,
                request.path,
                request.status
            ))?;
        }
        let runs = sim.check_runs(REPO, &pr.head_sha);
        let counts = running.store.job_counts().await?;
        let settled = counts.queued + counts.running == 0;
        if settled && !runs.is_empty() && runs.iter().all(|r| r.status == "completed") {
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            bail!("the App did not finish within a minute");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    crate::cli::emit(&format!(
        "evaluated in {} ms, with {} writes to GitHub\n\n",
        started.elapsed().as_millis(),
        sim.content_writes()
    ))?;

    for run in sim.check_runs(REPO, &pr.head_sha) {
        let conclusion = run.conclusion.as_deref().unwrap_or("?");
        let mark = match conclusion {
            "success" => "✓",
            "failure" => "✗",
            _ => "○",
        };
        crate::cli::emit(&format!("{mark} {} — {conclusion}: {}\n", run.name, run.title))?;
        // The digest mark that ends a summary is an HTML comment GitHub does not show;
        // the rest is shown as a terminal shows markdown (tables as columns).
        let shown: Vec<&str> = run.summary.lines().filter(|l| !l.starts_with("<!--")).collect();
        for line in crate::render::markdown_for_terminal(&shown.join("\n")) {
            crate::cli::emit(&format!("    {line}\n"))?;
        }
        crate::cli::emit("\n")?;
    }
    let reviews = sim.reviews(REPO, 1);
    crate::cli::emit(&format!("review comments ({} review, event COMMENT):\n", reviews.len()))?;
    for review in &reviews {
        for comment in &review.comments {
            let first = crate::render::markdown_for_terminal(comment.body.lines().next().unwrap_or(""));
            let first = first.first().map_or("", String::as_str);
            crate::cli::emit(&format!("  {}:{}  {first}\n", comment.path, comment.line))?;
            // A suggested change is shown whole: it is what one click applies.
            let mut in_suggestion = false;
            for line in comment.body.lines() {
                let fence = line.starts_with("```");
                if fence && line.ends_with("suggestion") {
                    in_suggestion = true;
                }
                if in_suggestion {
                    crate::cli::emit(&format!("      {line}\n"))?;
                }
                if fence && !line.ends_with("suggestion") {
                    in_suggestion = false;
                }
            }
        }
        for line in review.body.lines().filter(|l| l.starts_with("- `")) {
            let visible = line.split(" <!--").next().unwrap_or(line);
            crate::cli::emit(&format!("  (outside the diff) {}\n", visible.trim_start_matches("- ")))?;
        }
    }
    running.shutdown().await;
    Ok(())
}
