//! One policy for an organisation: a repository's config that `extends:`
//! the organisation's `gatehouse.yml` (in its `.github` repository, read at
//! that repository's default branch) is merged with it key by key; a value
//! its locks refuse is a `config/locked` finding at the repository's line,
//! and an organisation config that cannot be read is a `config/extends`
//! finding on every inheriting repository, whatever the pull request
//! touches: never a fallback to the repository's own file alone. Every
//! repository inherits the organisation's policy, named or not.

mod common;

use common::*;
use gatehouse_sim::{CheckRun, Sim, Tree};

const CONFIG: &str = ".github/gatehouse.yml";
const ORG: &str = "acme/.github";

/// The organisation's policy: the review policy of the suites, at least 2
/// approvals, and the review threshold.
const ORG_POLICY: &str = "review:\n  core: { reviewers: [gyrum-marcus, gyrum-priya, gyrum-lin], required: 2 }\n\
                          locks:\n  review.core.required: { at_least: 2 }\n";

/// Puts `policy` at `gatehouse.yml` on the default branch of `acme/.github`.
fn organisation(sim: &Sim, policy: &str) {
    let sha = "0a".repeat(20);
    sim.add_commit(ORG, &sha, tree(&[("gatehouse.yml", policy), ("README.md", "# acme\n")]));
    sim.set_ref(ORG, "main", &sha);
}

/// A repository whose config is `config`, with an ADR.
fn repository(config: &str) -> Tree {
    let (adr_path, adr_text) = adr();
    tree(&[(adr_path, adr_text), ("README.md", "# docs\n"), (CONFIG, config)])
}

async fn runs_of(
    sim: &Sim,
    app: &gatehouse::app::Running,
    repo: &str,
    number: u64,
    base: Tree,
    head: Tree,
) -> Vec<CheckRun> {
    let pr = sim.open_pr(repo, number, base, head, "A change.");
    let payload = sim.pull_request_event(repo, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("{repo}-{number}"), &payload).await, 202);
    jobs_idle(&app.store).await;
    sim.check_runs(repo, &pr.head_sha)
}

fn run<'r>(runs: &'r [CheckRun], name: &str) -> &'r CheckRun {
    runs.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no run {name}: {runs:#?}"))
}

#[tokio::test]
async fn the_organisations_policy_applies_and_its_lock_is_refused_at_the_repositorys_line() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    organisation(&sim, ORG_POLICY);
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let inheriting = repository("extends: acme/.github\n");

    // The repository's config names no reviewer: the organisation's gate applies.
    let mut head = inheriting.clone();
    head.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    let runs = runs_of(&sim, &app, "acme/docs", 1, inheriting.clone(), head).await;
    assert_eq!(run(&runs, "gatehouse/config").conclusion.as_deref(), Some("neutral"));
    let gate = run(&runs, "gatehouse/review");
    assert_ne!(gate.title, "Review gate not configured", "{}", gate.summary);
    assert!(gate.summary.contains("gyrum-marcus"), "the organisation's reviewers: {}", gate.summary);

    // A change that asks for one approval is refused at its line.
    let mut head = inheriting.clone();
    head.insert(CONFIG.into(), b"extends: acme/.github\nreview:\n  core: { required: 1 }\n".to_vec());
    let runs = runs_of(&sim, &app, "acme/docs", 2, inheriting, head).await;
    let config = run(&runs, "gatehouse/config");
    assert_eq!(config.conclusion.as_deref(), Some("failure"), "{}", config.summary);
    let annotation = &config.annotations[0];
    assert_eq!((annotation["path"].as_str(), annotation["start_line"].as_u64()), (Some(CONFIG), Some(3)));
    let message = annotation["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`review.core.required` must be at least 2 (a lock in `acme/.github:gatehouse.yml` line 4)"),
        "{message}"
    );
    assert!(annotation["title"].as_str().unwrap_or_default().contains("config/locked"), "{annotation}");
    app.kill();
}

#[tokio::test]
async fn an_organisation_config_that_cannot_be_read_is_reported_on_every_inheriting_repository() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::postgres().unwrap_or_else(|| Db::sqlite(&dir));
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let inheriting = repository("extends: acme/policies\n");
    for (number, repo) in [(1, "acme/docs"), (2, "acme/ops")] {
        // The pull request touches a brief, not the config.
        let mut head = inheriting.clone();
        head.insert(BRIEF.into(), brief("AR", 60).replace("acme/docs", repo).into_bytes());
        let runs = runs_of(&sim, &app, repo, number, inheriting.clone(), head).await;
        let config = run(&runs, "gatehouse/config");
        assert_eq!(config.conclusion.as_deref(), Some("failure"), "{repo}: {}", config.summary);
        assert!(
            config.summary.contains(
                "the extended config `acme/policies:gatehouse.yml` cannot be read: the repository `acme/policies` \
                 does not exist, or the App's installation cannot see it"
            ),
            "{repo}: {}",
            config.summary
        );
        assert_eq!(config.annotations[0]["start_line"].as_u64(), Some(1), "at `extends:`");
        let briefs = run(&runs, "gatehouse/briefs");
        assert_eq!(
            (briefs.conclusion.as_deref(), briefs.title.as_str()),
            (Some("neutral"), "Not evaluated: the config is invalid"),
            "{repo}"
        );
    }

    // The organisation's repository exists, but the App was not installed on it.
    organisation(&sim, ORG_POLICY);
    sim.leave_out_of_installation(ORG);
    let inheriting = repository("extends: acme/.github\n");
    let mut head = inheriting.clone();
    head.insert(BRIEF.into(), brief("AR", 60).into_bytes());
    let runs = runs_of(&sim, &app, "acme/web", 3, inheriting, head).await;
    let config = run(&runs, "gatehouse/config");
    assert_eq!(config.conclusion.as_deref(), Some("failure"), "{}", config.summary);
    assert!(
        config.summary.contains("the App's installation cannot see it: install the App on `acme/.github`"),
        "{}",
        config.summary
    );
    app.kill();
}

/// The newest run of `name` on `sha`.
fn latest(sim: &Sim, repo: &str, sha: &str, name: &str) -> Option<CheckRun> {
    sim.check_runs(repo, sha).into_iter().filter(|r| r.name == name).max_by_key(|r| r.id)
}

#[tokio::test]
async fn a_push_to_the_organisations_config_rechecks_the_pull_requests_of_every_inheriting_repository() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::postgres().unwrap_or_else(|| Db::sqlite(&dir));
    let sim = sim().await;
    organisation(&sim, ORG_POLICY);
    let app = start_app(config(&db, &sim.url())).await;
    let mut heads = Vec::new();
    for (number, repo, config) in [
        (1, "acme/docs", "extends: acme/.github\n"),
        (2, "acme/ops", "extends: acme/.github\n"),
        (3, "umbra/plain", REVIEW_POLICY),
    ] {
        let base = repository(config);
        let mut head = base.clone();
        head.insert(BRIEF.into(), brief("AR", 60).into_bytes());
        let pr = sim.open_pr(repo, number, base, head, "A brief.");
        let payload = sim.pull_request_event(repo, number, "opened");
        assert_eq!(deliver(app.addr, "pull_request", &format!("open-{number}"), &payload).await, 202);
        heads.push((repo, pr.head_sha));
    }
    jobs_idle(&app.store).await;
    let config_run = |i: usize| latest(&sim, heads[i].0, &heads[i].1, "gatehouse/config").expect("a config run");
    let before: Vec<u64> = (0..3).map(|i| config_run(i).id).collect();
    assert!((0..3).all(|i| config_run(i).conclusion.as_deref() == Some("neutral")));

    // The organisation's config gets a mistake on its default branch.
    let broken = format!("{ORG_POLICY}briefs:\n  pahts: [\"briefs/*.md\"]\n");
    let push = sim.push_to_main(ORG, tree(&[("gatehouse.yml", &broken), ("README.md", "# acme\n")]), "Share paths");
    assert_eq!(deliver(app.addr, "push", "org-config", &push).await, 202);
    for i in [0, 1] {
        wait_for("the inheriting PR evaluated again", || {
            let run = config_run(i);
            run.id != before[i] && run.status == "completed"
        })
        .await;
    }
    jobs_idle(&app.store).await;
    for i in [0, 1] {
        let run = config_run(i);
        assert_eq!(run.conclusion.as_deref(), Some("failure"), "{}: {}", heads[i].0, run.summary);
        assert!(
            run.summary.contains("in the extended config `acme/.github:gatehouse.yml` line 6: unknown key `pahts`"),
            "{}: {}",
            heads[i].0,
            run.summary
        );
    }
    assert_eq!(config_run(2).id, before[2], "another organisation's repository: not evaluated again");
    app.kill();
}

#[tokio::test]
async fn a_repository_inherits_the_organisations_policy_without_naming_it_and_cannot_leave_its_locks() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    organisation(&sim, ORG_POLICY);
    let lax = "0b".repeat(20);
    sim.add_commit("acme/lax", &lax, tree(&[("gatehouse.yml", "review:\n  core: { required: 1 }\n")]));
    sim.set_ref("acme/lax", "main", &lax);
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;

    // No config at all: the organisation's reviewers gate a brief over the threshold.
    let (adr_path, adr_text) = adr();
    let bare = tree(&[(adr_path, adr_text), ("README.md", "# docs\n")]);
    let mut head = bare.clone();
    head.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    let runs = runs_of(&sim, &app, "acme/docs", 1, bare, head).await;
    let gate = run(&runs, "gatehouse/review");
    assert!(gate.summary.contains("gyrum-marcus"), "the organisation's reviewers: {}", gate.summary);

    // Dropping `extends:` for one approval, or extending a laxer file, is refused at the line that asks.
    for (number, asked, line) in [(2, "review:\n  core: { required: 1 }\n", 2), (3, "extends: acme/lax\n", 1)] {
        let base = repository("extends: acme/.github\n");
        let mut head = base.clone();
        head.insert(CONFIG.into(), asked.as_bytes().to_vec());
        let runs = runs_of(&sim, &app, "acme/docs", number, base, head).await;
        let config = run(&runs, "gatehouse/config");
        assert_eq!(config.conclusion.as_deref(), Some("failure"), "{asked}: {}", config.summary);
        let annotation = &config.annotations[0];
        assert!(annotation["title"].as_str().unwrap_or_default().contains("config/locked"), "{annotation}");
        assert_eq!(annotation["start_line"].as_u64(), Some(line), "{asked}: {annotation}");
    }
    app.kill();
}

#[tokio::test]
async fn no_organisation_policy_is_none_unless_the_app_is_told_one() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let base = repository(REVIEW_POLICY);
    let mut head = base.clone();
    head.insert(CONFIG.into(), format!("{REVIEW_POLICY}dashboard:\n  enabled: true\n").into_bytes());
    let runs = runs_of(&sim, &app, "acme/docs", 1, base.clone(), head.clone()).await;
    let checked = run(&runs, "gatehouse/config");
    assert_eq!(checked.conclusion.as_deref(), Some("success"), "{}", checked.summary);
    assert!(
        checked.summary.contains("No organisation policy applies: `acme/.github:gatehouse.yml` was not found"),
        "{}",
        checked.summary
    );
    app.kill();

    // Told where the policy is, the App reports that it cannot read it.
    let dir = tempfile::tempdir().unwrap();
    let mut told = config(&Db::sqlite(&dir), &sim.url());
    told.org_policy = "{owner}/policies".parse().expect("a policy setting");
    let app = start_app(told).await;
    let runs = runs_of(&sim, &app, "acme/ops", 2, base, head).await;
    let checked = run(&runs, "gatehouse/config");
    assert_eq!(checked.conclusion.as_deref(), Some("failure"), "{}", checked.summary);
    assert!(
        checked.summary.contains("the organisation's policy `acme/policies:gatehouse.yml` cannot be read"),
        "{}",
        checked.summary
    );
    app.kill();
}

#[tokio::test]
async fn a_push_to_the_policy_rechecks_the_pull_requests_a_person_waits_on_before_drafts() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    organisation(&sim, ORG_POLICY);
    let mut one_worker = config(&Db::sqlite(&dir), &sim.url());
    one_worker.workers = 1;
    let app = start_app(one_worker).await;
    // A draft, then a pull request ready for review, in each of two repositories.
    let mut heads = Vec::new();
    for repo in ["acme/docs", "acme/ops"] {
        for number in 1..=2 {
            let base = repository("extends: acme/.github\n");
            let mut head = base.clone();
            head.insert(BRIEF.into(), brief("AR", 60 + number as u32).into_bytes());
            let pr = sim.open_pr(repo, number, base, head, "A brief.");
            sim.set_draft(repo, number, number == 1);
            let payload = sim.pull_request_event(repo, number, "opened");
            assert_eq!(deliver(app.addr, "pull_request", &format!("{repo}-{number}"), &payload).await, 202);
            heads.push((repo, number, pr.head_sha));
        }
    }
    jobs_idle(&app.store).await;
    let newest = |repo: &str, sha: &str| latest(&sim, repo, sha, "gatehouse/config").expect("a config run").id;
    let before: Vec<u64> = heads.iter().map(|(repo, _, sha)| newest(repo, sha)).collect();

    let broken = format!("{ORG_POLICY}briefs:\n  pahts: [\"briefs/*.md\"]\n");
    let push = sim.push_to_main(ORG, tree(&[("gatehouse.yml", &broken), ("README.md", "# acme\n")]), "Share paths");
    assert_eq!(deliver(app.addr, "push", "org-config", &push).await, 202);
    jobs_idle(&app.store).await;
    let after: Vec<u64> = heads.iter().map(|(repo, _, sha)| newest(repo, sha)).collect();
    assert!(before.iter().zip(&after).all(|(b, a)| a > b), "every pull request evaluated again");
    let ready: Vec<u64> = heads.iter().zip(&after).filter(|((_, n, _), _)| *n == 2).map(|(_, id)| *id).collect();
    let drafts: Vec<u64> = heads.iter().zip(&after).filter(|((_, n, _), _)| *n == 1).map(|(_, id)| *id).collect();
    assert!(
        ready.iter().max() < drafts.iter().min(),
        "the ready pull requests first: ready {ready:?}, drafts {drafts:?}"
    );
    app.kill();
}
