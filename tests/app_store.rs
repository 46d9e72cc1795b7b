//! The storage suite, run against both engines: SQLite (a temporary file)
//! and PostgreSQL (`GATEHOUSE_TEST_DATABASE_URL`, a schema per test).

mod common;

use std::time::Duration;

use common::Db;
use gatehouse::store::{Accepted, NewJob, ReviewRecord, Store};

fn job(pr: u64, sha: &str) -> NewJob {
    NewJob {
        repo: "acme/docs".into(),
        pr,
        installation: 7,
        head_sha: Some(sha.into()),
        reason: "pull_request.opened".into(),
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
    assert_eq!((first.pr, first.head_sha.as_deref()), (1, Some("c")), "the newest head of PR 1 wins");
    // PR 1 is held by w1: w2 gets PR 2, then nothing.
    let second = store.claim("w2", Duration::from_secs(30)).await.unwrap().expect("another job");
    assert_eq!(second.pr, 2);
    assert!(store.claim("w2", Duration::from_secs(30)).await.unwrap().is_none());
    assert!(store.complete(&first, "w1").await.unwrap());
    assert!(!store.complete(&first, "w1").await.unwrap(), "a job completes once");
    let counts = store.job_counts().await.unwrap();
    assert_eq!((counts.done, counts.superseded, counts.running), (1, 2, 1));
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

async fn reviews(store: Store) {
    let mut review = ReviewRecord {
        repo: "Acme/Docs".into(),
        pr: 3,
        review_id: 10,
        reviewer: "gyrum-lin".into(),
        state: "approved".into(),
        commit_id: Some("abc".into()),
    };
    store.record_review(&review).await.unwrap();
    review.state = "dismissed".into();
    store.record_review(&review).await.unwrap();
    let stored = store.reviews("acme/docs", 3).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].state, "dismissed");
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

both_engines!(dedup, concurrent_replays, coalesce, lease_expiry, retry_later, reviews);

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
