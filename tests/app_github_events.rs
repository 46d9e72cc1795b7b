//! Events as GitHub sends them, on SQLite and PostgreSQL: the App's own
//! review makes no job, an install (or repositories added to one) evaluates
//! the repositories' open PRs, a branch's check suite without a PR makes no
//! job, a draft asks for no review until it is ready, and a reviewer whose
//! approval went stale with a push is asked again.

mod common;

use common::*;
use gatehouse_sim::{Sim, Tree};

const REPO: &str = "acme/docs";

fn engines(dir: &tempfile::TempDir) -> Vec<Db> {
    let mut dbs = vec![Db::sqlite(dir)];
    dbs.extend(Db::postgres());
    dbs
}

/// A brief over the review threshold (400 lines): the gate applies.
fn big_change() -> Tree {
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    head
}

async fn evaluated(sim: &Sim, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

fn gate_runs(sim: &Sim, sha: &str) -> usize {
    sim.check_runs(REPO, sha).iter().filter(|r| r.name == "gatehouse/review").map(|r| r.writes as usize).sum()
}

async fn jobs_total(app: &gatehouse::app::Running) -> i64 {
    let c = app.store.job_counts().await.unwrap();
    c.queued + c.running + c.done + c.superseded + c.failed
}

#[tokio::test(flavor = "multi_thread")]
async fn the_apps_own_review_makes_no_job() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        let app = start_app(config(&db, &sim.url())).await;
        wait_for("the App to learn its bot", || sim.requests().iter().any(|r| r.path == "/app")).await;
        let pr = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40).replace("[ADR-095]", "[ADR-404]")), "");
        let event = sim.pull_request_event(REPO, 1, "opened");
        assert_eq!(deliver(app.addr, "pull_request", "own-1", &event).await, 202);
        evaluated(&sim, &pr.head_sha).await;
        wait_for("the App's review", || !sim.reviews(REPO, 1).is_empty()).await;
        jobs_idle(&app.store).await;
        let before = jobs_total(&app).await;
        let own = sim.own_review_event(REPO, 1);
        assert_eq!(deliver(app.addr, "pull_request_review", "own-review", &own).await, 202);
        assert_eq!(jobs_total(&app).await, before, "the App's own review is no reason to evaluate");
        let human = sim.add_review(REPO, 1, "gyrum-lin", "COMMENTED");
        assert_eq!(deliver(app.addr, "pull_request_review", "human-review", &human).await, 202);
        assert_eq!(jobs_total(&app).await, before + 1, "a person's review is");
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_install_evaluates_the_open_prs() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        let app = start_app(config(&db, &sim.url())).await;
        let first = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40)), "");
        let second = sim.open_pr(REPO, 2, base(), with_brief(&brief("AS", 40)), "");
        let event = sim.installation_event(&[REPO]);
        assert_eq!(deliver(app.addr, "installation", "installed", &event).await, 202);
        evaluated(&sim, &first.head_sha).await;
        evaluated(&sim, &second.head_sha).await;
        jobs_idle(&app.store).await;
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn repositories_added_to_an_install_have_their_open_prs_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        let app = start_app(config(&db, &sim.url())).await;
        let pr = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40)), "");
        let event = sim.repositories_added_event(&[REPO]);
        assert_eq!(deliver(app.addr, "installation_repositories", "added", &event).await, 202);
        evaluated(&sim, &pr.head_sha).await;
        jobs_idle(&app.store).await;
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_check_suite_of_a_branch_without_a_pr_makes_no_job() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        let app = start_app(config(&db, &sim.url())).await;
        let pr = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40)), "");
        let before = jobs_total(&app).await;
        let pulls_listed = || sim.requests().iter().filter(|r| r.path.ends_with("/pulls")).count();
        let listed_before = pulls_listed();
        let push = sim.branch_check_suite_event(REPO, "main", &pr.base_sha);
        assert_eq!(deliver(app.addr, "check_suite", "push-to-main", &push).await, 202);
        assert_eq!(jobs_total(&app).await, before, "a branch with no pull request has nothing to check");
        assert_eq!(pulls_listed(), listed_before, "no open pull request is listed for it");
        let suite = sim.check_suite_event(REPO, 1);
        assert_eq!(deliver(app.addr, "check_suite", "pr-suite", &suite).await, 202);
        assert_eq!(jobs_total(&app).await, before + 1, "the pull request's own suite is evaluated");
        evaluated(&sim, &pr.head_sha).await;
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_draft_asks_for_reviews_once_it_is_ready() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        let app = start_app(config(&db, &sim.url())).await;
        let pr = sim.open_pr(REPO, 1, base(), big_change(), "Backups.");
        sim.set_draft(REPO, 1, true);
        let event = sim.pull_request_event(REPO, 1, "opened");
        assert_eq!(deliver(app.addr, "pull_request", "draft-opened", &event).await, 202);
        evaluated(&sim, &pr.head_sha).await;
        jobs_idle(&app.store).await;
        assert!(sim.requested_reviewers(REPO, 1).is_empty(), "a draft asks nobody");
        let writes = gate_runs(&sim, &pr.head_sha);
        sim.set_draft(REPO, 1, false);
        let ready = sim.pull_request_event(REPO, 1, "ready_for_review");
        assert_eq!(deliver(app.addr, "pull_request", "draft-ready", &ready).await, 202);
        wait_for("the gate evaluated again", || gate_runs(&sim, &pr.head_sha) > writes).await;
        jobs_idle(&app.store).await;
        assert!(!sim.requested_reviewers(REPO, 1).is_empty(), "ready for review: the gate asks");
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stale_approval_is_asked_for_again() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        let app = start_app(config(&db, &sim.url())).await;
        let pr = sim.open_pr(REPO, 1, base(), big_change(), "Backups.");
        sim.add_review(REPO, 1, "gyrum-lin", "APPROVED");
        let event = sim.pull_request_event(REPO, 1, "opened");
        assert_eq!(deliver(app.addr, "pull_request", "stale-opened", &event).await, 202);
        evaluated(&sim, &pr.head_sha).await;
        jobs_idle(&app.store).await;
        assert!(!sim.requested_reviewers(REPO, 1).iter().any(|l| l == "gyrum-lin"), "lin approved this head");
        let mut pushed = big_change();
        pushed.insert(BRIEF.into(), brief("AR", 410).into_bytes());
        let head = sim.push(REPO, 1, pushed);
        let sync = sim.pull_request_event(REPO, 1, "synchronize");
        assert_eq!(deliver(app.addr, "pull_request", "stale-pushed", &sync).await, 202);
        evaluated(&sim, &head).await;
        jobs_idle(&app.store).await;
        assert!(
            sim.requested_reviewers(REPO, 1).iter().any(|l| l == "gyrum-lin"),
            "lin's approval of the old head does not count at the new head: {:?}",
            sim.requested_reviewers(REPO, 1)
        );
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pr_of_250_commits_fails_the_gate_closed_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 1, base(), big_change(), "Backups.");
    let authors: Vec<String> = (0..300).map(|i| format!("dev-{i}")).collect();
    sim.set_commit_authors(REPO, 1, &authors.iter().map(String::as_str).collect::<Vec<_>>());
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "many-commits", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    let gate = sim.check_runs(REPO, &pr.head_sha).into_iter().find(|r| r.name == "gatehouse/review").unwrap();
    assert_eq!(gate.conclusion.as_deref(), Some("failure"));
    assert!(gate.summary.contains("GitHub lists at most that many"), "{}", gate.summary);
    assert!(sim.requested_reviewers(REPO, 1).is_empty(), "who is recused is unknown: nobody is asked");
    app.kill();
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_are_scoped_to_the_jobs_repository_and_the_apps_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40)), "");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "scoped", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    let asked = sim.token_requests();
    assert!(asked.iter().any(|body| body["repositories"] == serde_json::json!(["docs"])), "{asked:?}");
    for body in &asked {
        // The job's repository, or the organisation's `.github`, read for its policy.
        let scoped = [serde_json::json!(["docs"]), serde_json::json!([".github"])];
        assert!(scoped.contains(&body["repositories"]), "{body}");
        assert_eq!(body["permissions"]["checks"], "write", "{body}");
        assert_eq!(body["permissions"]["contents"], "read", "{body}");
    }
    app.kill();
}
