//! The storage suite, run against both engines: SQLite (a temporary file)
//! and PostgreSQL (`GATEHOUSE_TEST_DATABASE_URL`, a schema per test).

mod common;

use std::time::Duration;

use common::Db;
use gatehouse::github::HeadSha;
use gatehouse::store::{Accepted, Job, NewJob, PrNumber, Scope, Signed, Store, Target, family_check};

fn job(pr: u64, sha: &str) -> NewJob {
    NewJob {
        repo: "acme/docs".into(),
        installation: 7,
        target: Target::Pr { number: PrNumber(pr), head: Some(HeadSha(sha.into())) },
        scope: Scope::All,
        once_per_head: true,
        reason: "pull_request.opened".into(),
    }
}

/// A job for the open PRs whose head is `sha` (a fork's check suite).
fn head_job(sha: &str) -> NewJob {
    NewJob { target: Target::Head(HeadSha(sha.into())), reason: "check_suite.requested".into(), ..job(1, sha) }
}

/// The claimed job's PR number and the head its event named.
fn pr_and_head(job: &Job) -> (u64, Option<&str>) {
    match &job.target {
        Target::Pr { number, head } => (number.0, head.as_ref().map(|h| h.0.as_str())),
        other => panic!("not a PR's job: {other:?}"),
    }
}

/// The name of the one check run a job evaluates; `None`: every check.
fn check(job: &Job) -> Option<&'static str> {
    match job.scope {
        Scope::All => None,
        Scope::Check(check) => Some(check.name()),
        Scope::ReviewGate => Some("gatehouse/review"),
    }
}

async fn dedup(store: Store) {
    assert_eq!(store.accept("d-1", "pull_request", &[job(1, "a")]).await.unwrap(), Accepted::New { jobs: 1 });
    assert_eq!(store.accept("d-1", "pull_request", &[job(1, "a")]).await.unwrap(), Accepted::Duplicate);
    assert_eq!(store.accept("d-2", "ping", &[]).await.unwrap(), Accepted::New { jobs: 0 });
    assert_eq!(store.deliveries().await.unwrap(), 2);
    assert_eq!(store.job_counts().await.unwrap().queued, 1);
}

async fn concurrent_replays(store: Store) {
    let mut tasks = Vec::new();
    for n in 0..32 {
        let store = store.clone();
        // Four delivery ids, each delivered eight times at once.
        tasks.push(tokio::spawn(async move {
            store.accept(&format!("r-{}", n % 4), "pull_request", &[job(n % 4, "a")]).await
        }));
    }
    let mut new = 0;
    for task in tasks {
        if matches!(task.await.unwrap().unwrap(), Accepted::New { .. }) {
            new += 1;
        }
    }
    assert_eq!(new, 4, "each delivery is new exactly once");
    assert_eq!(store.deliveries().await.unwrap(), 4);
    assert_eq!(store.jobs().await.unwrap().len(), 4);
}

async fn coalesce(store: Store) {
    for (n, sha) in ["a", "b", "c"].iter().enumerate() {
        store.accept(&format!("d-{n}"), "pull_request", &[job(1, sha)]).await.unwrap();
    }
    store.accept("d-other", "pull_request", &[job(2, "x")]).await.unwrap();
    let first = store.claim("w1", Duration::from_secs(30)).await.unwrap().expect("a job");
    assert_eq!(pr_and_head(&first), (1, Some("c")), "the newest head of PR 1 wins");
    // PR 1 is held by w1: w2 gets PR 2, then nothing.
    let second = store.claim("w2", Duration::from_secs(30)).await.unwrap().expect("another job");
    assert_eq!(pr_and_head(&second).0, 2);
    assert!(store.claim("w2", Duration::from_secs(30)).await.unwrap().is_none());
    assert!(store.complete(&first, "w1").await.unwrap());
    assert!(!store.complete(&first, "w1").await.unwrap(), "a job completes once");
    let counts = store.job_counts().await.unwrap();
    assert_eq!((counts.done, counts.superseded, counts.running), (1, 2, 1));
}

fn only(pr: u64, sha: &str, check: &str) -> NewJob {
    let scope = match check {
        "gatehouse/review" => Scope::ReviewGate,
        name => Scope::Check(family_check(name).expect("a family's check")),
    };
    NewJob { scope, reason: "check_run.rerequested".into(), ..job(pr, sha) }
}

const LEASE: Duration = Duration::from_secs(30);

/// A review-gate job and a full evaluation of one PR never run at once; the
/// full evaluation covers a gate job waiting beside it.
async fn one_pr_one_worker(store: Store) {
    store.accept("d-full", "pull_request", &[job(1, "a")]).await.unwrap();
    store.accept("d-gate", "pull_request_review", &[only(1, "a", "gatehouse/review")]).await.unwrap();
    let full = store.claim("w1", LEASE).await.unwrap().expect("a job");
    assert_eq!(check(&full), None, "the full evaluation is claimed");
    assert_eq!(store.job_counts().await.unwrap().superseded, 1, "and covers the gate job");
    store.accept("d-gate-2", "pull_request_review", &[only(1, "a", "gatehouse/review")]).await.unwrap();
    assert!(store.claim("w2", LEASE).await.unwrap().is_none(), "the PR is held: the gate job waits");
    assert!(store.complete(&full, "w1").await.unwrap());
    let gate = store.claim("w2", LEASE).await.unwrap().expect("the gate job");
    assert_eq!(check(&gate), Some("gatehouse/review"));
}

/// A job naming only a head commit is resolved into a job of its PR, which
/// waits for the PR's lock like any other.
async fn head_jobs_take_their_prs_lock(store: Store) {
    store.accept("d-pr", "pull_request", &[job(1, "a")]).await.unwrap();
    store.accept("d-suite", "check_suite", &[head_job("a")]).await.unwrap();
    let pr_job = store.claim("w1", LEASE).await.unwrap().expect("the PR's job");
    assert_eq!(pr_and_head(&pr_job).0, 1);
    let head_job = store.claim("w2", LEASE).await.unwrap().expect("the head's job");
    assert_eq!(head_job.target, Target::Head(HeadSha("a".into())));
    assert!(store.resolve(&head_job, "w2", &[PrNumber(1)]).await.unwrap());
    assert!(!store.resolve(&head_job, "w2", &[PrNumber(1)]).await.unwrap(), "resolved once");
    assert!(store.claim("w2", LEASE).await.unwrap().is_none(), "PR 1 is held by w1");
    assert!(store.complete(&pr_job, "w1").await.unwrap());
    let resolved = store.claim("w2", LEASE).await.unwrap().expect("the resolved job");
    assert_eq!((pr_and_head(&resolved), resolved.delivery.as_str()), ((1, Some("a")), "d-suite"));
    assert_eq!(resolved.created_at, head_job.created_at, "it keeps the delivery's age");
}

/// A job for one check never stands in for a full evaluation, nor for a job
/// of another check.
async fn partial_jobs_coalesce_by_check(store: Store) {
    store.accept("d-1", "check_run", &[only(1, "a", "gatehouse/briefs")]).await.unwrap();
    store.accept("d-2", "check_run", &[only(1, "a", "gatehouse/voting")]).await.unwrap();
    store.accept("d-3", "check_run", &[only(1, "a", "gatehouse/voting")]).await.unwrap();
    let first = store.claim("w", LEASE).await.unwrap().unwrap();
    assert_eq!((first.delivery.as_str(), check(&first)), ("d-3", Some("gatehouse/voting")));
    assert!(store.complete(&first, "w").await.unwrap());
    let second = store.claim("w", LEASE).await.unwrap().expect("the briefs re-run is kept");
    assert_eq!(check(&second), Some("gatehouse/briefs"));
    assert!(store.complete(&second, "w").await.unwrap());
    store.accept("d-4", "pull_request", &[job(1, "b")]).await.unwrap();
    store.accept("d-5", "check_run", &[only(1, "b", "gatehouse/briefs")]).await.unwrap();
    let full = store.claim("w", LEASE).await.unwrap().unwrap();
    assert_eq!((full.delivery.as_str(), check(&full)), ("d-4", None), "the full job wins");
    assert!(store.claim("w", LEASE).await.unwrap().is_none());
}

/// A superseded job that had started check runs is handed to the job that
/// replaced it, which closes or adopts them.
async fn superseded_runs_are_handed_on(store: Store) {
    store.accept("d-1", "pull_request", &[job(1, "a")]).await.unwrap();
    let first = store.claim("w", LEASE).await.unwrap().unwrap();
    store.started(&first, "a").await.unwrap();
    assert!(store.retry_later(&first, "w", Duration::from_secs(60), "GitHub said 502").await.unwrap());
    store.accept("d-2", "pull_request", &[job(1, "b")]).await.unwrap();
    let second = store.claim("w", LEASE).await.unwrap().unwrap();
    assert_eq!(second.stale, vec![(first.id, "a".to_string())]);
}

/// A captured body resent under new delivery ids is one delivery.
async fn replayed_bodies(store: Store) {
    let body: &[u8] = br#"{"action":"opened","number":1}"#;
    let mac = common::mac_of(body);
    let signed = Signed { body, mac: &mac };
    assert_eq!(
        store.accept_signed("d-1", "pull_request", signed, &[job(1, "a")]).await.unwrap(),
        Accepted::New { jobs: 1 }
    );
    for n in 2..=10 {
        let again = store.accept_signed(&format!("d-{n}"), "pull_request", signed, &[job(1, "a")]).await.unwrap();
        assert_eq!(again, Accepted::Duplicate, "resend {n}");
    }
    let other_body: &[u8] = br#"{"action":"opened","number":2}"#;
    let other_mac = common::mac_of(other_body);
    let other = Signed { body: other_body, mac: &other_mac };
    assert_eq!(store.accept_signed("d-11", "pull_request", other, &[]).await.unwrap(), Accepted::New { jobs: 0 });
    assert_eq!(store.accept_signed("d-12", "check_suite", signed, &[]).await.unwrap(), Accepted::New { jobs: 0 });
    assert_eq!((store.deliveries().await.unwrap(), store.jobs().await.unwrap().len()), (3, 1));
}

async fn lease_expiry(store: Store) {
    store.accept("d-1", "pull_request", &[job(1, "a")]).await.unwrap();
    let job = store.claim("crashed", Duration::from_millis(1)).await.unwrap().expect("a job");
    tokio::time::sleep(Duration::from_millis(20)).await;
    let again = store.claim("rescuer", Duration::from_secs(30)).await.unwrap().expect("the lapsed job");
    assert_eq!(again.id, job.id);
    assert_eq!(again.attempts, 2);
    assert!(!store.complete(&job, "crashed").await.unwrap(), "the crashed worker lost the job");
    assert!(store.complete(&again, "rescuer").await.unwrap());
    assert_eq!(store.job_counts().await.unwrap().done, 1);
}

async fn retry_later(store: Store) {
    store.accept("d-1", "pull_request", &[job(1, "a")]).await.unwrap();
    let job = store.claim("w", Duration::from_secs(30)).await.unwrap().unwrap();
    assert!(store.retry_later(&job, "w", Duration::from_secs(60), "GitHub said 502").await.unwrap());
    assert!(store.claim("w", Duration::from_secs(30)).await.unwrap().is_none(), "not before its time");
    assert!(!store.renew(&job, "w", Duration::from_secs(1)).await.unwrap(), "a requeued job has no lease to renew");
}

async fn migrations_rerun(db: &Db) {
    let store = db.store().await;
    store.accept("d-1", "ping", &[]).await.unwrap();
    let again = db.store().await;
    assert_eq!(again.deliveries().await.unwrap(), 1, "a restart keeps what was stored");
    assert!(again.ping().await);
}

macro_rules! both_engines {
    ($($name:ident),*) => {
        mod sqlite {
            use super::*;
            $(#[tokio::test] async fn $name() {
                let dir = tempfile::tempdir().unwrap();
                super::$name(Db::sqlite(&dir).store().await).await;
            })*
            #[tokio::test] async fn migrations() {
                let dir = tempfile::tempdir().unwrap();
                migrations_rerun(&Db::sqlite(&dir)).await;
            }
        }
        mod postgres {
            use super::*;
            $(#[tokio::test] async fn $name() {
                let Some(db) = Db::postgres() else { return };
                super::$name(db.store().await).await;
            })*
            #[tokio::test] async fn migrations() {
                let Some(db) = Db::postgres() else { return };
                migrations_rerun(&db).await;
            }
        }
    };
}

both_engines!(
    dedup,
    concurrent_replays,
    coalesce,
    one_pr_one_worker,
    head_jobs_take_their_prs_lock,
    partial_jobs_coalesce_by_check,
    superseded_runs_are_handed_on,
    replayed_bodies,
    lease_expiry,
    retry_later
);

/// The 202 promises the delivery is on disk: SQLite fsyncs the accepting
/// commit.
#[tokio::test]
async fn sqlite_accepts_with_synchronous_full() {
    let dir = tempfile::tempdir().unwrap();
    let store = Db::sqlite(&dir).store().await;
    assert_eq!(store.accept_synchronous(), Some(2));
}

#[tokio::test]
async fn sqlite_file_is_created_when_missing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-yet/nested/gatehouse.db");
    assert!(!path.exists());
    Store::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    assert!(path.exists());
}

#[tokio::test]
async fn bad_urls_are_refused_without_their_password() {
    let err = Store::connect("mysql://root:hunter2@db/x").await.unwrap_err().to_string();
    assert!(err.contains("unsupported"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

/// The group committer checkpoints the WAL (SQLite's automatic checkpoint
/// is off on its connection): one delivery at a time, 2,000 commits of a
/// few pages each would leave a WAL of tens of MB without one. The WAL
/// file keeps the largest size it reached, so its size shows how far it
/// grew.
#[tokio::test]
async fn sqlite_wal_is_checkpointed_by_the_committer() {
    let dir = tempfile::tempdir().unwrap();
    let store = Db::sqlite(&dir).store().await;
    store.take_stats();
    for n in 0..2_000u64 {
        let accepted = store.accept(&format!("d-{n}"), "pull_request", &[job(n, "a")]).await.unwrap();
        assert_eq!(accepted, Accepted::New { jobs: 1 });
    }
    let wal = std::fs::metadata(dir.path().join("gatehouse.db-wal")).unwrap().len();
    // 1,000 frames of a 4 KiB page and a 24-byte header, and a commit's more.
    assert!(wal < 1_100 * 4_120, "the WAL grew to {wal} bytes");
    let stats = store.take_stats();
    assert_eq!(stats.ack_commits.count, 2_000);
    assert!(stats.checkpoints.count >= 1, "{stats:?}");
    assert_eq!(store.deliveries().await.unwrap(), 2_000);
}
