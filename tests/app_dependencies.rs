//! Approvals bound to what was approved, and re-checks that follow what
//! documents depend on, on the simulated GitHub: an approval survives a
//! merge of the base branch into the pull request and a push that edits
//! another file, and ends on a push that edits the approved brief (whose
//! reviewers are asked again); a push to the default branch that changes
//! ADR-095 evaluates again the two open pull requests whose briefs cite it
//! and not the third, and one that changes the config evaluates all three.
//! The dependency index is kept in SQLite and PostgreSQL alike.

mod common;

use common::*;
use gatehouse::store::{Dependencies, Dependency};
use gatehouse_sim::{CheckRun, Sim, Tree};

const REPO: &str = "acme/docs";

fn latest(sim: &Sim, sha: &str, name: &str) -> Option<CheckRun> {
    sim.check_runs(REPO, sha).into_iter().filter(|r| r.name == name).max_by_key(|r| r.id)
}

async fn evaluated(sim: &Sim, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

fn gate(sim: &Sim, sha: &str) -> CheckRun {
    latest(sim, sha, "gatehouse/review").expect("a gate run")
}

async fn synchronize(sim: &Sim, app: &gatehouse::app::Running, sha: &str, delivery: &str) -> CheckRun {
    let event = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", delivery, &event).await, 202);
    evaluated(sim, sha).await;
    jobs_idle(&app.store).await;
    gate(sim, sha)
}

fn short(sha: &str) -> &str {
    &sha[..7]
}

#[tokio::test]
async fn an_approval_follows_the_brief_it_approved() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = with_brief(&brief("AR", 400));
    let pr = sim.open_pr(REPO, 1, base(), head.clone(), "Backups.");
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &event).await, 202);
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    for (login, state) in [("gyrum-marcus", "APPROVED"), ("gyrum-lin", "APPROVED"), ("gyrum-dana", "COMMENTED")] {
        let review = sim.add_review(REPO, 1, login, state);
        assert_eq!(deliver(app.addr, "pull_request_review", &format!("review-{login}"), &review).await, 202);
        jobs_idle(&app.store).await;
    }
    wait_for("the gate passed", || gate(&sim, &pr.head_sha).conclusion.as_deref() == Some("success")).await;

    // Another PR merges a README change into main; the author merges main in.
    let mut main = base();
    main.insert("README.md".into(), b"# docs\n\nNow with a table of contents.\n".to_vec());
    sim.push_to_default_branch(REPO, 1, main, "Merge pull request #7");
    let merged = sim.merge_base_into(REPO, 1);
    let run = synchronize(&sim, &app, &merged, "merge-main").await;
    assert_eq!(run.conclusion.as_deref(), Some("success"), "{}", run.summary);
    let kept = format!(
        "- gyrum-marcus on `{}`: counts: `{BRIEF}` is byte for byte the same at the head.",
        short(&pr.head_sha)
    );
    assert!(run.summary.contains(&kept), "{}", run.summary);

    // A push that edits another file keeps the approvals.
    let mut notes = sim_tree(&sim, &merged);
    notes.insert("notes/rollout.md".into(), b"# Rollout\n\nTuesdays only.\n".to_vec());
    let edited_elsewhere = sim.push(REPO, 1, notes.clone());
    let run = synchronize(&sim, &app, &edited_elsewhere, "notes").await;
    assert_eq!(run.conclusion.as_deref(), Some("success"), "{}", run.summary);

    // A push that edits the approved brief ends them; their reviewers are asked again.
    notes.insert(BRIEF.into(), brief("AR", 450).into_bytes());
    let edited_brief = sim.push(REPO, 1, notes);
    let run = synchronize(&sim, &app, &edited_brief, "brief").await;
    assert_eq!(run.conclusion.as_deref(), Some("failure"), "{}", run.summary);
    let ended = format!("- gyrum-lin on `{}`: no longer counts: `{BRIEF}` has changed since.", short(&pr.head_sha));
    assert!(run.summary.contains(&ended), "{}", run.summary);
    let asked = sim.requested_reviewers(REPO, 1);
    for login in ["gyrum-marcus", "gyrum-lin"] {
        assert!(asked.iter().any(|l| l == login), "{login} asked again: {asked:?}");
    }
    app.kill();
}

/// The files of commit `sha` as the simulated GitHub serves them.
fn sim_tree(sim: &Sim, sha: &str) -> Tree {
    sim.commit_tree(REPO, sha).expect("a stored commit")
}

const ADR_090: (&str, &str) = (
    "docs/adr/ADR-090-ai-scaffold.md",
    "# ADR-090: AI is the scaffold\n\nStatus: Accepted\n\nPipelines are the runtime.\n",
);

fn main_tree() -> Tree {
    let mut main = base();
    main.insert(ADR_090.0.into(), ADR_090.1.as_bytes().to_vec());
    main
}

fn brief_pr(agent: &str, adr: &str) -> Tree {
    let mut head = main_tree();
    let text = brief(agent, 80).replace("ADR-095", adr);
    head.insert(format!("dark-factory/briefs/SWARM-{agent}-work.md"), text.into_bytes());
    head
}

#[tokio::test]
async fn a_push_to_main_rechecks_the_pull_requests_that_depend_on_what_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::postgres().unwrap_or_else(|| Db::sqlite(&dir));
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let prs = [(1, "AR", "ADR-095"), (2, "AS", "ADR-095"), (3, "AT", "ADR-090")];
    let mut heads = Vec::new();
    for (number, agent, adr) in prs {
        let pr = sim.open_pr(REPO, number, main_tree(), brief_pr(agent, adr), "A brief.");
        let event = sim.pull_request_event(REPO, number, "opened");
        assert_eq!(deliver(app.addr, "pull_request", &format!("open-{number}"), &event).await, 202);
        evaluated(&sim, &pr.head_sha).await;
        heads.push(pr.head_sha);
    }
    jobs_idle(&app.store).await;
    let briefs_run = |i: usize| latest(&sim, &heads[i], "gatehouse/briefs").expect("a briefs run");
    let before: Vec<u64> = (0..3).map(|i| briefs_run(i).id).collect();
    assert!(!briefs_run(0).summary.contains("ADR-095 is superseded"), "{}", briefs_run(0).summary);

    // Another PR merges into main: ADR-095 is superseded by ADR-120.
    let mut main = main_tree();
    let (adr_path, adr_text) = adr();
    let superseded = adr_text.replace("Status: Accepted", "Status: Superseded\n\nSuperseded by: ADR-120");
    main.insert(adr_path.into(), superseded.into_bytes());
    main.insert("docs/adr/ADR-120-snapshots.md".into(), b"# ADR-120: Snapshots\n\nStatus: Accepted\n".to_vec());
    let push = sim.push_to_default_branch(REPO, 1, main.clone(), "Supersede ADR-095");
    assert_eq!(deliver(app.addr, "push", "supersede", &push).await, 202);
    for i in [0, 1] {
        wait_for("the PR evaluated again", || briefs_run(i).id != before[i] && briefs_run(i).status == "completed")
            .await;
    }
    jobs_idle(&app.store).await;
    let brief_path = |agent: &str| format!("dark-factory/briefs/SWARM-{agent}-work.md");
    for (i, agent) in [(0, "AR"), (1, "AS")] {
        let run = briefs_run(i);
        let moved = format!("- `{adr_path}` changed (cited by `{}`)", brief_path(agent));
        assert!(run.summary.contains("since this pull request's last evaluation"), "{}", run.summary);
        assert!(run.summary.contains(&moved), "{}", run.summary);
        let findings = format!("{run:?}");
        assert!(
            findings.contains("ADR-095 is superseded by ADR-120"),
            "the brief is checked against main's ADR: {findings}"
        );
    }
    assert_eq!(briefs_run(2).id, before[2], "PR 3 cites ADR-090 only: not evaluated again");

    // A config change on main re-checks every pull request.
    let before: Vec<u64> = (0..3).map(|i| briefs_run(i).id).collect();
    main.insert(".github/gatehouse.yml".into(), b"briefs:\n  review_threshold: { lines: 50, repos: 1 }\n".to_vec());
    let push = sim.push_to_default_branch(REPO, 1, main, "Lower the review threshold");
    assert_eq!(deliver(app.addr, "push", "config", &push).await, 202);
    for (i, was) in before.iter().enumerate() {
        wait_for("every PR evaluated again", || briefs_run(i).id != *was && briefs_run(i).status == "completed").await;
    }
    jobs_idle(&app.store).await;
    let run = briefs_run(2);
    assert!(
        run.summary.contains("- `.github/gatehouse.yml` changed (the configuration every evaluation reads)"),
        "{}",
        run.summary
    );
    app.kill();
}

#[tokio::test]
async fn the_dependency_index_is_kept_in_sqlite_and_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let mut dbs = vec![Db::sqlite(&dir)];
    dbs.extend(Db::postgres());
    for db in dbs {
        let store = db.store().await;
        let entry = |pr: u64, digest: Option<&str>| Dependencies {
            pr,
            base_sha: format!("base{pr}"),
            documents: vec![Dependency {
                path: "docs/adr/ADR-095-backups.md".into(),
                why: "cited by `dark-factory/briefs/SWARM-AR-x.md`".into(),
                digest: digest.map(str::to_string),
            }],
        };
        assert_eq!(store.dependencies("Acme/Docs", 1).await.unwrap(), None);
        store.record_dependencies("Acme/Docs", &entry(1, Some("d1"))).await.unwrap();
        store.record_dependencies("acme/docs", &entry(1, Some("d2"))).await.unwrap();
        store.record_dependencies("acme/docs", &entry(2, None)).await.unwrap();
        assert_eq!(store.dependencies("acme/docs", 1).await.unwrap(), Some(entry(1, Some("d2"))), "replaced");
        assert_eq!(store.dependents("ACME/docs").await.unwrap(), [entry(1, Some("d2")), entry(2, None)]);
        store.forget_dependencies("acme/docs", 1).await.unwrap();
        assert_eq!(store.dependents("acme/docs").await.unwrap(), [entry(2, None)]);
    }
}
