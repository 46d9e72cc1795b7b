//! The App and the CLI give the same findings on the same change: one set of
//! commits, made in a real git repository (for `gatehouse check`) and stored
//! under the same ids in the simulated GitHub (for the App). The change
//! touches every family, pins brief paths to a branch, a tag and a revision
//! that does not exist, cites adr-tools records by `ADR-5` and `ADR-0006`, and
//! names in `landed.md` a commit of the history and one that is not.

mod common;
mod local_repo;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::*;
use gatehouse_sim::{Tree, tree_from_dir};
use local_repo::git;

const REPO: &str = "acme/docs";
const BODY: &str = "Adds the demo documents.\n\nVoting-format: v1\n";
const MISSING_COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Makes the work tree hold exactly `tree`, commits it, and returns its id.
fn commit(dir: &Path, tree: &Tree, message: &str) -> String {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != ".git" {
            let path = entry.path();
            if path.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) }.unwrap();
        }
    }
    for (path, bytes) in tree {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
    git(dir, &["rev-parse", "HEAD"])
}

fn pinned_brief() -> String {
    "---
agent: SWARM-AZ
repos_touched: [acme/docs]
adrs_referenced: [ADR-095]
success_criteria:
  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"
out_of_scope:
  - the restore runbook
lines_estimate: 40
---
# SWARM-AZ: pinned paths

Implement ADR-095 as a host concern, starting from `acme/docs@main:scripts/backup.sh`
and the steps in `acme/docs@v1.2:runbooks/`. The old `acme/docs@main:scripts/gone.sh`
never existed, and `acme/docs@no-such-branch:scripts/backup.sh` cannot be read.
"
    .to_string()
}

/// Two adr-tools records on the base: 5 superseded by 6.
const ADR_TOOLS: [(&str, &str); 2] = [
    (
        "doc/adr/0005-use-sqlite.md",
        "# 5. Use SQLite\n\nDate: 2026-01-12\n\n## Status\n\nSuperseded by [6. Use Postgres](0006-use-postgres.md)\n\n\
         ## Context\n\nThe job needs a catalogue.\n\n## Decision\n\nA SQLite file beside the script.\n",
    ),
    (
        "doc/adr/0006-use-postgres.md",
        "# 6. Use Postgres\n\nDate: 2026-02-03\n\n## Status\n\nAccepted\n\nSupersedes [5. Use SQLite](0005-use-sqlite.md)\n\n\
         ## Decision\n\nThe catalogue lives in the operations database.\n",
    ),
];

/// A brief citing the adr-tools records, one of them superseded.
fn adr_tools_brief() -> String {
    "---
agent: SWARM-BA
repos_touched: [acme/docs]
adrs_referenced: [ADR-5, ADR-0006]
success_criteria:
  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"
out_of_scope:
  - the restore runbook
lines_estimate: 40
---
# SWARM-BA: the catalogue

Record each dump in the SQLite catalogue beside the script (ADR-5).

See ADR-0006: the catalogue moves to the operations database — one row per dump.
"
    .to_string()
}

/// (rule, path, line, severity) of every finding, from the App's check runs.
fn app_findings(runs: &[gatehouse_sim::CheckRun]) -> BTreeSet<(String, String, u64, String)> {
    let level = |l: &str| match l {
        "failure" => "error",
        "warning" => "warning",
        _ => "notice",
    };
    runs.iter()
        .flat_map(|r| r.annotations.iter())
        .map(|a| {
            (
                a["title"].as_str().unwrap().to_string(),
                a["path"].as_str().unwrap().to_string(),
                a["start_line"].as_u64().unwrap(),
                level(a["annotation_level"].as_str().unwrap()).to_string(),
            )
        })
        .collect()
}

fn cli_findings(dir: &Path, revs: &[&str]) -> BTreeSet<(String, String, u64, String)> {
    let body = dir.parent().unwrap().join("pr-body.md");
    std::fs::write(&body, BODY).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["check", "--repo"])
        .arg(dir)
        .args(revs)
        .args(["--repo-name", REPO, "--format", "json", "--pr-body"])
        .arg(&body)
        .output()
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_app_and_the_cli_find_the_same_on_the_same_commits() {
    let demo = tree_from_dir(&manifest_dir().join("fixtures/demo-repo")).unwrap();
    let base: Tree = demo
        .iter()
        .filter(|(p, _)| !p.starts_with("dark-factory/") && !p.starts_with("fondue/") && !p.starts_with(".harnery/"))
        .map(|(p, b)| (p.clone(), b.clone()))
        .chain(ADR_TOOLS.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())))
        .collect();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let base_sha = commit(&dir, &base, "base");
    git(&dir, &["tag", "v1.2"]);
    let mut head = demo.clone();
    head.extend(ADR_TOOLS.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())));
    head.insert("dark-factory/briefs/SWARM-AZ-pins.md".into(), pinned_brief().into_bytes());
    head.insert("dark-factory/briefs/SWARM-BA-catalogue.md".into(), adr_tools_brief().into_bytes());
    let landed = format!(
        "attempt-01 implementation starts at {}\nattempt-01 phase-01 closed at {MISSING_COMMIT}\n",
        &base_sha[..12]
    );
    head.insert("fondue/specs/csv-export/landed.md".into(), landed.into_bytes());
    git(&dir, &["checkout", "-qb", "change"]);
    let head_sha = commit(&dir, &head, "change");
    let cli = cli_findings(&dir, &["--base", &base_sha, "--head", &head_sha]);

    let db_dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.add_commit(REPO, &base_sha, base);
    sim.add_commit(REPO, &head_sha, head);
    sim.set_ref(REPO, "main", &base_sha);
    sim.set_ref(REPO, "v1.2", &base_sha);
    sim.set_ref(REPO, "change", &head_sha);
    sim.open_pr_between(REPO, 1, &base_sha, &head_sha, BODY);
    let app = start_app(config(&Db::sqlite(&db_dir), &sim.url())).await;
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "parity-1", &payload).await, 202);
    let names = gatehouse::publish::check_names();
    wait_for("check runs to complete", || {
        let runs = sim.check_runs(REPO, &head_sha);
        runs.len() == names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    let app = app_findings(&sim.check_runs(REPO, &head_sha));

    let brief = "dark-factory/briefs/SWARM-AZ-pins.md".to_string();
    let landed = "fondue/specs/csv-export/landed.md".to_string();
    for expected in [
        ("brief/path-missing".to_string(), brief.clone(), 14, "error".to_string()),
        ("brief/path-unverifiable".to_string(), brief.clone(), 15, "notice".to_string()),
        ("spec/landed-format".to_string(), landed, 2, "warning".to_string()),
        ("brief/adr-superseded".to_string(), "dark-factory/briefs/SWARM-BA-catalogue.md".into(), 4, "warning".into()),
    ] {
        assert!(cli.contains(&expected), "the CLI misses {expected:?}: {cli:#?}");
    }
    let catalogue: Vec<_> = cli.iter().filter(|f| f.1.ends_with("SWARM-BA-catalogue.md")).collect();
    assert_eq!(catalogue.len(), 1, "both adr-tools records are found and honoured: {catalogue:#?}");
    let pinned: Vec<_> = cli.iter().filter(|f| f.1 == brief).collect();
    assert_eq!(pinned.len(), 2, "the pins at main and v1.2 resolve: {pinned:#?}");
    let families: BTreeSet<&str> = cli.iter().filter_map(|f| f.0.split('/').next()).collect();
    for family in ["brief", "voting", "spec", "decision"] {
        assert!(families.contains(family), "no {family} finding to compare: {cli:#?}");
    }
    let only_cli: Vec<_> = cli.difference(&app).collect();
    let only_app: Vec<_> = app.difference(&cli).collect();
    assert!(only_cli.is_empty() && only_app.is_empty(), "only the CLI: {only_cli:#?}\nonly the App: {only_app:#?}");
}

/// The shared spec fixture at `implementation:02:Review` with its phase's
/// first review, and without the reviewer's research its first pre-plan
/// review needed: a state a later change finds and did not make.
fn spec_missing_reviewer_research() -> Tree {
    let root = "fondue/specs/retry-queue";
    let shared = tree_from_dir(&manifest_dir().join("crates/gatehouse-core/fixtures/rules/spec/_shared")).unwrap();
    let mut tree: Tree = shared.into_iter().filter(|(p, _)| !p.ends_with("pre-plan/02-reviewer-research.md")).collect();
    tree.insert(
        format!("{root}/review/phase-02/01-review.md"),
        b"# Review\n\n## #1 The retry limit is a bare number\n\n**Severity:** Nit\n\nThe rules ask for a named constant.\n\n**Proposed solution:** name it.\n\nVerdict: changes-requested\n".to_vec(),
    );
    tree
}

#[tokio::test(flavor = "multi_thread")]
async fn the_app_and_the_cli_report_a_state_the_base_had_as_a_notice() {
    let base = spec_missing_reviewer_research();
    let mut head = base.clone();
    head.insert("fondue/specs/retry-queue/current-state.txt".into(), b"implementation:02:Answer\n".to_vec());
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let base_sha = commit(&dir, &base, "base");
    git(&dir, &["checkout", "-qb", "change"]);
    let head_sha = commit(&dir, &head, "change");
    let cli = cli_findings(&dir, &["--base", &base_sha, "--head", &head_sha]);

    let db_dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.add_commit(REPO, &base_sha, base);
    sim.add_commit(REPO, &head_sha, head);
    sim.set_ref(REPO, "main", &base_sha);
    sim.set_ref(REPO, "change", &head_sha);
    sim.open_pr_between(REPO, 1, &base_sha, &head_sha, BODY);
    let app = start_app(config(&Db::sqlite(&db_dir), &sim.url())).await;
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "parity-2", &payload).await, 202);
    let names = gatehouse::publish::check_names();
    wait_for("check runs to complete", || {
        let runs = sim.check_runs(REPO, &head_sha);
        runs.len() == names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    let runs = sim.check_runs(REPO, &head_sha);
    let specs = runs.iter().find(|r| r.name == "gatehouse/specs").unwrap();
    assert_eq!(specs.conclusion.as_deref(), Some("success"), "{specs:#?}");
    let app = app_findings(&runs);

    let expected = (
        "spec/artifact-required".to_string(),
        "fondue/specs/retry-queue/review/pre-plan/01-review.md".to_string(),
        1,
        "notice".to_string(),
    );
    assert!(cli.contains(&expected), "the CLI misses {expected:?}: {cli:#?}");
    assert_eq!(cli, app, "the CLI and the App differ");
}

const VOTES: &str = "dark-factory/guidelines/smoke-spec-path@v1.md";

/// The voting document with one more vote appended to argument `argument`'s
/// ledger (the argument whose ledger ends at `after`).
fn with_vote(doc: &str, after: &str, voter: &str) -> String {
    let vote = format!(
        "      - voter: {voter}\n        vote: +1\n        weight: 1\n        ts: 2026-05-10T08:00:00Z\n        rationale: \"Seen it hold in review.\"\n"
    );
    let at = doc.find(after).map(|i| i + after.len()).expect("the ledger's last line");
    format!("{}{vote}{}", &doc[..at], &doc[at..])
}

/// Another PR appends a vote to one section of a voting document after this
/// PR branched and appended a vote to another: the PR's base tip lacks this
/// PR's vote and its head lacks the other, but the PR removed nothing. The
/// App reads the base side at the merge base, as the CLI does by default,
/// and neither reports `voting/append-only`.
#[tokio::test(flavor = "multi_thread")]
async fn a_base_branch_that_moved_on_is_no_change_of_the_pr() {
    let doc = std::fs::read_to_string(
        manifest_dir().join("crates/gatehouse-core/fixtures/rules/voting/append-only/pass/base").join(VOTES),
    )
    .unwrap();
    let location_ledger_end = "CI job does not scan.\"\n";
    let naming_ledger_end = "in every repo I reviewed.\"\n";
    let forked: Tree = [(VOTES.to_string(), doc.clone().into_bytes())].into_iter().collect();
    let mut head = forked.clone();
    head.insert(VOTES.into(), with_vote(&doc, location_ledger_end, "ravi/opus-4.7").into_bytes());
    let mut moved = forked.clone();
    moved.insert(VOTES.into(), with_vote(&doc, naming_ledger_end, "sofia/sonnet-4.5").into_bytes());

    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let fork_sha = commit(&dir, &forked, "votes");
    git(&dir, &["checkout", "-qb", "change"]);
    let head_sha = commit(&dir, &head, "a vote on smoke-spec-location");
    git(&dir, &["checkout", "-q", "main"]);
    let tip_sha = commit(&dir, &moved, "a vote on smoke-spec-naming");
    git(&dir, &["checkout", "-q", "change"]);
    let cli = cli_findings(&dir, &[]);
    let at_tip = cli_findings(&dir, &["--base", &tip_sha, "--head", &head_sha]);
    assert!(
        at_tip.iter().any(|f| f.0 == "voting/append-only"),
        "against the moved tip the other PR's vote reads as removed: {at_tip:#?}"
    );

    let db_dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    for (sha, tree) in [(&fork_sha, forked), (&head_sha, head), (&tip_sha, moved)] {
        sim.add_commit(REPO, sha, tree);
    }
    sim.set_parents(REPO, &head_sha, &[&fork_sha]);
    sim.set_parents(REPO, &tip_sha, &[&fork_sha]);
    sim.set_ref(REPO, "main", &tip_sha);
    sim.open_pr_between(REPO, 1, &tip_sha, &head_sha, BODY);
    let app = start_app(config(&Db::sqlite(&db_dir), &sim.url())).await;
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "moved-base-1", &payload).await, 202);
    let names = gatehouse::publish::check_names();
    wait_for("check runs to complete", || {
        let runs = sim.check_runs(REPO, &head_sha);
        runs.len() == names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    let app_found = app_findings(&sim.check_runs(REPO, &head_sha));
    assert!(!cli.iter().any(|f| f.0 == "voting/append-only"), "the CLI: {cli:#?}");
    assert_eq!(app_found, cli, "the App and the CLI differ");
    let compares = sim.requests().iter().filter(|r| r.path.contains("/compare/")).count();
    assert_eq!(compares, 1, "the merge base is asked of the compare API once");
}

/// Documents written the ways people write them (`fixtures/real-world/`:
/// block and flow YAML, `\r\n` line ends, a byte-order mark, text that is
/// not English, faulty ones among them) give the App what they give the CLI:
/// each case is a pull request that adds it over its family's shared tree.
/// The config cases are left out: the App reads the config at the base
/// branch's tip, so a pull request that adds one is not gated by it.
#[tokio::test(flavor = "multi_thread")]
async fn documents_as_people_write_them_give_the_app_what_they_give_the_cli() {
    let root = manifest_dir().join("fixtures/real-world");
    let db_dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&db_dir), &sim.url())).await;
    let names = gatehouse::publish::check_names();
    let mut compared = 0;
    for family in ["brief", "voting", "decision", "spec"] {
        let shared_dir = root.join(family).join("_shared");
        let mut base = if shared_dir.is_dir() { tree_from_dir(&shared_dir).unwrap() } else { Tree::new() };
        base.insert("README.md".into(), b"# Documents\n".to_vec());
        let mut cases: Vec<_> = std::fs::read_dir(root.join(family))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() && !p.ends_with("_shared"))
            .collect();
        cases.sort();
        for case in cases {
            let mut head = base.clone();
            head.extend(tree_from_dir(&case).unwrap());
            let work = tempfile::tempdir().unwrap();
            let dir = work.path().join("repo");
            std::fs::create_dir_all(&dir).unwrap();
            git(&dir, &["init", "-q", "-b", "main"]);
            let base_sha = commit(&dir, &base, "base");
            git(&dir, &["checkout", "-qb", "change"]);
            let head_sha = commit(&dir, &head, "change");
            let cli = cli_findings(&dir, &["--base", &base_sha, "--head", &head_sha]);

            compared += 1;
            sim.add_commit(REPO, &base_sha, base.clone());
            sim.add_commit(REPO, &head_sha, head);
            sim.set_ref(REPO, "main", &base_sha);
            sim.open_pr_between(REPO, compared, &base_sha, &head_sha, BODY);
            let payload = sim.pull_request_event(REPO, compared, "opened");
            let delivery = format!("real-world-{compared}");
            assert_eq!(deliver(app.addr, "pull_request", &delivery, &payload).await, 202);
            wait_for("check runs to complete", || {
                let runs = sim.check_runs(REPO, &head_sha);
                runs.len() == names.len() && runs.iter().all(|r| r.status == "completed")
            })
            .await;
            let app_found = app_findings(&sim.check_runs(REPO, &head_sha));
            let only_cli: Vec<_> = cli.difference(&app_found).collect();
            let only_app: Vec<_> = app_found.difference(&cli).collect();
            assert!(
                only_cli.is_empty() && only_app.is_empty(),
                "{}: only the CLI: {only_cli:#?}\nonly the App: {only_app:#?}",
                case.display()
            );
        }
    }
    assert_eq!(compared, 19, "every real-world case of the four families is compared");
}
