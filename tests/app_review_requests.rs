//! The App asks for the reviews the gate needs: the core reviewers who
//! could still approve and the advisory reviewers, once per head, never a
//! recused reviewer or one who reviewed; a login GitHub refuses is named in
//! the `gatehouse/review` summary and not asked again; the config can turn
//! it off.

mod common;

use common::*;
use gatehouse_sim::{Sim, Tree};

const REPO: &str = "acme/docs";

/// A brief over the review threshold (400 lines): the gate applies.
fn big_change(base: Tree) -> Tree {
    let mut head = base;
    head.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    head
}

fn review_request_posts(sim: &Sim) -> usize {
    sim.requests().iter().filter(|r| r.method == "POST" && r.path.ends_with("/requested_reviewers")).count()
}

fn last_gate(sim: &Sim, sha: &str) -> gatehouse_sim::CheckRun {
    let runs = sim.check_runs(REPO, sha);
    runs.into_iter().filter(|r| r.name == "gatehouse/review").max_by_key(|r| r.id).expect("a gate run")
}

async fn evaluated(sim: &Sim, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

#[tokio::test]
async fn the_gate_asks_who_it_needs_once_per_head() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 1, base(), big_change(base()), "Backups.");
    sim.set_commit_authors(REPO, 1, &["gyrum-marcus"]);
    sim.add_review(REPO, 1, "gyrum-priya", "COMMENTED");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    assert_eq!(sim.requested_reviewers(REPO, 1), ["gyrum-lin", "gyrum-dana"], "not recused marcus, not priya");
    let gate = last_gate(&sim, &pr.head_sha);
    assert!(gate.summary.contains("requested reviews from `gyrum-lin`, `gyrum-dana`"), "{}", gate.summary);
    // Another evaluation of the same head (a review) asks nobody again.
    let review = sim.add_review(REPO, 1, "gyrum-lin", "APPROVED");
    assert_eq!(deliver(app.addr, "pull_request_review", "lin-approves", &review).await, 202);
    wait_for("the gate evaluated again", || last_gate(&sim, &pr.head_sha).id != gate.id).await;
    jobs_idle(&app.store).await;
    assert_eq!(review_request_posts(&sim), 1);
    assert_eq!(sim.requested_reviewers(REPO, 1), ["gyrum-dana"], "lin reviewed");
    app.kill();
}

#[tokio::test]
async fn without_a_policy_the_gate_says_how_to_configure_it_and_asks_nobody() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let mut unconfigured = base();
    unconfigured.remove(".github/gatehouse.yml");
    let pr = sim.open_pr(REPO, 1, unconfigured.clone(), big_change(unconfigured), "Backups.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    let gate = last_gate(&sim, &pr.head_sha);
    assert_eq!((gate.conclusion.as_deref(), gate.title.as_str()), (Some("neutral"), "Review gate not configured"));
    assert!(gate.summary.contains("review:\n  core: { reviewers: ["), "{}", gate.summary);
    assert!(gate.summary.contains("lines_estimate 400 > 100"), "{}", gate.summary);
    assert!(!gate.summary.contains("gyrum-"), "{}", gate.summary);
    assert_eq!(review_request_posts(&sim), 0);
    app.kill();
}

#[tokio::test]
async fn a_login_github_refuses_is_named_and_not_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    sim.refuse_reviewer(REPO, "gyrum-dana");
    let pr = sim.open_pr(REPO, 1, base(), big_change(base()), "Backups.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    assert_eq!(sim.requested_reviewers(REPO, 1), ["gyrum-marcus", "gyrum-priya", "gyrum-lin"]);
    let gate = last_gate(&sim, &pr.head_sha);
    assert!(gate.summary.contains("refused to request a review from `gyrum-dana`"), "{}", gate.summary);
    let posts = review_request_posts(&sim);
    assert_eq!(posts, 5, "the whole list once, then each login once");
    let rerun = sim.check_suite_event(REPO, 1).to_string().replace("\"requested\"", "\"rerequested\"");
    let rerun: serde_json::Value = serde_json::from_str(&rerun).unwrap();
    assert_eq!(deliver(app.addr, "check_suite", "rerun", &rerun).await, 202);
    wait_for("the head evaluated again", || last_gate(&sim, &pr.head_sha).id != gate.id).await;
    jobs_idle(&app.store).await;
    assert_eq!(review_request_posts(&sim), posts, "dana is not asked again");
    assert!(last_gate(&sim, &pr.head_sha).summary.contains("`gyrum-dana`"), "still named");
    app.kill();
}

#[tokio::test]
async fn the_config_turns_it_off() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let mut configured = base();
    let policy = format!("{REVIEW_POLICY}  request_reviewers: false\n");
    configured.insert(".github/gatehouse.yml".into(), policy.into_bytes());
    let pr = sim.open_pr(REPO, 1, configured.clone(), big_change(configured), "Backups.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    assert_eq!(last_gate(&sim, &pr.head_sha).conclusion.as_deref(), Some("failure"), "the gate applies");
    assert_eq!(review_request_posts(&sim), 0);
    assert!(sim.requested_reviewers(REPO, 1).is_empty());
    app.kill();
}
