//! Database faults mid-job: PostgreSQL connections dropped by a proxy
//! between the App and the server, and a SQLite file held locked by another
//! connection. A database fault is transient: every job finishes and no
//! check run is concluded `failure` for it. (The shared PostgreSQL server is
//! never touched: only the proxy's connections are cut.)

mod common;

use std::str::FromStr;
use std::time::Duration;

use common::proxy::Proxy;
use common::*;
use gatehouse::store::Store;
use gatehouse_sim::{Faults, Sim};
use sqlx::Connection;

const REPO: &str = "acme/docs";
const PRS: u64 = 3;

/// Opens PRS pull requests with a valid brief; each job's first check run
/// answers after a second, so a job is mid-way when the fault starts.
async fn deliver_prs(sim: &Sim, app: &gatehouse::app::Running) -> Vec<String> {
    sim.set_faults(Faults {
        slow_next: PRS as u32,
        delay: Duration::from_secs(1),
        only: format!("POST /repos/{REPO}/check-runs"),
        ..Faults::default()
    });
    let mut heads = Vec::new();
    for number in 1..=PRS {
        heads.push(sim.open_pr(REPO, number, base(), with_brief(&brief("AR", 40)), "A change.").head_sha);
        let payload = sim.pull_request_event(REPO, number, "opened");
        assert_eq!(deliver(app.addr, "pull_request", &format!("db-fault-{number}"), &payload).await, 202);
    }
    heads
}

/// Waits (on `store`, which the fault does not reach) until a job runs.
async fn a_job_running(store: &Store) {
    for _ in 0..1200 {
        if store.job_counts().await.unwrap().running > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no job was claimed");
}

/// Waits until the App counts a failed job it will run again.
async fn a_job_failed_for_a_retry(app: &gatehouse::app::Running) {
    let series = "gatehouse_job_failures_total{outcome=\"retry\"} ";
    for _ in 0..1200 {
        let metrics = reqwest::get(format!("http://{}/metrics", app.addr)).await.unwrap().text().await.unwrap();
        let retried = metrics.lines().find_map(|line| line.strip_prefix(series)?.parse::<u64>().ok());
        if retried.unwrap_or(0) > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no job failed while the file was locked");
}

/// Every job done, one of them run again after the fault, and every check
/// run completed without a `failure`.
async fn assert_every_job_finished(sim: &Sim, store: &Store, heads: &[String]) {
    jobs_idle(store).await;
    let jobs = store.jobs().await.unwrap();
    assert!(jobs.iter().all(|(_, state, _)| state == "done"), "{jobs:?}");
    assert!(jobs.iter().any(|(_, _, attempts)| *attempts >= 2), "the fault met a job mid-way: {jobs:?}");
    let names = gatehouse::publish::check_names().len();
    for head in heads {
        let runs = sim.check_runs(REPO, head);
        assert_eq!(runs.len(), names, "{runs:#?}");
        for run in &runs {
            assert_eq!(run.status, "completed", "{run:#?}");
            assert_ne!(run.conclusion.as_deref(), Some("failure"), "{run:#?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connections_dropped_mid_job_are_retried() {
    let Some(url) = postgres_url() else { return };
    let options = sqlx::postgres::PgConnectOptions::from_str(&url).unwrap();
    let server = format!("{}:{}", options.get_host(), options.get_port());
    let proxy = Proxy::start(server.parse().unwrap()).await;
    let proxied = url.replacen(&server, &proxy.addr.to_string(), 1);
    assert_ne!(proxied, url, "the test database URL names its host and port");
    let schema = unique_schema();
    let direct = Db::Postgres { url: url.clone(), schema: schema.clone() };
    let through = Db::Postgres { url: proxied, schema };
    let sim = sim().await;
    let mut config = config(&through, &sim.url());
    // A job whose end could not be recorded is taken again when its lease lapses.
    config.lease = Duration::from_secs(3);
    let app = start_app(config).await;
    let store = direct.store().await;
    let heads = deliver_prs(&sim, &app).await;
    a_job_running(&store).await;
    // Longer than the pool's 10-second acquire timeout: a job that needs the
    // database during the outage fails with a lost connection or a pool
    // timeout, not only one whose query was in flight at the cut.
    proxy.outage(Duration::from_secs(12)).await;
    assert_every_job_finished(&sim, &store, &heads).await;
    app.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_locked_by_another_connection_is_waited_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::sqlite(&dir);
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let heads = deliver_prs(&sim, &app).await;
    a_job_running(&app.store).await;
    // The lock is taken while the first job waits on its slowed check run,
    // so that job has not recorded its end. It is held until a job has
    // failed `database is locked` and been set to run again (its store
    // writes wait out the store's 10-second busy timeout, one at a time).
    let mut other = sqlx::SqliteConnection::connect(&db.url()).await.unwrap();
    sqlx::raw_sql("BEGIN EXCLUSIVE").execute(&mut other).await.unwrap();
    a_job_failed_for_a_retry(&app).await;
    sqlx::raw_sql("COMMIT").execute(&mut other).await.unwrap();
    assert_every_job_finished(&sim, &app.store, &heads).await;
    app.kill();
}

#[tokio::test]
async fn a_broken_constraint_is_not_transient_and_a_lock_is() {
    let dir = tempfile::tempdir().unwrap();
    let url = Db::sqlite(&dir).url() + "?mode=rwc";
    let mut first = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::raw_sql("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)")
        .execute(&mut first)
        .await
        .unwrap();
    let repeated = sqlx::raw_sql("INSERT INTO t VALUES (1)").execute(&mut first).await.unwrap_err();
    assert!(!gatehouse::store::is_transient(&repeated), "{repeated}");
    sqlx::raw_sql("BEGIN EXCLUSIVE").execute(&mut first).await.unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::from_str(&url).unwrap().busy_timeout(Duration::ZERO);
    let mut second = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
    let locked = sqlx::raw_sql("INSERT INTO t VALUES (2)").execute(&mut second).await.unwrap_err();
    assert!(gatehouse::store::is_transient(&locked), "{locked}");

    let Some(url) = postgres_url() else { return };
    let mut pg = sqlx::PgConnection::connect(&url).await.unwrap();
    let table = unique_schema();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE TEMP TABLE {table} (id BIGINT PRIMARY KEY)")))
        .execute(&mut pg)
        .await
        .unwrap();
    let insert = format!("INSERT INTO {table} VALUES (1)");
    sqlx::raw_sql(sqlx::AssertSqlSafe(insert.clone())).execute(&mut pg).await.unwrap();
    let repeated = sqlx::raw_sql(sqlx::AssertSqlSafe(insert)).execute(&mut pg).await.unwrap_err();
    assert!(!gatehouse::store::is_transient(&repeated), "{repeated}");
    let serialization = sqlx::raw_sql("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$")
        .execute(&mut pg)
        .await
        .unwrap_err();
    assert!(gatehouse::store::is_transient(&serialization), "{serialization}");
}
