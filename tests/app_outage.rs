//! Outages that outlast a call's retries: 401s while minting tokens, and
//! GitHub not answering at all while deliveries keep arriving. (The test
//! configuration shortens the probe interval and the job backoff.)

mod common;

use std::sync::Arc;

use common::*;
use gatehouse_sim::{Faults, Tree};

const REPO: &str = "acme/docs";

fn with_brief(estimate: u32) -> Tree {
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", estimate).into_bytes());
    head
}

async fn metrics(app: &gatehouse::app::Running) -> String {
    reqwest::get(format!("http://{}/metrics", app.addr)).await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn a_run_of_401s_on_the_token_is_retried_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_faults(Faults { status_next: 5, status: 401, only: "access_tokens".into(), ..Faults::default() });
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 1, base(), with_brief(40), "A change.");
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "d-401", &payload).await, 202);
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &pr.head_sha);
    assert_eq!(runs.len(), gatehouse::publish::check_names().len(), "evaluated once GitHub took the key");
    assert!(runs.iter().all(|r| r.status == "completed"));
    let text = metrics(&app).await;
    assert!(text.contains("gatehouse_github_unauthorized_total{stage=\"token\"} 5"), "{text}");
    app.kill();
}

#[tokio::test]
async fn endless_401s_end_the_job_after_a_bounded_number_of_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_faults(Faults { status_next: u32::MAX, status: 401, only: "access_tokens".into(), ..Faults::default() });
    let config = config(&Db::sqlite(&dir), &sim.url());
    let bound = config.retry.unauthorized_attempts;
    let app = start_app(config).await;
    sim.open_pr(REPO, 1, base(), with_brief(40), "A change.");
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "d-401", &payload).await, 202);
    jobs_idle(&app.store).await;
    let jobs = app.store.jobs().await.unwrap();
    assert_eq!((jobs[0].1.as_str(), jobs[0].2), ("failed", bound), "{jobs:?}");
    let text = metrics(&app).await;
    assert!(text.contains(&format!("gatehouse_github_unauthorized_total{{stage=\"token\"}} {bound}")), "{text}");
    app.kill();
}

/// 10,000 deliveries for 100 PRs while GitHub answers nothing but 500s:
/// every one acknowledged, a few dozen calls to GitHub meanwhile, then each
/// PR evaluated once, at its newest head.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_deliveries_during_an_outage() {
    const PRS: u64 = 100;
    const PER_PR: u64 = 100;
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.retry.probe_interval_max = std::time::Duration::from_secs(5);
    // A hundred PRs' checks are more writes than GitHub.com takes in an hour.
    without_secondary_limits(&sim, &mut config);
    let app = start_app(config).await;
    let mut first_heads = Vec::new();
    for number in 1..=PRS {
        first_heads.push(sim.open_pr(REPO, number, base(), with_brief(40), "A change.").head_sha);
    }
    sim.set_faults(Faults { fail_next: u32::MAX, ..Faults::default() });
    sim.clear_requests();
    let client = reqwest::Client::new();
    let semaphore = Arc::new(tokio::sync::Semaphore::new(64));
    let mut sends = tokio::task::JoinSet::new();
    let mut newest = Vec::new();
    for round in 0..PER_PR {
        if round == PER_PR / 2 {
            // Half-way, every PR gets a new head.
            newest = (1..=PRS).map(|n| sim.push(REPO, n, with_brief(41 + n as u32))).collect();
        }
        for number in 1..=PRS {
            // Each event's own body, as GitHub's differ (an identical body is a replay).
            let mut event = sim.pull_request_event(REPO, number, "synchronize");
            event["pull_request"]["updated_at"] = format!("2026-11-30T10:{:02}:{:02}Z", round / 60, round % 60).into();
            let body = serde_json::to_vec(&event).unwrap();
            let signature = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &body);
            let request = client
                .post(format!("http://{}/webhook", app.addr))
                .header("x-github-event", "pull_request")
                .header("x-github-delivery", format!("outage-{round}-{number}"))
                .header("x-hub-signature-256", signature)
                .body(body);
            let permit = semaphore.clone().acquire_owned().await.unwrap();
            sends.spawn(async move {
                let status = request.send().await.expect("the receiver answers").status().as_u16();
                drop(permit);
                status
            });
        }
    }
    while let Some(status) = sends.join_next().await {
        assert_eq!(status.unwrap(), 202, "every delivery is acknowledged during the outage");
    }
    let during = sim.requests();
    eprintln!("{} calls to GitHub during the outage", during.len());
    assert!(during.len() <= 40, "{} calls to GitHub during the outage: {during:#?}", during.len());
    assert!(metrics(&app).await.contains("gatehouse_github_down 1"));
    sim.set_faults(Faults::default());
    jobs_idle(&app.store).await;
    assert_eq!(app.store.deliveries().await.unwrap(), (PRS * PER_PR) as i64, "none lost");
    let counts = app.store.job_counts().await.unwrap();
    assert_eq!((counts.failed, counts.queued, counts.running), (0, 0, 0), "{counts:?}");
    let names = gatehouse::publish::check_names();
    for (n, (old, new)) in first_heads.iter().zip(&newest).enumerate() {
        assert!(sim.check_runs(REPO, old).is_empty(), "PR {}: its replaced head was not evaluated", n + 1);
        let runs = sim.check_runs(REPO, new);
        assert_eq!(runs.len(), names.len(), "PR {}: one evaluation at its newest head", n + 1);
        assert!(runs.iter().all(|r| r.status == "completed"));
    }
    assert!(metrics(&app).await.contains("gatehouse_github_down 0"));
    app.kill();
}
