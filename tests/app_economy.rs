//! API economy: reading a PR that touches 100 documents costs at
//! most 8 GitHub calls, counted by the simulated GitHub's request log.

mod common;

use std::sync::Arc;

use common::*;
use gatehouse::github::{AppCredentials, GitHub, RepoName, RetryPolicy};
use gatehouse::metrics::Metrics;
use gatehouse::source::github::{self as source, Read, TreeCache};

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
    let repo = RepoName::parse("acme/docs").unwrap();
    sim.clear_requests();

    let pr = source::pull_request(&gh, INSTALLATION, &repo, 5).await.unwrap();
    let Read::Snapshot(snapshot) = source::read(&gh, INSTALLATION, &repo, pr, &TreeCache::default()).await.unwrap()
    else {
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
    let repo = RepoName::parse("acme/docs").unwrap();
    let pr = source::pull_request(&gh, INSTALLATION, &repo, 6).await.unwrap();
    let Read::Snapshot(snapshot) = source::read(&gh, INSTALLATION, &repo, pr, &TreeCache::default()).await.unwrap()
    else {
        panic!("250 files are read whole");
    };
    assert_eq!(snapshot.files.len(), 250);
    let pages = sim.requests().iter().filter(|r| r.path.ends_with("/files")).count();
    assert_eq!(pages, 3);
    assert_eq!(snapshot.changes.pr.files.as_ref().map(Vec::len), Some(250));
}
