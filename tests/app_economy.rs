//! API economy: reading a PR that touches 100 documents costs at
//! most 8 GitHub calls, and what was read is kept in the database for a
//! restarted process or another replica, counted by the simulated GitHub's
//! request log.

mod common;

use std::sync::Arc;

use common::*;
use gatehouse::app::kept::{self, KeptInStore};
use gatehouse::github::{AppCredentials, GitHub, RepoClient, RepoName, RetryPolicy};
use gatehouse::metrics::Metrics;
use gatehouse::source::contents::ReadCache;
use gatehouse::source::pull_request::{self as source, Read};
use gatehouse_sim::{Tree, tree_from_dir};

#[tokio::test]
async fn reading_a_pr_of_100_documents_costs_at_most_8_calls() {
    let sim = sim().await;
    let (adr_path, adr_text) = adr();
    let mut base = tree(&[(adr_path, adr_text), ("README.md", "# docs\n")]);
    // Fifty briefs exist already and are edited; fifty are new.
    for i in 0..50 {
        base.insert(format!("dark-factory/briefs/SWARM-B{i}-old.md"), brief(&format!("B{i}"), 10).into_bytes());
    }
    let mut head = base.clone();
    for i in 0..50 {
        head.insert(format!("dark-factory/briefs/SWARM-B{i}-old.md"), brief(&format!("B{i}"), 20).into_bytes());
        head.insert(format!("dark-factory/briefs/SWARM-N{i}-new.md"), brief(&format!("N{i}"), 30).into_bytes());
    }
    sim.open_pr("acme/docs", 5, base, head, "A hundred briefs.");
    let creds = AppCredentials::new(APP_ID, private_key().as_bytes()).unwrap();
    let gh = GitHub::new(&sim.url(), creds, RetryPolicy::default(), Arc::new(Metrics::new(&[]))).unwrap();
    let repo = RepoClient::new(gh, INSTALLATION, RepoName::parse("acme/docs").unwrap());
    sim.clear_requests();

    let pr = source::describe(&repo, 5).await.unwrap();
    let Read::Snapshot(snapshot) = source::read(&repo, pr, &ReadCache::default()).await.unwrap() else {
        panic!("a 100-file PR is read whole");
    };
    let calls = sim.requests();
    assert!(calls.len() <= 8, "{} calls: {calls:#?}", calls.len());
    let briefs = snapshot.changes.head.keys().filter(|p| p.starts_with("dark-factory/briefs/")).count();
    assert_eq!(briefs, 100);
    assert_eq!(snapshot.changes.base.keys().filter(|p| p.starts_with("dark-factory/briefs/")).count(), 50);
    assert!(snapshot.changes.head.contains_key(adr_path), "ADRs are read for the brief rules");
    assert_eq!(snapshot.files.len(), 100);
    assert_eq!(sim.jwts_seen(), 1, "one installation token, then the cache");
}

#[tokio::test]
async fn the_file_list_is_read_across_pages() {
    let sim = sim().await;
    let base = tree(&[("README.md", "# docs\n")]);
    let mut head = base.clone();
    for i in 0..250 {
        head.insert(format!("data/file-{i:03}.txt"), b"x\n".to_vec());
    }
    sim.open_pr("acme/docs", 6, base, head, "");
    let creds = AppCredentials::new(APP_ID, private_key().as_bytes()).unwrap();
    let gh = GitHub::new(&sim.url(), creds, RetryPolicy::default(), Arc::new(Metrics::new(&[]))).unwrap();
    let repo = RepoClient::new(gh, INSTALLATION, RepoName::parse("acme/docs").unwrap());
    let pr = source::describe(&repo, 6).await.unwrap();
    let Read::Snapshot(snapshot) = source::read(&repo, pr, &ReadCache::default()).await.unwrap() else {
        panic!("250 files are read whole");
    };
    assert_eq!(snapshot.files.len(), 250);
    let pages = sim.requests().iter().filter(|r| r.path.ends_with("/files")).count();
    assert_eq!(pages, 3);
    assert_eq!(snapshot.changes.pr.files.as_ref().map(Vec::len), Some(250));
}

fn client(sim: &gatehouse_sim::Sim) -> RepoClient {
    let creds = AppCredentials::new(APP_ID, private_key().as_bytes()).unwrap();
    let gh = GitHub::new(&sim.url(), creds, RetryPolicy::default(), Arc::new(Metrics::new(&[]))).unwrap();
    RepoClient::new(gh, INSTALLATION, RepoName::parse("acme/docs").unwrap())
}

async fn read(repo: &RepoClient, number: u64, cache: &ReadCache) -> gatehouse::source::pull_request::PrSnapshot {
    let pr = source::describe(repo, number).await.unwrap();
    match source::read(repo, pr, cache).await.unwrap() {
        Read::Snapshot(snapshot) => *snapshot,
        Read::TooManyFiles { .. } => panic!("PR {number} is read whole"),
    }
}

/// A repository of 50,000 briefs and 100,000 files.
fn big_repository() -> Tree {
    let (adr_path, adr_text) = adr();
    let mut tree = tree(&[(adr_path, adr_text), ("README.md", "# docs\n")]);
    for i in 0..50_000 {
        tree.insert(format!("dark-factory/briefs/SWARM-B{i}-work.md"), brief(&format!("B{i}"), 10).into_bytes());
        tree.insert(format!("services/api/src/module_{i}.rs"), format!("pub const N: u32 = {i};\n").into_bytes());
    }
    tree
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pr_touching_one_brief_of_50000_costs_at_most_8_calls() {
    let sim = sim().await;
    let base = big_repository();
    // An earlier PR on the same base edits a brief: its evaluation reads
    // every brief once.
    let mut earlier = base.clone();
    earlier.insert("dark-factory/briefs/SWARM-B1-work.md".into(), brief("B1", 15).into_bytes());
    sim.open_pr("acme/docs", 1, base.clone(), earlier, "");
    let mut head = base.clone();
    let touched = "dark-factory/briefs/SWARM-B7-work.md";
    head.insert(touched.into(), brief("B9", 20).into_bytes());
    sim.open_pr("acme/docs", 2, base, head, "One brief.");
    let repo = client(&sim);
    let cache = ReadCache::default();
    read(&repo, 1, &cache).await;
    sim.clear_requests();

    let snapshot = read(&repo, 2, &cache).await;
    let calls = sim.requests();
    assert!(calls.len() <= 8, "{} calls: {calls:#?}", calls.len());
    let briefs = snapshot.changes.head.keys().filter(|p| p.starts_with("dark-factory/briefs/")).count();
    assert_eq!(briefs, 50_000, "every brief is in the ChangeSet for the repository-wide rules");
    let report = gatehouse::rules::evaluate(&snapshot.changes);
    let duplicate: Vec<_> = report.findings().filter(|f| f.rule == "brief/agent-duplicate").collect();
    assert_eq!(duplicate.len(), 1, "B9 is taken by an untouched brief: {duplicate:#?}");
    assert_eq!(duplicate[0].path, touched);

    // Evaluating the same head again (a re-run, a review) asks only for
    // the pull request and its files: the listing, the documents, the
    // config and the touched brief's base side are known.
    sim.clear_requests();
    let again = read(&repo, 2, &cache).await;
    let paths: Vec<String> = sim.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert_eq!(paths, ["GET /repos/acme/docs/pulls/2", "GET /repos/acme/docs/pulls/2/files"]);
    let findings = |changes| format!("{:?}", gatehouse::rules::evaluate(changes));
    assert_eq!(findings(&again.changes), findings(&snapshot.changes));
}

/// Every file under each `crates/gatehouse-core/fixtures/rules/*/*/<case>/<side>` folder, overlaid.
fn fixture_sides(case: &str, side: &str) -> Tree {
    let mut tree = Tree::new();
    let rules = manifest_dir().join("crates/gatehouse-core/fixtures/rules");
    for family in std::fs::read_dir(&rules).unwrap() {
        for rule in std::fs::read_dir(family.unwrap().path()).unwrap() {
            let dir = rule.unwrap().path().join(case).join(side);
            if dir.is_dir() {
                tree.extend(tree_from_dir(&dir).unwrap());
            }
        }
    }
    tree
}

const CONFIG_PATH: &str = gatehouse::config::CONFIG_PATH;

#[tokio::test(flavor = "multi_thread")]
async fn cached_reads_find_what_a_full_read_finds() {
    let sim = sim().await;
    // A repository of every family: the demo repository and every rule's
    // passing documents; the PR adds every rule's failing documents, many
    // at paths the base has with other content.
    let mut base = tree_from_dir(&manifest_dir().join("fixtures/demo-repo")).unwrap();
    let config = base[CONFIG_PATH].clone();
    base.extend(fixture_sides("pass", "head"));
    base.extend(fixture_sides("fail", "base"));
    // The config stays the demo repository's: the config rules' fixtures
    // would replace it, and some extend a repository this one is not given.
    base.insert(CONFIG_PATH.into(), config);
    // The earlier PR edits the config, which every family's rules read: its
    // evaluation reads every document.
    let mut earlier = base.clone();
    let mut edited = base[CONFIG_PATH].clone();
    edited.extend_from_slice(b"\n# edited\n");
    earlier.insert(CONFIG_PATH.into(), edited);
    let mut head = base.clone();
    head.extend(fixture_sides("fail", "head"));
    // Every failing fixture but the config's: an invalid config leaves the
    // families unevaluated.
    head.insert(CONFIG_PATH.into(), base[CONFIG_PATH].clone());
    sim.open_pr("acme/docs", 1, base.clone(), earlier, "");
    sim.open_pr("acme/docs", 2, base, head, "Every failing fixture.");
    let repo = client(&sim);
    let warm = ReadCache::default();
    read(&repo, 1, &warm).await;
    let held = warm.blobs_held();
    let cached = read(&repo, 2, &warm).await;
    let full = read(&repo, 2, &ReadCache::default()).await;

    let after = warm.blobs_held();
    assert!(held > 50 && after > held, "the second read took {held} blobs from the cache and added new ones: {after}");
    assert_eq!(cached.changes.base, full.changes.base);
    assert_eq!(cached.changes.head, full.changes.head);
    let findings = |s: &gatehouse::source::pull_request::PrSnapshot| {
        let report = gatehouse::rules::evaluate(&s.changes);
        report.findings().map(|f| format!("{f:?}")).collect::<Vec<_>>()
    };
    let (cached, full) = (findings(&cached), findings(&full));
    assert!(cached.len() > 50, "the failing fixtures fail: {}", cached.len());
    assert_eq!(cached, full);
}

/// A pull request reads the documents of the families its change needs
/// (`gatehouse::reads::Needs`): one that edits a brief reads the briefs and
/// the ADRs, and no spec, ledger or docket; one that edits a spec reads no
/// brief.
#[tokio::test(flavor = "multi_thread")]
async fn a_pr_reads_only_the_families_its_change_needs() {
    let sim = sim().await;
    let base = tree_from_dir(&manifest_dir().join("fixtures/demo-repo")).unwrap();
    let brief = "dark-factory/briefs/SWARM-AR-pg-backup.md";
    let mut head = base.clone();
    let mut edited = base[brief].clone();
    edited.extend_from_slice(b"\nOne more line.\n");
    head.insert(brief.into(), edited);
    sim.open_pr("acme/docs", 1, base.clone(), head, "");
    let spec = "fondue/specs/csv-export/stats.md";
    let mut head = base.clone();
    let mut edited = base[spec].clone();
    edited.extend_from_slice(b"\nOne more line.\n");
    head.insert(spec.into(), edited);
    sim.open_pr("acme/docs", 2, base.clone(), head, "");
    let repo = client(&sim);

    let read_alone = |number| {
        let repo = repo.clone();
        async move {
            let cache = ReadCache::default();
            let snapshot = read(&repo, number, &cache).await;
            let paths: Vec<String> = snapshot.changes.head.keys().cloned().collect();
            (paths, cache.blobs_held())
        }
    };
    let (paths, blobs) = read_alone(1).await;
    let under = |prefix: &str| paths.iter().filter(|p| p.starts_with(prefix)).count();
    assert_eq!((under("dark-factory/briefs/"), under("docs/adr/")), (3, 3), "{paths:?}");
    assert_eq!(under("fondue/") + under(".harnery/") + under("dark-factory/guidelines/"), 0, "{paths:?}");
    // Three briefs, three ADRs, the edited brief's base side, and the config
    // twice (kept under no size limit as the config, under the limit as a
    // document); reading every family's documents holds 40.
    assert_eq!(blobs, 9);
    let (paths, _) = read_alone(2).await;
    let under = |prefix: &str| paths.iter().filter(|p| p.starts_with(prefix)).count();
    assert!(under("fondue/specs/") > 20, "{paths:?}");
    assert_eq!(under("dark-factory/") + under("docs/adr/") + under(".harnery/"), 0, "{paths:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_base_and_the_head_read_are_the_commits_documents() {
    let sim = sim().await;
    let base = tree_from_dir(&manifest_dir().join("fixtures/demo-repo")).unwrap();
    let relevance = gatehouse::source::Relevance::new(&gatehouse::config::Config::default());
    let documents: Vec<String> = base.keys().filter(|p| relevance.wants(p)).cloned().collect();
    assert!(documents.len() > 20, "the demo repository has documents of every family");
    // The pull request deletes, edits and renames documents of every family
    // and adds a brief; the earlier one leaves them alone.
    let mut head = base.clone();
    for (i, path) in documents.iter().enumerate() {
        match i % 5 {
            0 => drop(head.remove(path)),
            1 => head.get_mut(path).unwrap().extend_from_slice(b"\nEdited.\n"),
            2 => {
                let bytes = head.remove(path).unwrap();
                head.insert(format!("{path}.moved"), bytes);
            }
            _ => {}
        }
    }
    head.insert("dark-factory/briefs/SWARM-NEW-brief.md".into(), brief("NEW", 10).into_bytes());
    let mut earlier = base.clone();
    earlier.insert("README.md".into(), b"# docs, edited\n".to_vec());
    sim.open_pr("acme/docs", 1, base.clone(), earlier, "");
    sim.open_pr("acme/docs", 2, base.clone(), head.clone(), "");
    let repo = client(&sim);
    let cache = ReadCache::default();
    read(&repo, 1, &cache).await;

    let snapshot = read(&repo, 2, &cache).await;
    let limit = snapshot.changes.config.limits.max_file_bytes;
    let relevant = |tree: &Tree| -> gatehouse::model::Files {
        tree.iter()
            .filter(|(p, _)| relevance.wants(p))
            .map(|(p, bytes)| (p.clone(), gatehouse::model::FileContent::from_bytes(bytes, limit)))
            .collect()
    };
    assert_eq!(snapshot.changes.head, relevant(&head));
    assert_eq!(snapshot.changes.base, relevant(&base));
    let deleted = snapshot.changes.deleted().count();
    let changed = snapshot.changes.changed().count();
    assert!(deleted > 5 && changed > 10, "{deleted} deleted, {changed} changed");
}

/// A repository of `n` briefs and `n` other files.
fn repository(n: usize) -> Tree {
    let (adr_path, adr_text) = adr();
    let mut tree = tree(&[(adr_path, adr_text), ("README.md", "# docs\n")]);
    for i in 0..n {
        tree.insert(format!("dark-factory/briefs/SWARM-B{i}-work.md"), brief(&format!("B{i}"), 10).into_bytes());
        tree.insert(format!("services/api/src/module_{i}.rs"), format!("pub const N: u32 = {i};\n").into_bytes());
    }
    tree
}

/// What each request was, `METHOD path`, sorted (some are made together).
fn calls(sim: &gatehouse_sim::Sim) -> Vec<String> {
    let mut calls: Vec<String> = sim.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    calls.sort();
    calls
}

/// The contents and merge bases read by one process are kept in the
/// database: a restarted process re-evaluating a head asks GitHub only for
/// what a warm process asks for again (the pull request and its files) and
/// the head's listing, and a second replica evaluating a new head makes no
/// more calls than the warm process did for one, in a repository of 50,000
/// briefs (reading them whole takes 200 GraphQL queries).
async fn reads_survive_a_restart(db: Db) {
    let sim = sim().await;
    let base = repository(50_000);
    let mut earlier = base.clone();
    earlier.insert("README.md".into(), b"# docs, edited\n".to_vec());
    sim.open_pr("acme/docs", 1, base.clone(), earlier, "");
    let mut head = base.clone();
    head.insert("dark-factory/briefs/SWARM-B7-work.md".into(), brief("B9", 20).into_bytes());
    let pr = sim.open_pr("acme/docs", 2, base.clone(), head, "One brief.");
    let mut other = base.clone();
    other.insert("dark-factory/briefs/SWARM-B8-work.md".into(), brief("B8", 30).into_bytes());
    sim.open_pr("acme/docs", 3, base, other, "Another brief.");
    let repo = client(&sim);
    let warm_store = db.store().await;
    let warm = ReadCache::with_kept(KeptInStore(warm_store.clone()));
    read(&repo, 1, &warm).await;
    sim.clear_requests();
    let first = read(&repo, 2, &warm).await;
    let warm_calls = calls(&sim);
    sim.clear_requests();
    read(&repo, 2, &warm).await;
    let warm_again = calls(&sim);
    // The job runner keeps what its jobs read once their answers are out.
    kept::keep(&warm_store, warm.take_unkept()).await.unwrap();
    assert!(warm.take_unkept().is_empty(), "what was kept is not kept twice");

    let restarted = ReadCache::with_kept(KeptInStore(db.store().await));
    sim.clear_requests();
    let again = read(&repo, 2, &restarted).await;
    // What the warm process asked for again, plus the head's listing: the
    // contents and the merge base come from the database.
    let listing = format!("GET /repos/acme/docs/git/trees/{}", pr.head_sha);
    let mut expected = warm_again.clone();
    expected.push(listing);
    expected.sort();
    assert_eq!(calls(&sim), expected);
    assert_eq!(warm_again, ["GET /repos/acme/docs/pulls/2", "GET /repos/acme/docs/pulls/2/files"]);
    let findings = |changes| format!("{:?}", gatehouse::rules::evaluate(changes));
    assert_eq!(findings(&again.changes), findings(&first.changes));
    assert!(findings(&again.changes).contains("brief/agent-duplicate"), "B9 is taken by an untouched brief");

    let replica = ReadCache::with_kept(KeptInStore(db.store().await));
    sim.clear_requests();
    read(&repo, 3, &replica).await;
    let replica_calls = calls(&sim);
    assert!(replica_calls.len() <= warm_calls.len(), "{replica_calls:#?} against a warm process's {warm_calls:#?}");

    // Past the bound, what was kept is evicted: a fresh process reads it again.
    let store = db.store().await;
    store.evict_blobs(1).await.unwrap();
    sim.clear_requests();
    read(&repo, 3, &ReadCache::with_kept(KeptInStore(store))).await;
    let queries = calls(&sim).iter().filter(|c| c.ends_with("/graphql")).count();
    assert!(queries >= 200, "every brief is read again after eviction: {queries} queries");
    assert!(calls(&sim).iter().any(|c| c.contains("/compare/")), "the merge base goes with the blobs");
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_survive_a_restart_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    reads_survive_a_restart(Db::sqlite(&dir)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_survive_a_restart_on_postgres() {
    let Some(db) = Db::postgres() else { return };
    reads_survive_a_restart(db).await;
}
