//! What an evaluation costs in a large repository: one pull request
//! touching one brief of 50,000 (100,000 files), read from the simulated
//! GitHub over loopback and run through every rule. An earlier pull request
//! on the same base read every document once, so the blob cache holds them;
//! the head's listing is read and its documents gathered once in the setup
//! (timed there, one run: what a push's first evaluation adds), and the
//! measured reads are what every later evaluation of that head costs: the
//! pull request, its files and the base side of the touched brief. The
//! budget is 50 ms.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse::github::{AppCredentials, GitHub, RepoClient, RepoName, RetryPolicy};
use gatehouse::metrics::Metrics;
use gatehouse::source::contents::ReadCache;
use gatehouse::source::pull_request::{self as source, Read};
use gatehouse_sim::{Sim, Tree};

const APP_ID: u64 = 4242;
const INSTALLATION: u64 = 77;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("the test App key")
}

fn brief(agent: &str, estimate: u32) -> Vec<u8> {
    format!(
        "---\nagent: SWARM-{agent}\nrepos_touched: [acme/docs]\nadrs_referenced: [ADR-095]\nsuccess_criteria:\n  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"\nout_of_scope:\n  - on-host pg_dump storage\nlines_estimate: {estimate}\n---\n\n# Backups\n\nFollows ADR-095 for the bucket layout.\n"
    )
    .into_bytes()
}

fn repository() -> Tree {
    let mut tree = Tree::new();
    tree.insert(
        "docs/adr/ADR-095-backups.md".into(),
        b"# ADR-095: Backups\n\nStatus: Accepted\n\nBackups go to the bucket.\n".to_vec(),
    );
    for i in 0..50_000 {
        tree.insert(format!("dark-factory/briefs/SWARM-B{i}-work.md"), brief(&format!("B{i}"), 10));
        tree.insert(format!("services/api/src/module_{i}.rs"), format!("pub const N: u32 = {i};\n").into_bytes());
    }
    tree
}

async fn snapshot(repo: &RepoClient, number: u64, cache: &ReadCache) -> source::PrSnapshot {
    let pr = source::describe(repo, number).await.expect("the PR");
    match source::read(repo, pr, cache).await.expect("the PR is read") {
        Read::Snapshot(snapshot) => *snapshot,
        Read::TooManyFiles { .. } => panic!("one file changed"),
    }
}

fn evaluation(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let (sim, repo, cache) = runtime.block_on(async {
        let sim = Sim::start(APP_ID, &fixture("fixtures/app/test-app-key.pub.pem"), INSTALLATION).await.expect("sim");
        let base = repository();
        let mut earlier = base.clone();
        earlier.insert("README.md".into(), b"# docs\n".to_vec());
        sim.open_pr("acme/docs", 1, base.clone(), earlier, "");
        let mut head = base.clone();
        head.insert("dark-factory/briefs/SWARM-B7-work.md".into(), brief("B7", 20));
        sim.open_pr("acme/docs", 2, base, head, "One brief.");
        let key = fixture("fixtures/app/test-app-key.pem");
        let creds = AppCredentials::new(APP_ID, &key).expect("the test App key");
        let gh = GitHub::new(&sim.url(), creds, RetryPolicy::default(), Arc::new(Metrics::new(&[]))).expect("client");
        let repo = RepoClient::new(gh, INSTALLATION, RepoName::parse("acme/docs").expect("a repo name"));
        let cache = ReadCache::default();
        snapshot(&repo, 1, &cache).await;
        // The head's listing is fetched and its documents gathered once
        // here, then kept like any commit's; one timed run says what that
        // first read of a new head costs.
        let started = std::time::Instant::now();
        snapshot(&repo, 2, &cache).await;
        println!("first read of the new head (one run): {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
        (sim, repo, cache)
    });
    sim.clear_requests();
    let changes = runtime.block_on(snapshot(&repo, 2, &cache)).changes;
    println!("calls to GitHub for one read: {}", sim.requests().len());

    let mut group = c.benchmark_group("evaluation");
    group.sample_size(20);
    group.bench_function("one brief of 50,000: read (listing cached) and rules", |b| {
        b.iter(|| {
            let snapshot = runtime.block_on(snapshot(&repo, 2, &cache));
            gatehouse::rules::evaluate(&snapshot.changes)
        })
    });
    group.bench_function("one brief of 50,000: rules only", |b| b.iter(|| gatehouse::rules::evaluate(&changes)));
    group.finish();
}

criterion_group!(benches, evaluation);
criterion_main!(benches);
