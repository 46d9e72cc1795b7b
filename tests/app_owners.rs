//! Who must review, as the repository already says it: CODEOWNERS read at
//! the base under `review.owners: codeowners`, each owned file needing an
//! approval of one of its owners, teams expanded through GitHub's Teams API
//! and read again after a `membership` event, a bot's approval not counted,
//! and a CODEOWNERS line GitHub would reject reported on `gatehouse/config`
//! at its line.

mod common;

use common::*;
use gatehouse_sim::{CheckRun, Sim, Tree};

const REPO: &str = "acme/docs";
const CONFIG: &str = ".github/gatehouse.yml";
const GUIDE: &str = "docs/guide.md";

/// A repository whose review policy is its CODEOWNERS file: briefs are the
/// `@acme/briefs` team's, the guide is `@acme/docs`'s.
fn base() -> Tree {
    let (adr_path, adr_text) = adr();
    tree(&[
        (adr_path, adr_text),
        ("README.md", "# docs\n"),
        (GUIDE, "# Guide\n"),
        (CONFIG, "review:\n  owners: codeowners\n"),
        (".github/CODEOWNERS", "# owners\n/dark-factory/briefs/ @acme/briefs\n/docs/ @acme/docs\n"),
    ])
}

/// A change of a brief and of the guide.
fn both_owned() -> Tree {
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", 60).into_bytes());
    head.insert(GUIDE.into(), b"# Guide\n\nRestores take an hour.\n".to_vec());
    head
}

fn gate(sim: &Sim, sha: &str) -> CheckRun {
    sim.check_runs(REPO, sha).into_iter().filter(|r| r.name == "gatehouse/review").max_by_key(|r| r.id).expect("a gate")
}

async fn opened(sim: &Sim, app: &gatehouse::app::Running, number: u64, head: Tree) -> String {
    let pr = sim.open_pr(REPO, number, base(), head, "A change.");
    let event = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("open-{number}"), &event).await, 202);
    jobs_idle(&app.store).await;
    pr.head_sha
}

/// What `gatehouse gate simulate` decides on the inputs the App read for
/// PR `number` at `head`: the base's config and CODEOWNERS, the changed
/// paths, the teams, the bot, the author, the reviews and commits.
fn simulate(sim: &Sim, number: u64, head: &str, paths: &[&str]) -> (bool, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let base = base();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let config = write("gatehouse.yml", &base[CONFIG]);
    std::fs::create_dir(dir.path().join(".github")).unwrap();
    let codeowners = write(".github/CODEOWNERS", &base[".github/CODEOWNERS"]);
    let reviews: Vec<serde_json::Value> = sim
        .reviews(REPO, number)
        .iter()
        .map(|r| {
            serde_json::json!({ "id": r.id, "user": { "login": r.user }, "state": r.state, "commit_id": r.commit_id,
                                "submitted_at": format!("2026-12-01T10:{:02}:00Z", r.id % 60) })
        })
        .collect();
    let reviews = write("reviews.json", serde_json::to_string(&reviews).unwrap().as_bytes());
    let commits = serde_json::json!([{ "sha": head, "author": { "login": "author" } }]);
    let commits = write("commits.json", commits.to_string().as_bytes());
    let mut args = vec![
        "gate",
        "simulate",
        "--config",
        &config,
        "--codeowners",
        &codeowners,
        "--reviews",
        &reviews,
        "--commits",
        &commits,
        "--team",
        "@acme/briefs=gyrum-marcus,gyrum-priya",
        "--team",
        "@acme/docs=gyrum-dana,docs-bot",
        "--bot",
        "docs-bot",
        "--author",
        "author",
        "--format",
        "json",
    ];
    for path in paths {
        args.extend(["--path", path]);
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(&args).output().unwrap();
    let verdict: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let missing = verdict["missing_text"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
    (verdict["passed"].as_bool().unwrap(), missing)
}

/// The App's gate and `gate simulate` agree: the same verdict, each line
/// simulate says is missing in the App's summary.
fn agree(sim: &Sim, app_gate: &CheckRun, number: u64, head: &str) {
    let (passed, missing) = simulate(sim, number, head, &[BRIEF, GUIDE]);
    assert_eq!(passed, app_gate.conclusion.as_deref() == Some("success"), "{missing:?}\n{}", app_gate.summary);
    for line in &missing {
        assert!(app_gate.summary.contains(line.as_str()), "{line}\nnot in\n{}", app_gate.summary);
    }
}

/// `gatehouse owners` on a checkout of the base names, for each path, the
/// CODEOWNERS line and owners the App's table names.
fn owners_agree(app_gate: &CheckRun) {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in base() {
        let file = dir.path().join(&path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["owners", BRIEF, GUIDE, "--repo", &dir.path().display().to_string(), "--format", "json"])
        .output()
        .unwrap();
    let answers: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(answers.len(), 2);
    for answer in &answers {
        let line = &answer["codeowners"];
        let owners: Vec<&str> = line["owners"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
        let row = format!("from {} for `{}`", owners.join(", "), answer["path"].as_str().unwrap());
        let rule = format!("`{}`:{}", line["file"].as_str().unwrap(), line["line"]);
        assert!(answer["owners_required"].as_bool().unwrap(), "{answer}");
        assert!(
            app_gate.summary.lines().any(|l| l.contains(&row) && l.contains(&rule)),
            "{row} {rule}\nnot in\n{}",
            app_gate.summary
        );
    }
}

async fn approved(sim: &Sim, app: &gatehouse::app::Running, number: u64, login: &str, head: &str) -> CheckRun {
    let review = sim.add_review(REPO, number, login, "APPROVED");
    assert_eq!(deliver(app.addr, "pull_request_review", &format!("{number}-{login}"), &review).await, 202);
    jobs_idle(&app.store).await;
    gate(sim, head)
}

#[tokio::test]
async fn a_change_of_two_owned_paths_waits_for_both_owners_and_a_bot_does_not_count() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.add_team("acme", "briefs", &["gyrum-marcus", "gyrum-priya"]);
    sim.add_team("acme", "docs", &["gyrum-dana", "docs-bot"]);
    sim.mark_bot("docs-bot");
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = opened(&sim, &app, 1, both_owned()).await;
    let first = gate(&sim, &head);
    assert_eq!(first.conclusion.as_deref(), Some("failure"), "{}", first.summary);
    assert!(first.summary.contains("@acme/briefs") && first.summary.contains("@acme/docs"), "{}", first.summary);

    agree(&sim, &first, 1, &head);
    owners_agree(&first);

    let one = approved(&sim, &app, 1, "gyrum-marcus", &head).await;
    assert_eq!(one.conclusion.as_deref(), Some("failure"), "the guide's owners have not approved: {}", one.summary);
    agree(&sim, &one, 1, &head);
    let bot = approved(&sim, &app, 1, "docs-bot", &head).await;
    assert_eq!(bot.conclusion.as_deref(), Some("failure"), "a bot's approval does not count: {}", bot.summary);
    agree(&sim, &bot, 1, &head);
    let both = approved(&sim, &app, 1, "gyrum-dana", &head).await;
    assert_eq!(both.conclusion.as_deref(), Some("success"), "{}", both.summary);
    agree(&sim, &both, 1, &head);
    app.kill();
}

#[tokio::test]
async fn a_new_team_member_s_approval_counts_after_the_membership_event() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.add_team("acme", "briefs", &["gyrum-marcus"]);
    sim.add_team("acme", "docs", &["gyrum-dana"]);
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", 60).into_bytes());
    let head = opened(&sim, &app, 1, head).await;
    let before = approved(&sim, &app, 1, "gyrum-lin", &head).await;
    assert_eq!(before.conclusion.as_deref(), Some("failure"), "not a member yet: {}", before.summary);

    let membership = sim.add_team_member("acme", "briefs", "gyrum-lin");
    assert_eq!(deliver(app.addr, "membership", "lin-joins", &membership).await, 202);
    jobs_idle(&app.store).await;
    let after = gate(&sim, &head);
    assert_eq!(after.conclusion.as_deref(), Some("success"), "{}", after.summary);
    app.kill();
}

#[tokio::test]
async fn codeowners_errors_are_reported_on_the_config_check_at_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.add_team("acme", "briefs", &["gyrum-marcus"]);
    sim.add_team("acme", "docs", &["gyrum-dana"]);
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    // A change that writes a line GitHub rejects (negation) is refused at its line.
    let mut head = base();
    head.insert(".github/CODEOWNERS".into(), b"/docs/ @acme/docs\n!/docs/draft.md\n".to_vec());
    let sha = opened(&sim, &app, 1, head).await;
    let config = sim.check_runs(REPO, &sha).into_iter().find(|r| r.name == "gatehouse/config").expect("a config run");
    assert_eq!(config.conclusion.as_deref(), Some("failure"), "{}", config.summary);
    let annotation = &config.annotations[0];
    assert_eq!(annotation["path"].as_str(), Some(".github/CODEOWNERS"), "{annotation}");
    assert_eq!(annotation["start_line"].as_u64(), Some(2), "{annotation}");
    assert!(annotation["title"].as_str().unwrap_or_default().contains("config/codeowners"), "{annotation}");

    // An owner GitHub does not know, on the base's file, is GitHub's error at its line; the pull
    // request did not write it, so it is a notice that says so and blocks nothing.
    let mut ghost = base();
    ghost.insert(".github/CODEOWNERS".into(), b"/dark-factory/briefs/ @acme/briefs\n/docs/ @gyrum-ghost\n".to_vec());
    let mut head = ghost.clone();
    head.insert(GUIDE.into(), b"# Guide\n\nRestores take an hour.\n".to_vec());
    let pr = sim.open_pr(REPO, 2, ghost, head, "A change.");
    let event = sim.pull_request_event(REPO, 2, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "open-2", &event).await, 202);
    jobs_idle(&app.store).await;
    let config =
        sim.check_runs(REPO, &pr.head_sha).into_iter().find(|r| r.name == "gatehouse/config").expect("a config run");
    assert_ne!(config.conclusion.as_deref(), Some("failure"), "{}", config.summary);
    let annotation = &config.annotations[0];
    assert_eq!(annotation["start_line"].as_u64(), Some(2), "{annotation}");
    assert_eq!(annotation["annotation_level"].as_str(), Some("notice"), "{annotation}");
    let message = annotation["message"].as_str().unwrap_or_default();
    assert!(message.contains("predates this change") && message.contains("Unknown owner"), "{annotation}");
    app.kill();
}

#[tokio::test]
async fn the_base_branch_s_ruleset_stands_beside_the_policy_in_the_gate_s_table() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.add_team("acme", "briefs", &["gyrum-marcus", "gyrum-priya"]);
    sim.add_team("acme", "docs", &["gyrum-dana"]);
    sim.add_team("acme", "sre", &["gyrum-lin"]);
    let sre = sim.team_id("acme", "sre").expect("a team id");
    sim.require_reviews_by_ruleset(REPO, "main reviews", "main", 2, true, &[(&["dark-factory/**"], 1, sre)]);
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", 60).into_bytes());
    let head = opened(&sim, &app, 1, head).await;
    let gate = gate(&sim, &head);
    assert!(gate.summary.contains("ruleset main reviews"), "{}", gate.summary);
    assert!(gate.summary.contains("@acme/sre"), "the ruleset's required team: {}", gate.summary);
    app.kill();
}
