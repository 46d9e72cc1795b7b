//! The faults of issue 5, each over real HTTP on loopback against the
//! simulated GitHub: 500s, secondary rate limits, timeouts, a restart
//! mid-job, two replicas, quick re-pushes, many annotations, huge PRs, forks.

mod common;

use std::time::Duration;

use common::*;
use gatehouse_sim::{Faults, Sim, Tree};

const REPO: &str = "acme/docs";

/// A brief citing a missing ADR: one inline comment expected.
fn failing_brief() -> String {
    brief("AR", 40).replace("[ADR-095]", "[ADR-095, ADR-404]").replace("Follows ADR-095", "Follows ADR-095 and ADR-404")
}

fn names() -> usize {
    gatehouse::publish::check_names().len()
}

async fn completed(sim: &Sim, sha: &str) {
    wait_for("every check run completed", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() >= names() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

/// One check run per name on `sha`, none left in progress.
fn assert_one_set(sim: &Sim, sha: &str) {
    let runs = sim.check_runs(REPO, sha);
    let mut seen: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    seen.sort();
    let before = seen.len();
    seen.dedup();
    assert_eq!(before, seen.len(), "duplicate check runs: {runs:#?}");
    assert_eq!(seen.len(), names());
    assert!(runs.iter().all(|r| r.status == "completed"));
}

async fn opened(sim: &Sim, app: &gatehouse::app::Running, number: u64, head: Tree, delivery: &str) -> String {
    let pr = sim.open_pr(REPO, number, base(), head, "A change.");
    let payload = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", delivery, &payload).await, 202);
    pr.head_sha
}

#[tokio::test]
async fn server_errors_are_retried_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_faults(Faults { fail_next: 4, ..Faults::default() });
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = opened(&sim, &app, 1, with_brief(&failing_brief()), "f-500").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    assert!(sim.requests().iter().filter(|r| r.status == 500).count() == 4);
    assert_one_set(&sim, &head);
    assert_eq!(sim.reviews(REPO, 1).len(), 1);
    assert_eq!(sim.threads(REPO, 1).len(), 1, "one comment for one finding");
    app.kill();
}

#[tokio::test]
async fn secondary_rate_limits_are_waited_out() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_faults(Faults { rate_limit_next: 2, retry_after_s: 1, only: "check-runs".into(), ..Faults::default() });
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = opened(&sim, &app, 1, with_brief(&failing_brief()), "f-429").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    let limited: Vec<_> = sim.requests().into_iter().filter(|r| r.status == 403).collect();
    assert_eq!(limited.len(), 2);
    assert_one_set(&sim, &head);
    assert_eq!(sim.threads(REPO, 1).len(), 1);
    app.kill();
}

#[tokio::test]
async fn an_exhausted_rate_limit_waits_for_its_reset() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_faults(Faults { exhaust_next: 1, only: "/files".into(), ..Faults::default() });
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = opened(&sim, &app, 1, with_brief(&failing_brief()), "f-reset").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    let files: Vec<u16> = sim.requests().iter().filter(|r| r.path.ends_with("/files")).map(|r| r.status).collect();
    assert_eq!(files, vec![403, 200], "refused once, then asked again after the reset");
    assert_one_set(&sim, &head);
    let metrics = reqwest::get(format!("http://{}/metrics", app.addr)).await.unwrap().text().await.unwrap();
    // Reads already in flight when the limit was answered get it too.
    let refused = sim.requests().iter().filter(|r| r.status == 403).count();
    assert!(metrics.contains(&format!("gatehouse_github_calls_total{{status=\"403\"}} {refused}")), "{metrics}");
    assert_eq!(sim.sent_while_limited(), 0, "nothing is sent before the reset");
    app.kill();
}

#[tokio::test]
async fn a_create_that_timed_out_is_looked_up_not_repeated() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    // The first create of a check run and of the review are applied, but answered too late.
    sim.set_faults(Faults {
        slow_next: 1,
        delay: Duration::from_millis(1500),
        only: "POST /repos".into(),
        ..Faults::default()
    });
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.retry.timeout = Duration::from_millis(500);
    let app = start_app(config).await;
    let head = opened(&sim, &app, 1, with_brief(&failing_brief()), "f-slow").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    assert_one_set(&sim, &head);
    let lookups = sim.requests().iter().filter(|r| r.method == "GET" && r.path.ends_with("/check-runs")).count();
    assert!(lookups >= 2, "the timed-out create was looked up before it was repeated");
    sim.set_faults(Faults {
        slow_next: 1,
        delay: Duration::from_millis(1500),
        only: "/reviews".into(),
        ..Faults::default()
    });
    let fixed = sim.push(REPO, 1, with_brief(&failing_brief().replace("Follows", "Builds on")));
    let payload = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", "f-slow-2", &payload).await, 202);
    completed(&sim, &fixed).await;
    jobs_idle(&app.store).await;
    let reviews = sim.reviews(REPO, 1);
    let on_fixed = reviews.iter().filter(|r| r.commit_id == fixed).count();
    assert!(on_fixed <= 1, "a review posted twice: {reviews:#?}");
    app.kill();
}

#[tokio::test]
async fn a_job_killed_mid_way_completes_once_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::sqlite(&dir);
    let sim = sim().await;
    // Reading the file list hangs: the job is caught mid-way.
    sim.set_faults(Faults { slow_next: 1, delay: Duration::from_secs(30), only: "/files".into(), ..Faults::default() });
    let mut first = config(&db, &sim.url());
    first.lease = Duration::from_millis(600);
    let app = start_app(first.clone()).await;
    let head = opened(&sim, &app, 1, with_brief(&failing_brief()), "f-crash").await;
    wait_for("the job to start", || sim.check_runs(REPO, &head).len() == names()).await;
    app.kill();
    sim.set_faults(Faults::default());
    let restarted = start_app(first).await;
    completed(&sim, &head).await;
    jobs_idle(&restarted.store).await;
    assert_one_set(&sim, &head);
    let jobs = restarted.store.jobs().await.unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!((jobs[0].1.as_str(), jobs[0].2), ("done", 2), "claimed twice, completed once");
    assert_eq!(sim.reviews(REPO, 1).len(), 1);
    restarted.kill();
}

#[tokio::test]
async fn two_replicas_on_postgres_process_each_job_once() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let a = start_app(config(&db, &sim.url())).await;
    let b = start_app(config(&db, &sim.url())).await;
    let mut heads = Vec::new();
    for n in 1..=8u64 {
        let text = brief("AR", 40 + n as u32);
        let pr = sim.open_pr(REPO, n, base(), with_brief(&text), "A change.");
        let payload = sim.pull_request_event(REPO, n, "opened");
        let replica = if n % 2 == 0 { &a } else { &b };
        assert_eq!(deliver(replica.addr, "pull_request", &format!("two-{n}"), &payload).await, 202);
        // GitHub may redeliver to the other replica: still one job.
        let other = if n % 2 == 0 { &b } else { &a };
        assert_eq!(deliver(other.addr, "pull_request", &format!("two-{n}"), &payload).await, 200);
        heads.push(pr.head_sha);
    }
    for head in &heads {
        completed(&sim, head).await;
    }
    jobs_idle(&a.store).await;
    for head in &heads {
        assert_one_set(&sim, head);
    }
    let jobs = a.store.jobs().await.unwrap();
    assert_eq!(jobs.len(), 8);
    assert!(jobs.iter().all(|(_, state, attempts)| state == "done" && *attempts == 1), "{jobs:?}");
    a.kill();
    b.kill();
}

#[tokio::test]
async fn three_quick_pushes_leave_the_newest_head_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut head = opened(&sim, &app, 1, with_brief(&failing_brief()), "push-0").await;
    for n in 1..=3 {
        let text = if n == 3 { brief("AR", 40) } else { failing_brief().replace("Backups", &format!("Backups {n}")) };
        head = sim.push(REPO, 1, with_brief(&text));
        let payload = sim.pull_request_event(REPO, 1, "synchronize");
        assert_eq!(deliver(app.addr, "pull_request", &format!("push-{n}"), &payload).await, 202);
    }
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    assert_one_set(&sim, &head);
    let briefs = sim.check_runs(REPO, &head).into_iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    assert_eq!(briefs.conclusion.as_deref(), Some("success"), "the newest head is the fixed one");
    assert!(sim.all_check_runs().iter().all(|r| r.status == "completed"), "no run left in progress on any head");
    assert!(sim.threads(REPO, 1).iter().all(|t| t.resolved), "the fixed finding's thread is resolved");
    app.kill();
}

#[tokio::test]
async fn more_than_fifty_annotations_are_all_delivered() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut text = brief("AR", 40);
    for i in 0..70 {
        text.push_str(&format!("\nStep {i} edits `missing/file-{i}.md`.\n"));
    }
    let head = opened(&sim, &app, 1, with_brief(&text), "many").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    let briefs = sim.check_runs(REPO, &head).into_iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    let missing = briefs.annotations.iter().filter(|a| a["title"] == "brief/path-missing").count();
    assert_eq!(missing, 70, "every finding annotated, 50 per request");
    assert_eq!(briefs.writes, 2, "created completed with 50, then the rest");
    app.kill();
}

#[tokio::test]
async fn annotation_updates_that_time_out_are_not_sent_twice() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    // The completing update and the next one are applied but answered too late.
    sim.set_faults(Faults {
        slow_next: 2,
        delay: Duration::from_millis(1500),
        only: "PATCH /repos/acme/docs/check-runs".into(),
        ..Faults::default()
    });
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.retry.timeout = Duration::from_millis(500);
    let app = start_app(config).await;
    let mut text = brief("AR", 40);
    for i in 0..120 {
        text.push_str(&format!("\nStep {i} edits `missing/file-{i}.md`.\n"));
    }
    let head = opened(&sim, &app, 1, with_brief(&text), "slow-annotations").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    for run in sim.check_runs(REPO, &head) {
        let mut seen: Vec<String> = run.annotations.iter().map(|a| a.to_string()).collect();
        let total = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), total, "{}: an annotation was sent twice", run.name);
    }
    let briefs = sim.check_runs(REPO, &head).into_iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    assert_eq!(briefs.annotations.iter().filter(|a| a["title"] == "brief/path-missing").count(), 120);
    app.kill();
}

#[tokio::test]
async fn a_pr_over_3000_files_fails_closed_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut head = with_brief(&brief("AR", 40));
    for i in 0..3001 {
        head.insert(format!("data/file-{i}.txt"), b"x\n".to_vec());
    }
    let head = opened(&sim, &app, 1, head, "huge").await;
    completed(&sim, &head).await;
    for run in sim.check_runs(REPO, &head) {
        assert_eq!(run.conclusion.as_deref(), Some("failure"), "{}", run.name);
        assert!(run.summary.contains("3002 files") && run.summary.contains("3000"), "{}", run.summary);
    }
    app.kill();
}

#[tokio::test]
async fn a_fork_pr_is_found_from_its_check_suite() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 9, base(), with_brief(&failing_brief()), "From a fork.");
    sim.set_fork(REPO, 9);
    let payload = sim.check_suite_event(REPO, 9);
    assert!(payload["check_suite"]["pull_requests"].as_array().unwrap().is_empty());
    assert_eq!(deliver(app.addr, "check_suite", "fork-1", &payload).await, 202);
    completed(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    assert_one_set(&sim, &pr.head_sha);
    assert_eq!(sim.reviews(REPO, 9).len(), 1);
    app.kill();
}

#[tokio::test]
async fn an_answer_missing_a_required_field_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    // The file list without `status`: the PR cannot be read, every check fails.
    sim.set_faults(Faults { omit_next: 1, omit_field: "status".into(), only: "/files".into(), ..Faults::default() });
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = opened(&sim, &app, 1, with_brief(&brief("AR", 40)), "f-malformed").await;
    completed(&sim, &head).await;
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &head);
    assert_eq!(runs.len(), names());
    for run in &runs {
        assert_eq!(run.conclusion.as_deref(), Some("failure"), "{run:#?}");
        assert!(run.summary.contains("does not match its schema") && run.summary.contains("status"), "{}", run.summary);
    }
    assert!(sim.reviews(REPO, 1).is_empty());
    app.kill();
}

#[tokio::test]
async fn a_pull_request_without_changed_files_is_not_read_as_zero_files() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_faults(Faults {
        omit_next: u32::MAX,
        omit_field: "changed_files".into(),
        only: "GET /repos/acme/docs/pulls/1".into(),
        ..Faults::default()
    });
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = opened(&sim, &app, 1, with_brief(&brief("AR", 40)), "f-no-count").await;
    jobs_idle(&app.store).await;
    let counts = app.store.job_counts().await.unwrap();
    assert_eq!((counts.done, counts.failed), (0, 1), "the job fails for good: nothing is evaluated");
    assert!(sim.check_runs(REPO, &head).iter().all(|r| r.conclusion.as_deref() != Some("success")));
    assert!(sim.reviews(REPO, 1).is_empty());
    app.kill();
}
