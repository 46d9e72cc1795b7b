//! A captured signed delivery resent with new delivery ids: the body is
//! recognised (a digest of the signed bytes) and makes no second job.

mod common;

use common::*;
use gatehouse_sim::Tree;

const REPO: &str = "acme/docs";

async fn resent(db: Db) {
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let (adr_path, adr_text) = adr();
    let base: Tree = tree(&[(adr_path, adr_text)]);
    let mut head = base.clone();
    head.insert("dark-factory/briefs/SWARM-AR-backups.md".into(), brief("AR", 40).into_bytes());
    let pr = sim.open_pr(REPO, 1, base, head, "A change.");
    let captured = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "original", &captured).await, 202);
    for n in 1..=10 {
        assert_eq!(deliver(app.addr, "pull_request", &format!("resent-{n}"), &captured).await, 200, "resend {n}");
    }
    jobs_idle(&app.store).await;
    assert_eq!(app.store.deliveries().await.unwrap(), 1);
    assert_eq!(app.store.jobs().await.unwrap().len(), 1);
    assert_eq!(sim.check_runs(REPO, &pr.head_sha).len(), gatehouse::publish::check_names().len());
    app.kill();
}

#[tokio::test]
async fn a_resent_body_is_one_delivery_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    resent(Db::sqlite(&dir)).await;
}

#[tokio::test]
async fn a_resent_body_is_one_delivery_on_postgres() {
    let Some(db) = Db::postgres() else { return };
    resent(db).await;
}
