//! Exactly once under GitHub's delivery patterns: a push makes a
//! `pull_request` event and a `check_suite.requested` whose `pull_requests`
//! list is empty (a fork's PR), delivered together, to one App or to two
//! replicas sharing a database. Each head gets one check run per check, at
//! most one review, and no finding is commented twice.

mod common;

use std::collections::BTreeSet;

use common::*;
use gatehouse_sim::Tree;

const REPO: &str = "acme/docs";
const ROUNDS: u64 = 50;
/// Pushes per PR: round 0 of a PR opens it, the others push to it.
const PUSHES: u64 = 5;

/// A brief with one finding that stays (a missing ADR) and one that is new
/// in each round (a missing path).
fn head(round: u64) -> Tree {
    let text = brief("AR", 40).replace("[ADR-095]", "[ADR-095, ADR-404]").replace(
        "Follows ADR-095",
        &format!("Follows ADR-095 and ADR-404.\n\nStep {round} edits `missing/file-{round}.md`"),
    );
    let mut head = base();
    head.insert(BRIEF.into(), text.into_bytes());
    head
}

async fn rounds(db: Db, replicas: usize) {
    let sim = sim().await;
    let mut apps = Vec::new();
    for _ in 0..replicas {
        // The rounds make more writes a minute than GitHub.com takes: the
        // write budget is tests/app_rate_limits.rs's subject, not this one's.
        let mut config = config(&db, &sim.url());
        without_secondary_limits(&sim, &mut config);
        apps.push(start_app(config).await);
    }
    let names = gatehouse::publish::check_names();
    let mut heads = Vec::new();
    for round in 0..ROUNDS {
        let number = round / PUSHES + 1;
        let (sha, action) = if round % PUSHES == 0 {
            let pr = sim.open_pr(REPO, number, base(), head(round), "A change.");
            sim.set_fork(REPO, number);
            (pr.head_sha, "opened")
        } else {
            (sim.push(REPO, number, head(round)), "synchronize")
        };
        let event = sim.pull_request_event(REPO, number, action);
        let suite = sim.check_suite_event(REPO, number);
        assert!(suite["check_suite"]["pull_requests"].as_array().unwrap().is_empty(), "fork-shaped");
        let first = &apps[round as usize % replicas];
        let second = &apps[(round as usize + 1) % replicas];
        let (pr_id, suite_id) = (format!("pr-{round}"), format!("suite-{round}"));
        let (a, b) = tokio::join!(
            deliver(first.addr, "pull_request", &pr_id, &event),
            deliver(second.addr, "check_suite", &suite_id, &suite),
        );
        assert_eq!((a, b), (202, 202));
        wait_for("the head evaluated", || {
            let runs = sim.check_runs(REPO, &sha);
            runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
        })
        .await;
        jobs_idle(&apps[0].store).await;
        heads.push((number, sha));
    }
    for (number, sha) in &heads {
        let runs = sim.check_runs(REPO, sha);
        for name in &names {
            let of_name = runs.iter().filter(|r| &r.name == name).count();
            assert_eq!(of_name, 1, "PR {number} head {sha}: {of_name} runs of {name}");
        }
        let reviews = sim.reviews(REPO, *number).into_iter().filter(|r| &r.commit_id == sha).count();
        assert!(reviews <= 1, "PR {number} head {sha}: {reviews} reviews");
    }
    for number in 1..=ROUNDS / PUSHES {
        let mut seen = BTreeSet::new();
        for review in sim.reviews(REPO, number) {
            let bodies = std::iter::once(review.body.clone()).chain(review.comments.iter().map(|c| c.body.clone()));
            for body in bodies {
                for fingerprint in fingerprints(&body) {
                    assert!(seen.insert(fingerprint.clone()), "PR {number}: {fingerprint} commented twice");
                }
            }
        }
        assert!(seen.len() >= PUSHES as usize, "PR {number}: every round's new finding was commented: {seen:?}");
    }
    for app in apps {
        app.kill();
    }
}

fn fingerprints(body: &str) -> Vec<String> {
    const MARK: &str = "<!-- gatehouse:fingerprint=";
    body.match_indices(MARK)
        .filter_map(|(at, _)| {
            let rest = &body[at + MARK.len()..];
            rest.find(" -->").map(|end| rest[..end].to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_push_and_a_fork_check_suite_make_one_evaluation_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    rounds(Db::sqlite(&dir), 1).await;
}

#[tokio::test]
async fn a_push_and_a_fork_check_suite_make_one_evaluation_on_two_postgres_replicas() {
    let Some(db) = Db::postgres() else { return };
    rounds(db, 2).await;
}

/// A review submitted while the PR is being evaluated waits for that
/// evaluation; the gate is evaluated after it, on its own run.
#[tokio::test]
async fn a_review_gate_job_waits_for_the_full_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut big = base();
    big.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    let pr = sim.open_pr(REPO, 1, base(), big, "A change.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    let review = sim.add_review(REPO, 1, "gyrum-marcus", "APPROVED");
    let (a, b) = tokio::join!(
        deliver(app.addr, "pull_request", "gate-pr", &event),
        deliver(app.addr, "pull_request_review", "gate-review", &review),
    );
    assert_eq!((a, b), (202, 202));
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(REPO, &pr.head_sha);
        runs.len() >= gatehouse::publish::check_names().len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &pr.head_sha);
    let briefs = runs.iter().filter(|r| r.name == "gatehouse/briefs").count();
    assert_eq!(briefs, 1, "the review re-ran the gate only");
    let mut gates: Vec<_> = runs.iter().filter(|r| r.name == "gatehouse/review").collect();
    gates.sort_by_key(|r| r.id);
    let last = gates.last().unwrap();
    assert!(last.summary.contains("1 more approval"), "the gate saw the review: {}", last.summary);
    assert!(sim.reviews(REPO, 1).iter().filter(|r| r.user == "gatehouse[bot]").count() <= 1);
    app.kill();
}
