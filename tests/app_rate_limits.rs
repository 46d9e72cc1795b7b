//! GitHub's rate limits as its docs describe them, against the simulated
//! GitHub (which answers any request sent during a limit with the limit
//! again, and counts it): GraphQL's `RATE_LIMITED` at HTTP 200 and a
//! secondary 429 are transient, the job runs again once GitHub's wait is
//! over and nothing is sent for the installation before then; writes go
//! out one at a time, and replicas spend one write budget. On SQLite and
//! PostgreSQL.

mod common;

use std::time::Duration;

use common::*;
use gatehouse_sim::{Faults, Sim};

const REPO: &str = "acme/docs";

fn engines(dir: &tempfile::TempDir) -> Vec<Db> {
    let mut dbs = vec![Db::sqlite(dir)];
    dbs.extend(Db::postgres());
    dbs
}

/// Opens a PR with a passing brief and waits until its check runs are done.
async fn evaluated(sim: &Sim, app: &gatehouse::app::Running, number: u64, delivery: &str) -> String {
    let pr = sim.open_pr(REPO, number, base(), with_brief(&brief("AR", 40)), "A change.");
    let payload = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", delivery, &payload).await, 202);
    let names = gatehouse::publish::check_names().len();
    wait_for("every check run completed", || {
        let runs = sim.check_runs(REPO, &pr.head_sha);
        runs.len() == names && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    jobs_idle(&app.store).await;
    pr.head_sha
}

/// A job whose wait is longer than a call may sleep: put back until then.
fn short_waits(db: &Db, sim: &Sim) -> gatehouse::app::AppConfig {
    let mut config = config(db, &sim.url());
    config.retry.max_wait = Duration::from_millis(500);
    config
}

#[tokio::test(flavor = "multi_thread")]
async fn a_graphql_rate_limit_is_waited_out_not_concluded() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        sim.set_faults(Faults { graphql_rate_limited_next: 1, reset_after_s: 3, ..Faults::default() });
        let app = start_app(short_waits(&db, &sim)).await;
        let head = evaluated(&sim, &app, 1, "rl-graphql").await;
        let runs = sim.check_runs(REPO, &head);
        assert!(runs.iter().all(|r| r.conclusion.as_deref() != Some("failure")), "{runs:#?}");
        assert_eq!(sim.sent_while_limited(), 0, "nothing is sent before the reset GitHub named: {:#?}", sim.requests());
        let graphql = sim.requests().iter().filter(|r| r.path == "/graphql").count();
        assert!(graphql >= 2, "the limited query is asked again after the reset");
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secondary_429_waits_for_its_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    for db in engines(&dir) {
        let sim = sim().await;
        sim.set_faults(Faults {
            rate_limit_next: 1,
            retry_after_s: 2,
            rate_limit_status: 429,
            only: "POST /repos/acme/docs/check-runs".into(),
            ..Faults::default()
        });
        let app = start_app(short_waits(&db, &sim)).await;
        let head = evaluated(&sim, &app, 1, "rl-429").await;
        assert_eq!(sim.sent_while_limited(), 0, "nothing is sent before retry-after is over: {:#?}", sim.requests());
        let limited = sim.requests().iter().filter(|r| r.status == 429).count();
        assert_eq!(limited, 1);
        let names: Vec<String> = sim.check_runs(REPO, &head).into_iter().map(|r| r.name).collect();
        assert_eq!(names.len(), gatehouse::publish::check_names().len(), "one set: {names:?}");
        app.kill();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_to_one_installation_are_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let (a, b) = tokio::join!(evaluated(&sim, &app, 1, "pace-1"), evaluated(&sim, &app, 2, "pace-2"));
    assert!(!a.is_empty() && !b.is_empty());
    let spans = sim.write_spans();
    assert!(spans.len() >= 2 * gatehouse::publish::check_names().len(), "two PRs' check runs: {} writes", spans.len());
    for pair in spans.windows(2) {
        let ((_, answered), (arrived, _)) = (pair[0], pair[1]);
        assert!(arrived >= answered, "a write arrived {:?} before the last one's answer", answered - arrived);
    }
    assert_eq!(sim.secondary_limit_answers(), 0);
    app.kill();
}

/// Two replicas on one database spend one write budget: with room for 8
/// writes a minute, two PRs that need 14 between them get 8 in the minute,
/// and the simulated GitHub, enforcing the same limit, never answers one
/// with a secondary limit.
#[tokio::test(flavor = "multi_thread")]
async fn two_replicas_spend_one_write_budget() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let per_minute = 8;
    sim.set_secondary_limits(gatehouse_sim::SecondaryLimits {
        content_per_minute: Some(per_minute),
        ..gatehouse_sim::SecondaryLimits::GITHUB_COM
    });
    let replica = || {
        let mut config = config(&db, &sim.url());
        config.budget.content_per_minute = Some(per_minute);
        config.workers = 1;
        config
    };
    let (first, second) = (start_app(replica()).await, start_app(replica()).await);
    for (app, number) in [(&first, 1), (&second, 2)] {
        sim.open_pr(REPO, number, base(), with_brief(&brief(&format!("R{number}"), 40)), "A change.");
        let payload = sim.pull_request_event(REPO, number, "opened");
        assert_eq!(deliver(app.addr, "pull_request", &format!("budget-{number}"), &payload).await, 202);
    }
    wait_for("the minute's budget spent", || sim.write_spans().len() >= per_minute as usize).await;
    // Both replicas are still waiting for the minute to pass.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let writes = sim.write_spans().len();
    assert_eq!(writes, per_minute as usize, "writes in the minute: {:#?}", sim.requests());
    assert_eq!(sim.secondary_limit_answers(), 0);
    first.kill();
    second.kill();
}
