//! The config's own check run, `gatehouse/config`, posted on every pull
//! request with the family checks: it fails on an invalid config and leaves
//! every family's run neutral, "not evaluated"; it is neutral when the PR
//! leaves the config alone. A PR body's cites are not counted as documents.

mod common;

use common::*;
use gatehouse_sim::{CheckRun, Sim, Tree};

const REPO: &str = "acme/docs";
const CONFIG: &str = ".github/gatehouse.yml";

async fn runs_of(
    sim: &Sim,
    app: &gatehouse::app::Running,
    number: u64,
    base: Tree,
    head: Tree,
    body: &str,
) -> Vec<CheckRun> {
    let pr = sim.open_pr(REPO, number, base, head, body);
    let payload = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("open-{number}"), &payload).await, 202);
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &pr.head_sha);
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(runs.len(), gatehouse::publish::check_names().len(), "one run per check: {names:?}");
    assert!(runs.iter().all(|r| r.status == "completed"), "{runs:#?}");
    runs
}

fn run<'r>(runs: &'r [CheckRun], name: &str) -> &'r CheckRun {
    runs.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no run {name}: {runs:#?}"))
}

const FAMILIES: [&str; 4] = ["gatehouse/briefs", "gatehouse/voting", "gatehouse/specs", "gatehouse/decisions"];

#[tokio::test]
async fn the_config_check_is_posted_on_every_pull_request_and_says_what_happened() {
    assert!(gatehouse::publish::check_names().contains(&"gatehouse/config".to_string()));
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;

    // A PR that breaks the config and adds a brief with a wrong type.
    let mut head = with_brief(&brief("AR", 60).replace("lines_estimate: 60", "lines_estimate: lots"));
    head.insert(CONFIG.into(), format!("{REVIEW_POLICY}briefs:\n  pahts: [\"x/*.md\"]\n").into_bytes());
    let runs = runs_of(&sim, &app, 1, base(), head, "A change.").await;
    let config = run(&runs, "gatehouse/config");
    assert_eq!((config.conclusion.as_deref(), config.title.as_str()), (Some("failure"), "1 error"));
    assert!(
        config.summary.starts_with(
            "**1 error blocks the merge** in `.github/gatehouse.yml`; until the config is valid, the other gatehouse \
             checks are not evaluated."
        ),
        "{}",
        config.summary
    );
    assert!(config.summary.contains("unknown key `pahts` in `briefs`"), "{}", config.summary);
    assert!(config.summary.contains("did you mean `paths`?"), "{}", config.summary);
    let annotated: Vec<&str> = config.annotations.iter().map(|a| a["path"].as_str().unwrap()).collect();
    assert_eq!(annotated, vec![CONFIG]);
    for name in FAMILIES {
        let family = run(&runs, name);
        assert_eq!(family.conclusion.as_deref(), Some("neutral"), "{name}");
        assert_eq!(family.title, "Not evaluated: the config is invalid", "{name}");
        assert!(family.summary.contains("the `gatehouse/config` check lists them"), "{name}: {}", family.summary);
        assert!(family.annotations.is_empty(), "{name}: {:?}", family.annotations);
    }

    // A PR that leaves the config alone and adds a valid brief.
    let runs = runs_of(&sim, &app, 2, base(), with_brief(&brief("AR", 60)), "A change.").await;
    let config = run(&runs, "gatehouse/config");
    assert_eq!((config.conclusion.as_deref(), config.title.as_str()), (Some("neutral"), "The config is unchanged"));
    assert!(config.summary.contains("does not change `.github/gatehouse.yml`"), "{}", config.summary);
    let briefs = run(&runs, "gatehouse/briefs");
    assert_eq!(
        (briefs.conclusion.as_deref(), briefs.title.as_str()),
        (Some("success"), "1 agent brief passes (no findings)")
    );
    assert_eq!(run(&runs, "gatehouse/voting").title, "No voting docs changed");

    // A PR that changes the config and keeps it valid.
    let mut head = base();
    head.insert(CONFIG.into(), format!("{REVIEW_POLICY}limits:\n  max_file_bytes: 2048000\n").into_bytes());
    let runs = runs_of(&sim, &app, 3, base(), head, "A change.").await;
    let config = run(&runs, "gatehouse/config");
    assert_eq!(
        (config.conclusion.as_deref(), config.title.as_str()),
        (Some("success"), "The config is valid (no findings)")
    );
    assert!(config.summary.contains("applies once it is merged"), "{}", config.summary);
    app.kill();
}

#[tokio::test]
async fn a_pull_request_body_alone_checks_a_cite_not_a_document() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let merged = with_brief(&brief("AR", 60));
    let mut head = merged.clone();
    head.insert("README.md".into(), b"# docs\n\nBackups go to the bucket.\n".to_vec());
    let runs = runs_of(&sim, &app, 1, merged, head, "Adds a line.\n\nBrief: SWARM-AR-backups\n").await;
    let briefs = run(&runs, "gatehouse/briefs");
    assert_eq!(
        (briefs.conclusion.as_deref(), briefs.title.as_str()),
        (Some("success"), "1 cite in the pull request body passes (no findings)"),
        "{}",
        briefs.summary
    );
    assert!(!briefs.summary.contains("agent brief passes"), "{}", briefs.summary);
    app.kill();
}
