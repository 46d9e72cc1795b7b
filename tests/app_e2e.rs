//! End to end over real HTTP: a signed webhook in, check runs and a review
//! out of the simulated GitHub.

mod common;

use common::*;
use gatehouse_sim::{Sim, Tree};

const REPO: &str = "acme/docs";

/// The head: a brief citing an ADR that does not exist (line 4).
fn head_with_missing_adr() -> Tree {
    let mut head = base();
    let text = brief("AR", 40)
        .replace("adrs_referenced: [ADR-095]", "adrs_referenced: [ADR-095, ADR-404]")
        .replace("Follows ADR-095", "Follows ADR-095 and ADR-404");
    head.insert(BRIEF.into(), text.into_bytes());
    head
}

fn head_fixed() -> Tree {
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", 40).into_bytes());
    head
}

async fn open(sim: &Sim, app: &gatehouse::app::Running, delivery: &str, head: Tree) -> String {
    let pr = sim.open_pr(REPO, 1, base(), head, "Adds the backup brief.");
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", delivery, &payload).await, 202);
    pr.head_sha
}

async fn all_completed(sim: &Sim, sha: &str, n: usize) {
    wait_for("check runs to complete", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() == n && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

#[tokio::test]
async fn a_pr_gets_check_runs_and_inline_comments() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = open(&sim, &app, "e2e-1", head_with_missing_adr()).await;
    let names = gatehouse::publish::check_names();
    all_completed(&sim, &head, names.len()).await;
    wait_for("the review", || !sim.reviews(REPO, 1).is_empty()).await;

    let runs = sim.check_runs(REPO, &head);
    let briefs = runs.iter().find(|r| r.name == "gatehouse/briefs").expect("briefs check");
    assert_eq!(briefs.conclusion.as_deref(), Some("failure"));
    assert!(briefs.summary.contains("Fix these first"), "{}", briefs.summary);
    let missing: Vec<_> = briefs.annotations.iter().filter(|a| a["title"] == "brief/adr-missing").collect();
    assert_eq!(missing.len(), 1, "{:#?}", briefs.annotations);
    assert_eq!((missing[0]["path"].as_str(), missing[0]["start_line"].as_u64()), (Some(BRIEF), Some(4)));
    let review = runs.iter().find(|r| r.name == "gatehouse/review").unwrap();
    assert_eq!(review.conclusion.as_deref(), Some("neutral"));
    for run in runs.iter().filter(|r| r.name != "gatehouse/briefs" && r.name != "gatehouse/review") {
        assert_eq!(run.conclusion.as_deref(), Some("neutral"), "{} touches nothing", run.name);
    }

    let reviews = sim.reviews(REPO, 1);
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].event, "COMMENT");
    assert_eq!(reviews[0].commit_id, head);
    let comment = reviews[0].comments.iter().find(|c| c.body.contains("brief/adr-missing")).expect("inline comment");
    assert_eq!((comment.path.as_str(), comment.line), (BRIEF, 4));
    assert!(comment.body.contains("<!-- gatehouse:fingerprint="));

    // The same head again (a re-run): GitHub shows what the evaluation
    // decides already, so nothing is written: no run, no review, no comment.
    sim.clear_requests();
    let payload = sim.pull_request_event(REPO, 1, "reopened");
    assert_eq!(deliver(app.addr, "pull_request", "e2e-2", &payload).await, 202);
    jobs_idle(&app.store).await;
    assert_eq!(sim.check_runs(REPO, &head).len(), names.len(), "no run written again");
    assert_eq!(sim.reviews(REPO, 1).len(), 1, "one review per head");
    let writes: Vec<_> =
        sim.requests().into_iter().filter(|r| r.method != "GET" && r.path.starts_with("/repos/")).collect();
    assert!(writes.is_empty(), "the same head delivered again writes nothing: {writes:#?}");
    assert!(sim.requests().iter().any(|r| r.path.ends_with("/check-runs")), "it was evaluated again");

    // Fixing the brief resolves its thread.
    let fixed = sim.push(REPO, 1, head_fixed());
    let payload = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", "e2e-3", &payload).await, 202);
    all_completed(&sim, &fixed, names.len()).await;
    wait_for("the thread resolved", || sim.threads(REPO, 1).iter().all(|t| t.resolved)).await;
    let runs = sim.check_runs(REPO, &fixed);
    let briefs = runs.iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    assert_eq!(briefs.conclusion.as_deref(), Some("success"), "{}", briefs.summary);
    app.kill();
}

#[tokio::test]
async fn the_review_gate_follows_the_reviews() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut head_tree = base();
    head_tree.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    let head = open(&sim, &app, "gate-1", head_tree).await;
    all_completed(&sim, &head, gatehouse::publish::check_names().len()).await;
    jobs_idle(&app.store).await;
    let gate = |sim: &Sim| {
        let mut runs: Vec<_> =
            sim.check_runs(REPO, &head).into_iter().filter(|r| r.name == "gatehouse/review").collect();
        runs.sort_by_key(|r| r.id);
        runs.pop().expect("a review gate run")
    };
    let first = gate(&sim);
    assert_eq!(first.conclusion.as_deref(), Some("failure"));
    assert!(
        first.summary.contains("2 more approvals from gyrum-marcus, gyrum-priya or gyrum-lin"),
        "{}",
        first.summary
    );
    assert!(first.summary.contains("gyrum-dana has not reviewed"), "{}", first.summary);
    assert!(first.summary.contains("lines_estimate 400 > 100"), "{}", first.summary);

    for (n, (login, state)) in
        [("gyrum-marcus", "APPROVED"), ("gyrum-priya", "APPROVED"), ("gyrum-dana", "COMMENTED")].into_iter().enumerate()
    {
        let payload = sim.add_review(REPO, 1, login, state);
        assert_eq!(deliver(app.addr, "pull_request_review", &format!("gate-review-{n}"), &payload).await, 202);
        jobs_idle(&app.store).await;
    }
    let last = gate(&sim);
    assert_eq!(last.conclusion.as_deref(), Some("success"), "{}", last.summary);
    assert!(last.summary.contains("Review gate passed: 2 of 2 core approvals"), "{}", last.summary);
    let briefs = sim.check_runs(REPO, &head).into_iter().filter(|r| r.name == "gatehouse/briefs").count();
    assert_eq!(briefs, 1, "a review re-evaluates the gate only");

    // A push that edits the approved brief: the approvals given before it no longer count.
    let mut pushed = base();
    pushed.insert(BRIEF.into(), brief("AR", 401).into_bytes());
    let new_head = sim.push(REPO, 1, pushed);
    let payload = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", "gate-push", &payload).await, 202);
    all_completed(&sim, &new_head, gatehouse::publish::check_names().len()).await;
    let after_push = sim.check_runs(REPO, &new_head).into_iter().find(|r| r.name == "gatehouse/review").unwrap();
    assert_eq!(after_push.conclusion.as_deref(), Some("failure"), "{}", after_push.summary);
    let short: String = new_head.chars().take(7).collect();
    assert!(
        after_push
            .summary
            .contains(&format!("2 more approvals from gyrum-marcus, gyrum-priya or gyrum-lin on {short}")),
        "{}",
        after_push.summary
    );
    let old: String = head.chars().take(7).collect();
    for login in ["gyrum-marcus", "gyrum-priya"] {
        let ended = format!("- {login} on `{old}`: no longer counts: `{BRIEF}` has changed since.");
        assert!(after_push.summary.contains(&ended), "{}", after_push.summary);
    }
    app.kill();
}

#[tokio::test]
async fn a_small_brief_leaves_the_review_gate_neutral() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = open(&sim, &app, "small-1", head_fixed()).await;
    all_completed(&sim, &head, gatehouse::publish::check_names().len()).await;
    let gate = sim.check_runs(REPO, &head).into_iter().find(|r| r.name == "gatehouse/review").unwrap();
    assert_eq!(gate.conclusion.as_deref(), Some("neutral"));
    assert!(gate.summary.contains("operator's call"), "{}", gate.summary);
    app.kill();
}
