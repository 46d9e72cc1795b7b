//! A secondary-limit refusal holds the whole installation: the simulated
//! GitHub refuses one write in the middle of a burst of several pull
//! requests of one installation, and no request of that installation leaves
//! before the `retry-after` it named, from any worker of the App nor, on
//! PostgreSQL, from a second replica sharing the database; the burst then
//! settles with the writes an unrefused burst makes, and the refused one.

mod common;

use common::*;
use gatehouse_sim::{Faults, Logged, Sim};

const REPO: &str = "acme/docs";
const PRS: u64 = 4;

/// The write the simulated GitHub refuses: the first pull request's review
/// (or review request), when the burst's other jobs are reading and writing
/// too.
const REFUSED: &str = "POST /repos/acme/docs/pulls/";

/// Opens [`PRS`] pull requests, delivers each to one of `apps` in turn, and
/// waits until every check run of every head is completed and no job is left.
async fn burst(sim: &Sim, apps: &[&gatehouse::app::Running]) {
    let heads: Vec<String> = (1..=PRS)
        .map(|number| {
            let brief = brief(&format!("P{number}"), 40);
            sim.open_pr(REPO, number, base(), with_brief(&brief), "A change.").head_sha
        })
        .collect();
    for number in 1..=PRS {
        let app = apps[number as usize % apps.len()];
        let payload = sim.pull_request_event(REPO, number, "opened");
        assert_eq!(deliver(app.addr, "pull_request", &format!("pause-{number}"), &payload).await, 202);
    }
    let names = gatehouse::publish::check_names().len();
    wait_for("every check run of every head completed", || {
        heads.iter().all(|head| {
            let runs = sim.check_runs(REPO, head);
            runs.len() == names && runs.iter().all(|r| r.status == "completed")
        })
    })
    .await;
    for app in apps {
        jobs_idle(&app.store).await;
    }
}

/// The REST writes GitHub answered, as method and route (ids, which follow
/// the order writes arrived in, as `{n}`), sorted.
fn writes_applied(requests: &[Logged]) -> Vec<String> {
    let route = |path: &str| -> String {
        let parts: Vec<&str> = path
            .split('/')
            .map(|p| if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) { "{n}" } else { p })
            .collect();
        parts.join("/")
    };
    let mut writes: Vec<String> = requests
        .iter()
        .filter(|r| r.method != "GET" && r.path.starts_with("/repos/") && r.status < 300)
        .map(|r| format!("{} {}", r.method, route(&r.path)))
        .collect();
    writes.sort();
    writes
}

fn refusals(requests: &[Logged]) -> usize {
    requests.iter().filter(|r| r.status == 403 || r.status == 429).count()
}

/// The burst on `replicas` Apps of `db` (a fresh database each time), with
/// one write refused for `retry-after: 2` when `refuse` says so; returns the
/// simulated GitHub's log.
async fn run(db: &Db, replicas: usize, refuse: bool) -> (Vec<Logged>, u32) {
    let sim = sim().await;
    // Each write in flight long enough that other jobs' writes wait for
    // their turn behind it, as they do in a burst against GitHub.
    sim.set_latency(std::time::Duration::from_millis(100));
    if refuse {
        sim.set_faults(Faults {
            rate_limit_next: 1,
            retry_after_s: 2,
            rate_limit_status: 403,
            only: REFUSED.into(),
            ..Faults::default()
        });
    }
    let mut apps = Vec::new();
    for _ in 0..replicas {
        let mut config = config(db, &sim.url());
        // A job held by the pause shows no runs in progress: its writes are
        // those of a job that was not held, and the two bursts compare.
        config.progress_after = std::time::Duration::from_secs(600);
        apps.push(start_app(config).await);
    }
    burst(&sim, &apps.iter().collect::<Vec<_>>()).await;
    for app in apps {
        app.kill();
    }
    (sim.requests(), sim.sent_while_limited())
}

async fn one_refusal_holds_the_installation(unrefused_db: Db, refused_db: Db, replicas: usize) {
    let (unrefused, _) = run(&unrefused_db, replicas, false).await;
    assert_eq!(refusals(&unrefused), 0, "the unrefused burst stays within GitHub's limits: {unrefused:#?}");
    let (refused, sent_while_limited) = run(&refused_db, replicas, true).await;
    assert_eq!(sent_while_limited, 0, "nothing was sent before retry-after was over: {refused:#?}");
    assert_eq!(refusals(&refused), 1, "only the refused write met the limit: {refused:#?}");
    let writes = writes_applied(&refused);
    assert_eq!(writes, writes_applied(&unrefused), "no write was repeated, none left out");
    let refused_sent = refused.iter().filter(|r| r.method != "GET" && r.path.starts_with("/repos/")).count();
    assert_eq!(refused_sent, writes.len() + 1, "the refused write was sent once more, after the wait");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_holds_every_worker_of_the_app() {
    let (unrefused, refused) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    one_refusal_holds_the_installation(Db::sqlite(&unrefused), Db::sqlite(&refused), 1).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_holds_every_replica_on_one_database() {
    let (Some(unrefused), Some(refused)) = (Db::postgres(), Db::postgres()) else { return };
    one_refusal_holds_the_installation(unrefused, refused, 2).await;
}
