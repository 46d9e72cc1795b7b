//! The App writes the check runs of the families a pull request touches
//! and those its base branch requires (rulesets, the organisation's and the
//! repository's, and classic branch protection), and no others; when the
//! rules cannot be read, every check, as if each were required.

mod common;

use std::collections::BTreeSet;

use common::*;
use gatehouse_sim::{Faults, Sim};

const REPO: &str = "acme/docs";

/// Opens a pull request adding a brief over the review gate's threshold
/// and waits until the App settled; returns the names of the runs on its
/// head and the writes it took.
async fn brief_pr(sim: &Sim) -> (BTreeSet<String>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 400)), "Backups.");
    let before = sim.content_writes();
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened-1", &event).await, 202);
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &pr.head_sha);
    assert!(runs.iter().all(|r| r.status == "completed"), "{runs:#?}");
    let writes = sim.content_writes() - before;
    app.kill();
    (runs.into_iter().map(|r| r.name).collect(), writes)
}

fn names(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[tokio::test]
async fn a_brief_change_takes_at_most_four_writes_where_the_briefs_and_the_gate_are_required() {
    let sim = bare_sim().await;
    sim.require_checks_by_ruleset(Some(REPO), "main", &["gatehouse/briefs", "gatehouse/review"], Some(APP_ID));
    let (runs, writes) = brief_pr(&sim).await;
    assert_eq!(runs, names(&["gatehouse/briefs", "gatehouse/review"]));
    assert!(writes <= 4, "{writes} writes");
    assert_eq!(sim.requested_reviewers(REPO, 1).len(), 4, "the gate asked its reviewers");

    // Where every check is required, every one is written.
    let every = common::sim().await;
    let (runs, writes_of_every) = brief_pr(&every).await;
    assert_eq!(runs.len(), gatehouse::publish::check_names().len());
    assert_eq!(writes_of_every, writes + 4, "four more runs");
}

#[tokio::test]
async fn protection_and_the_organisation_s_ruleset_are_read_and_another_app_s_checks_are_not_ours() {
    let sim = bare_sim().await;
    sim.require_checks_by_protection(REPO, "main", &["gatehouse/specs", "ci/build"]);
    sim.require_checks_by_ruleset(None, "main", &["gatehouse/voting"], None);
    sim.require_checks_by_ruleset(Some(REPO), "main", &["gatehouse/decisions"], Some(APP_ID + 1));
    sim.require_checks_by_ruleset(Some("acme/other"), "main", &["gatehouse/config"], Some(APP_ID));
    let (runs, _) = brief_pr(&sim).await;
    let expected = ["gatehouse/briefs", "gatehouse/review", "gatehouse/specs", "gatehouse/voting"];
    assert_eq!(runs, names(&expected));
}

#[tokio::test]
async fn rules_that_cannot_be_read_have_every_check_written() {
    let sim = bare_sim().await;
    sim.set_faults(Faults { status_next: 1, status: 403, only: "/rules/branches/".into(), ..Faults::default() });
    let (runs, _) = brief_pr(&sim).await;
    assert_eq!(runs.len(), gatehouse::publish::check_names().len(), "{runs:?}");
}

#[tokio::test]
async fn a_head_answered_with_fewer_checks_is_not_read_again() {
    let sim = bare_sim().await;
    sim.require_checks_by_ruleset(Some(REPO), "main", &["gatehouse/briefs", "gatehouse/review"], Some(APP_ID));
    let dir = tempfile::tempdir().unwrap();
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 400)), "Backups.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened-1", &event).await, 202);
    jobs_idle(&app.store).await;
    let writes = sim.content_writes();
    sim.clear_requests();

    // `synchronize` of the same head (GitHub sends it with `opened` and the
    // check suite for a push): the head was answered.
    let again = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", "synchronize-1", &again).await, 202);
    jobs_idle(&app.store).await;
    let paths: Vec<String> = sim.requests().into_iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert!(!paths.iter().any(|p| p.ends_with("/pulls/1/files")), "the change is not read again: {paths:#?}");
    assert_eq!(sim.content_writes(), writes, "nothing written again");
    app.kill();
}

#[tokio::test]
async fn a_slow_evaluation_shows_only_the_checks_it_writes_in_progress() {
    let sim = bare_sim().await;
    sim.require_checks_by_ruleset(Some(REPO), "main", &["gatehouse/briefs", "gatehouse/review"], Some(APP_ID));
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    // Every evaluation outlasts a person's patience: its checks are shown in progress first.
    config.progress_after = std::time::Duration::ZERO;
    let app = start_app(config).await;
    let pr = sim.open_pr(REPO, 1, base(), with_brief(&brief("AR", 400)), "Backups.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened-1", &event).await, 202);
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &pr.head_sha);
    assert!(runs.iter().all(|r| r.status == "completed"), "{runs:#?}");
    assert_eq!(
        runs.into_iter().map(|r| r.name).collect::<BTreeSet<_>>(),
        names(&["gatehouse/briefs", "gatehouse/review"])
    );
    // Each run created in progress and completed, the review request and the review.
    assert!(sim.content_writes() <= 6, "{} writes", sim.content_writes());
    app.kill();
}
