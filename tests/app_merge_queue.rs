//! GitHub's merge queue: the App answers `merge_group.checks_requested`
//! with the five check runs on the group's head, evaluating the group's
//! documents against its base, so two queued PRs that pass alone and
//! conflict together fail the group. Redelivered events make no second
//! run; a group GitHub will not describe gets its runs concluded.

mod common;

use common::*;
use gatehouse_sim::{Faults, MergeGroupRefs, Sim};
use serde_json::{Value, json};

const REPO: &str = "acme/docs";

/// A `merge_group` payload shaped like GitHub's webhook documentation.
fn merge_group_event(group: &MergeGroupRefs, action: &str) -> Value {
    let mut event = json!({
        "action": action,
        "merge_group": {
            "head_sha": group.head_sha,
            "head_ref": group.head_ref,
            "base_sha": group.base_sha,
            "base_ref": group.base_ref,
            "head_commit": {
                "id": group.head_sha,
                "tree_id": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                "message": "Merge pull request #2 from acme/change-2",
                "timestamp": "2026-11-30T10:00:00Z",
                "author": { "name": "Author", "email": "author@example.com" },
                "committer": { "name": "GitHub", "email": "noreply@github.com" }
            }
        },
        "repository": { "full_name": REPO, "name": "docs", "owner": { "login": "acme" } },
        "installation": { "id": INSTALLATION },
        "sender": { "login": "github-merge-queue[bot]", "type": "Bot" }
    });
    if action == "destroyed" {
        event["reason"] = json!("dequeued");
    }
    event
}

fn with_briefs(briefs: &[(&str, &str)]) -> gatehouse_sim::Tree {
    let mut head = base();
    for (path, agent) in briefs {
        head.insert(path.to_string(), brief(agent, 40).into_bytes());
    }
    head
}

const FIRST: &str = "dark-factory/briefs/SWARM-AR-backups.md";

/// Opens PR 1 adding a brief for agent AR and PR 2 adding `second` for
/// `agent`, and has the App evaluate both.
async fn two_prs(sim: &Sim, app: &gatehouse::app::Running, second: &str, agent: &str) -> [String; 2] {
    let one = sim.open_pr(REPO, 1, base(), with_briefs(&[(FIRST, "AR")]), "Backups.");
    let two = sim.open_pr(REPO, 2, base(), with_briefs(&[(second, agent)]), "Restores.");
    for n in [1, 2] {
        let event = sim.pull_request_event(REPO, n, "opened");
        assert_eq!(deliver(app.addr, "pull_request", &format!("pr-{n}"), &event).await, 202);
    }
    for sha in [&one.head_sha, &two.head_sha] {
        evaluated(sim, sha).await;
        let briefs = conclusion(sim, sha, "gatehouse/briefs");
        assert_eq!(briefs, "success", "each PR passes alone");
    }
    [one.head_sha, two.head_sha]
}

async fn evaluated(sim: &Sim, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the commit evaluated", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

fn conclusion(sim: &Sim, sha: &str, name: &str) -> String {
    let runs = sim.check_runs(REPO, sha);
    let run = runs.iter().filter(|r| r.name == name).max_by_key(|r| r.id).expect("a run of that check");
    run.conclusion.clone().unwrap_or_default()
}

#[tokio::test]
async fn two_prs_that_pass_alone_and_conflict_together_fail_the_group_on_the_right_line() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let second = "dark-factory/briefs/SWARM-AR-restores.md";
    two_prs(&sim, &app, second, "AR").await;
    let group = sim.queue_merge_group(REPO, &[1, 2]);
    let event = merge_group_event(&group, "checks_requested");
    assert_eq!(deliver(app.addr, "merge_group", "group-1", &event).await, 202);
    evaluated(&sim, &group.head_sha).await;
    jobs_idle(&app.store).await;
    // The push of the queue branch makes a check suite naming no PR.
    let suite = json!({
        "action": "requested",
        "check_suite": { "head_sha": group.head_sha, "head_branch": "gh-readonly-queue/main/pr-2", "pull_requests": [] },
        "repository": { "full_name": REPO },
        "installation": { "id": INSTALLATION },
    });
    assert_eq!(deliver(app.addr, "check_suite", "group-suite", &suite).await, 202);
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &group.head_sha);
    assert_eq!(runs.len(), gatehouse::publish::check_names().len(), "one run per check");
    let briefs = runs.iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    assert_eq!(briefs.conclusion.as_deref(), Some("failure"), "{}", briefs.summary);
    let duplicate: Vec<&Value> = briefs.annotations.iter().filter(|a| a["title"] == "brief/agent-duplicate").collect();
    let on = |path: &str| duplicate.iter().any(|a| a["path"] == path && a["start_line"] == 2);
    assert!(on(FIRST) && on(second), "the agent line of each brief: {duplicate:?}");
    let gate = runs.iter().find(|r| r.name == "gatehouse/review").unwrap();
    assert_eq!(gate.conclusion.as_deref(), Some("success"), "neither PR needs review: {}", gate.summary);
    assert!(gate.summary.contains("passes when every pull request in the group passed it"), "{}", gate.summary);
    assert!(gate.summary.contains("| #1 |") && gate.summary.contains("| #2 |"), "{}", gate.summary);
    app.kill();
}

#[tokio::test]
async fn a_clean_group_passes_and_redelivered_events_make_no_second_run_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    clean_group(Db::sqlite(&dir)).await;
}

#[tokio::test]
async fn a_clean_group_passes_and_redelivered_events_make_no_second_run_on_postgres() {
    let Some(db) = Db::postgres() else { return };
    clean_group(db).await;
}

async fn clean_group(db: Db) {
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    two_prs(&sim, &app, "dark-factory/briefs/SWARM-AS-restores.md", "AS").await;
    let group = sim.queue_merge_group(REPO, &[1, 2]);
    let event = merge_group_event(&group, "checks_requested");
    assert_eq!(deliver(app.addr, "merge_group", "group-1", &event).await, 202);
    evaluated(&sim, &group.head_sha).await;
    jobs_idle(&app.store).await;
    // GitHub's redelivery (same id), a replay under a new id, and a second
    // event for the same group (another body).
    assert_eq!(deliver(app.addr, "merge_group", "group-1", &event).await, 200);
    assert_eq!(deliver(app.addr, "merge_group", "group-1-again", &event).await, 200);
    let mut again = event.clone();
    again["sender"]["login"] = json!("octocat");
    assert_eq!(deliver(app.addr, "merge_group", "group-2", &again).await, 202);
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &group.head_sha);
    for name in gatehouse::publish::check_names() {
        let of_name: Vec<_> = runs.iter().filter(|r| r.name == name).collect();
        assert_eq!(of_name.len(), 1, "{name}: {of_name:?}");
        let ok = matches!(of_name[0].conclusion.as_deref(), Some("success" | "neutral"));
        assert!(ok, "{name} passes: {:?} {}", of_name[0].conclusion, of_name[0].summary);
    }
    assert_eq!(conclusion(&sim, &group.head_sha, "gatehouse/briefs"), "success");
    app.kill();
}

#[tokio::test]
async fn a_group_github_will_not_compare_gets_its_runs_concluded_and_re_run_and_leaving_the_queue_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    two_prs(&sim, &app, "dark-factory/briefs/SWARM-AS-restores.md", "AS").await;
    let group = sim.queue_merge_group(REPO, &[1, 2]);
    sim.set_faults(Faults { status_next: 1, status: 404, only: "/compare/".into(), ..Faults::default() });
    let event = merge_group_event(&group, "checks_requested");
    assert_eq!(deliver(app.addr, "merge_group", "group-1", &event).await, 202);
    evaluated(&sim, &group.head_sha).await;
    jobs_idle(&app.store).await;
    for run in sim.check_runs(REPO, &group.head_sha) {
        assert_eq!(run.conclusion.as_deref(), Some("failure"), "{}: concluded, not stranded", run.name);
        assert!(run.summary.contains("could not finish"), "{}", run.summary);
    }
    // GitHub's Re-run on one of the group's checks evaluates the group again.
    let rerun = json!({
        "action": "rerequested",
        "check_run": { "name": "gatehouse/briefs", "head_sha": group.head_sha, "pull_requests": [] },
        "repository": { "full_name": REPO },
        "installation": { "id": INSTALLATION },
    });
    assert_eq!(deliver(app.addr, "check_run", "rerun-briefs", &rerun).await, 202);
    jobs_idle(&app.store).await;
    assert_eq!(conclusion(&sim, &group.head_sha, "gatehouse/briefs"), "success");
    assert_eq!(conclusion(&sim, &group.head_sha, "gatehouse/voting"), "failure", "only the check re-run");
    let destroyed = merge_group_event(&group, "destroyed");
    assert_eq!(deliver(app.addr, "merge_group", "group-1-gone", &destroyed).await, 202);
    jobs_idle(&app.store).await;
    let counts = app.store.job_counts().await.unwrap();
    assert_eq!(counts.failed, 1, "only the job GitHub refused failed: {counts:?}");
    let runs = sim.check_runs(REPO, &group.head_sha);
    assert_eq!(runs.len(), gatehouse::publish::check_names().len() + 1, "leaving the queue adds no run");
    app.kill();
}
