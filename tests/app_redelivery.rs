//! No delivery lost: deliveries the simulated GitHub could not make while
//! the App was down, or that the App refused with 503 while its database was
//! unreachable, are redelivered by the App's sweep and processed once; a
//! delivery that succeeded is never redelivered; the sweep keeps its bounds
//! (pages, redeliveries per sweep, pace, GitHub's 3 days). On SQLite and
//! PostgreSQL.

mod common;

use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::time::Duration;

use common::proxy::Proxy;
use common::*;
use gatehouse::app::{AppConfig, RedeliverPolicy, Running};
use gatehouse_sim::{Faults, HISTORY_S, HookDelivery, Sim};
use serde_json::json;
use tokio::net::TcpListener;

const REPO: &str = "acme/docs";

/// A sweep every 300 ms, redeliveries 20 ms apart, a claim of 5 seconds.
fn sweeping(db: &Db, sim: &Sim) -> AppConfig {
    let mut config = config(db, &sim.url());
    config.redeliver = RedeliverPolicy {
        interval: Duration::from_millis(300),
        pace: Duration::from_millis(20),
        claim: Duration::from_secs(5),
        ..RedeliverPolicy::default()
    };
    config
}

/// Starts the App with GitHub's webhook already pointing at it, so that no
/// redelivery its first sweep asks for can go to an address nobody serves.
async fn start_on(mut config: AppConfig, sim: &Sim) -> Running {
    if config.bind.port() == 0 {
        let free = TcpListener::bind(config.bind).await.unwrap();
        config.bind = free.local_addr().unwrap();
    }
    sim.set_webhook(&format!("http://{}/webhook", config.bind), SECRET);
    start_app(config).await
}

/// Waits until GitHub's history shows a successful attempt of each GUID.
async fn delivered(sim: &Sim, guids: &[String]) {
    wait_for("every failed delivery redelivered", || {
        let ok: HashSet<String> =
            sim.hook_deliveries().into_iter().filter(|d| d.status_code == 202).map(|d| d.guid).collect();
        guids.iter().all(|g| ok.contains(g))
    })
    .await;
}

/// Lets `n` more sweeps run (each reads GitHub's history once).
async fn more_sweeps(sim: &Sim, n: usize) {
    let lists = |sim: &Sim| sim.requests().iter().filter(|r| r.path == "/app/hook/deliveries").count();
    let before = lists(sim);
    wait_for("more sweeps", || lists(sim) >= before + n).await;
}

/// Every head has one run per check, completed and not `failure`; every
/// job finished; each failed GUID was redelivered exactly once and each
/// GUID that succeeded at first never.
async fn processed_once(sim: &Sim, app: &Running, heads: &[String], failed: &[String], succeeded: &[String]) {
    jobs_idle(&app.store).await;
    let names = gatehouse::publish::check_names();
    for head in heads {
        let runs = sim.check_runs(REPO, head);
        let mut seen: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        seen.sort_unstable();
        let mut expected: Vec<&str> = names.iter().map(String::as_str).collect();
        expected.sort_unstable();
        assert_eq!(seen, expected, "one run per check on {head}: {runs:#?}");
        for run in &runs {
            assert_eq!(run.status, "completed", "{run:#?}");
            assert_ne!(run.conclusion.as_deref(), Some("failure"), "{run:#?}");
        }
    }
    let jobs = app.store.jobs().await.unwrap();
    assert!(jobs.iter().all(|(_, state, _)| state == "done" || state == "superseded"), "{jobs:?}");
    let log = sim.hook_deliveries();
    let redelivered = |guid: &String| log.iter().filter(|d| d.redelivery && &d.guid == guid).count();
    for guid in failed {
        assert_eq!(redelivered(guid), 1, "{guid} redelivered once: {log:#?}");
    }
    for guid in succeeded {
        assert_eq!(redelivered(guid), 0, "{guid} succeeded and is never redelivered");
    }
    let metrics = app.metrics.render();
    let n = failed.len();
    for line in [
        format!("gatehouse_hook_deliveries_failed_total {n}"),
        format!("gatehouse_redeliveries_requested_total {n}"),
        "gatehouse_redelivery_requests_failed_total 0".to_string(),
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in:\n{metrics}");
    }
}

fn failed_guids(deliveries: &[HookDelivery]) -> Vec<String> {
    deliveries.iter().filter(|d| !(200..300).contains(&d.status_code)).map(|d| d.guid.clone()).collect()
}

/// PR 1 is delivered while the App is up; then the App stops, PR 1 gets a
/// push and PR 2 opens (a `pull_request` and a `check_suite` delivery for
/// its head): GitHub cannot connect. The App starts again on the same
/// address and database: its sweep has every missed delivery redelivered.
async fn missed_while_down(db: Db) {
    let sim = sim().await;
    let app = start_on(sweeping(&db, &sim), &sim).await;
    let addr = app.addr;
    let first = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40)), "A change.");
    let opened = sim.deliver("pull_request", &sim.pull_request_event(REPO, 1, "opened")).await;
    assert_eq!(opened.status_code, 202, "{opened:?}");
    let names = gatehouse::publish::check_names().len();
    wait_for("PR 1 checked", || sim.check_runs(REPO, &first.head_sha).len() == names).await;
    app.shutdown().await;

    let pushed = sim.push(REPO, 1, with_brief(&brief("AR", 60)));
    let second = sim.open_pr(REPO, 2, base(), with_brief(&brief("AR", 50)), "Another change.");
    let mut missed = Vec::new();
    missed.push(sim.deliver("pull_request", &sim.pull_request_event(REPO, 1, "synchronize")).await);
    missed.push(sim.deliver("pull_request", &sim.pull_request_event(REPO, 2, "opened")).await);
    missed.push(sim.deliver("check_suite", &sim.check_suite_event(REPO, 2)).await);
    for delivery in &missed {
        assert_eq!((delivery.status.as_str(), delivery.status_code), ("failed to connect to network", 0));
    }

    let mut config = sweeping(&db, &sim);
    config.bind = addr;
    let app = start_on(config, &sim).await;
    let failed = failed_guids(&missed);
    delivered(&sim, &failed).await;
    more_sweeps(&sim, 2).await;
    processed_once(&sim, &app, &[first.head_sha, pushed, second.head_sha], &failed, &[opened.guid]).await;
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_missed_while_down_are_processed_once_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    missed_while_down(Db::sqlite(&dir)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_missed_while_down_are_processed_once_postgres() {
    let Some(db) = Db::postgres() else { return };
    missed_while_down(db).await;
}

/// Delivers PR 1 and PR 2 `opened` together while `outage` keeps the
/// database unreachable; both are refused with 503 (GitHub waits 30
/// seconds, as Enterprise Server does, so the App's own 10-second database
/// timeouts answer first). After the outage the sweep has them redelivered.
async fn refused_while_database_unreachable<F>(db: Db, outage: F)
where
    F: AsyncFnOnce(&Sim, Vec<serde_json::Value>) -> Vec<HookDelivery>,
{
    let sim = sim().await;
    sim.set_delivery_timeout(Duration::from_secs(30));
    let app = start_on(sweeping(&db, &sim), &sim).await;
    let one = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 40)), "A change.");
    let two = sim.open_pr(REPO, 2, base(), with_brief(&brief("AR", 50)), "Another change.");
    let payloads = vec![sim.pull_request_event(REPO, 1, "opened"), sim.pull_request_event(REPO, 2, "opened")];
    let refused = outage(&sim, payloads).await;
    for delivery in &refused {
        assert_eq!((delivery.status.as_str(), delivery.status_code), ("Invalid HTTP Response: 503", 503));
    }
    let failed = failed_guids(&refused);
    delivered(&sim, &failed).await;
    more_sweeps(&sim, 2).await;
    processed_once(&sim, &app, &[one.head_sha, two.head_sha], &failed, &[]).await;
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_refused_while_sqlite_is_locked_are_processed_once() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let db = Db::sqlite(&dir);
    let url = db.url();
    refused_while_database_unreachable(db, async |sim: &Sim, payloads| {
        // Held past the store's 10-second busy timeout.
        let mut other = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::raw_sql("BEGIN EXCLUSIVE").execute(&mut other).await.unwrap();
        let (a, b) = tokio::join!(sim.deliver("pull_request", &payloads[0]), sim.deliver("pull_request", &payloads[1]));
        sqlx::raw_sql("COMMIT").execute(&mut other).await.unwrap();
        vec![a, b]
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_refused_while_postgres_is_unreachable_are_processed_once() {
    let Some(url) = postgres_url() else { return };
    let options = sqlx::postgres::PgConnectOptions::from_str(&url).unwrap();
    let server = format!("{}:{}", options.get_host(), options.get_port());
    let proxy = Proxy::start(server.parse().unwrap()).await;
    let proxied = url.replacen(&server, &proxy.addr.to_string(), 1);
    assert_ne!(proxied, url, "the test database URL names its host and port");
    let db = Db::Postgres { url: proxied, schema: unique_schema() };
    refused_while_database_unreachable(db, async |sim: &Sim, payloads| {
        proxy.cut();
        let (a, b) = tokio::join!(sim.deliver("pull_request", &payloads[0]), sim.deliver("pull_request", &payloads[1]));
        proxy.restore();
        vec![a, b]
    })
    .await;
}

/// 130 `ping` deliveries fail while nothing listens, one of them before
/// GitHub's 3 days; 3 succeed. The App then sweeps with one page a sweep
/// and 40 redeliveries a sweep at most, 100 ms apart: every failed delivery
/// of the last 3 days is redelivered once, the older one and those that
/// succeeded never, no sweep reads more than one page or asks for more than
/// 40, and no two requests come closer than the pace.
async fn bounded(db: Db) {
    let sim = sim().await;
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    sim.set_webhook(&format!("http://{}/webhook", closed.local_addr().unwrap()), SECRET);
    drop(closed);
    let ping = |n: u32| json!({ "zen": format!("Keep it logically awesome {n}."), "hook_id": n });
    let expired = sim.deliver("ping", &ping(0)).await;
    sim.age_hook_deliveries(HISTORY_S + 60);
    let mut failed = Vec::new();
    for n in 1..=130 {
        failed.push(sim.deliver("ping", &ping(n)).await.guid);
    }
    let mut config = sweeping(&db, &sim);
    config.redeliver.pages = 1;
    config.redeliver.max_per_sweep = 40;
    config.redeliver.pace = Duration::from_millis(100);
    let app = start_on(config, &sim).await;
    let mut succeeded = Vec::new();
    for n in 131..=133 {
        let ok = sim.deliver("ping", &ping(n)).await;
        assert_eq!(ok.status_code, 202);
        succeeded.push(ok.guid);
    }
    delivered(&sim, &failed).await;
    more_sweeps(&sim, 3).await;
    app.shutdown().await;

    let log = sim.hook_deliveries();
    let mut redelivered: HashMap<&str, usize> = HashMap::new();
    for d in log.iter().filter(|d| d.redelivery) {
        *redelivered.entry(d.guid.as_str()).or_default() += 1;
    }
    assert!(failed.iter().all(|g| redelivered.get(g.as_str()) == Some(&1)), "each failed one once: {redelivered:?}");
    assert_eq!(redelivered.len(), failed.len(), "nothing else: {redelivered:?}");
    assert!(!redelivered.contains_key(expired.guid.as_str()), "past GitHub's 3 days");
    assert!(succeeded.iter().all(|g| !redelivered.contains_key(g.as_str())));
    // Per sweep (from one read of the history to the next): one page, 40 asks.
    let mut asks = 0;
    for request in sim.requests() {
        if request.path == "/app/hook/deliveries" {
            asks = 0;
        } else if request.method == "POST" && request.path.starts_with("/app/hook/deliveries/") {
            asks += 1;
            assert!(asks <= 40, "more than 40 redeliveries in one sweep");
        }
    }
    let mut sent: Vec<_> = log.iter().filter(|d| d.redelivery).map(|d| d.sent).collect();
    sent.sort();
    for pair in sent.windows(2) {
        // Each redelivery is recorded as sent when its request arrived: the
        // requests of one sweep are 100 ms apart (less the jitter of two
        // loopback requests), of two sweeps an interval apart.
        assert!(pair[1] - pair[0] >= Duration::from_millis(60), "paced: {:?}", pair[1] - pair[0]);
    }
    let attempts = db.store().await.redelivery_attempts().await.unwrap();
    assert_eq!(attempts.len(), failed.len());
    assert!(attempts.iter().all(|(_, n)| *n == 1), "{attempts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_keeps_its_bounds_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    bounded(Db::sqlite(&dir)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_keeps_its_bounds_postgres() {
    let Some(db) = Db::postgres() else { return };
    bounded(db).await;
}

/// Two replicas on one database sweep the same history: each failed
/// delivery is asked for once, not once per replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_do_not_redeliver_twice() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    sim.set_webhook(&format!("http://{}/webhook", closed.local_addr().unwrap()), SECRET);
    drop(closed);
    let mut failed = Vec::new();
    for n in 1..=20 {
        failed.push(sim.deliver("ping", &json!({ "zen": "Design for failure.", "hook_id": n })).await.guid);
    }
    let two = start_on(sweeping(&db, &sim), &sim).await;
    let one = start_app(sweeping(&db, &sim)).await;
    delivered(&sim, &failed).await;
    more_sweeps(&sim, 4).await;
    let asks = sim.requests().iter().filter(|r| r.method == "POST" && r.path.ends_with("/attempts")).count();
    assert_eq!(asks, failed.len(), "one ask per failed delivery across both replicas");
    one.shutdown().await;
    two.shutdown().await;
}

/// GitHub refuses the first redelivery request (422): it is counted as
/// failed, the delivery is asked for again at the next sweep, and found
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_redelivery_request_is_counted_and_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::sqlite(&dir);
    let sim = sim().await;
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    sim.set_webhook(&format!("http://{}/webhook", closed.local_addr().unwrap()), SECRET);
    drop(closed);
    let failed = sim.deliver("ping", &json!({ "zen": "Approachable is better than simple.", "hook_id": 1 })).await;
    sim.set_faults(Faults { status_next: 1, status: 422, only: "/attempts".into(), ..Faults::default() });
    let app = start_on(sweeping(&db, &sim), &sim).await;
    delivered(&sim, std::slice::from_ref(&failed.guid)).await;
    let asks: Vec<u16> = sim.requests().iter().filter(|r| r.path.ends_with("/attempts")).map(|r| r.status).collect();
    assert_eq!(asks, [422, 202]);
    let metrics = app.metrics.render();
    for line in [
        "gatehouse_hook_deliveries_failed_total 1",
        "gatehouse_redeliveries_requested_total 1",
        "gatehouse_redelivery_requests_failed_total 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in:\n{metrics}");
    }
    assert_eq!(app.store.redelivery_attempts().await.unwrap(), [(failed.guid.clone(), 2)]);
    app.shutdown().await;
}
