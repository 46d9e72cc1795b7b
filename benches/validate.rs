//! The validation budget: the generated corpus (1,000 briefs; 100 voting docs
//! × 20 sections × 5 arguments × 50 votes; 200 spec folders; 2,000 decisions)
//! through every rule on one core in under 500 ms.

#[path = "../crates/gatehouse-core/corpus/mod.rs"]
mod corpus;

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse::model::{ChangeSet, Files, PrInfo, RepoIndex, RepoTree};

fn corpus() -> (ChangeSet, usize) {
    let mut base = Files::new();
    let mut head = Files::new();
    let mut tree = corpus::briefs::add(&mut base, &mut head);
    let decisions = corpus::decisions::add(&mut base, &mut head);
    corpus::specs::add(&mut base, &mut head);
    tree.extend(corpus::voting::add(&mut base, &mut head));
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    (ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, repos, ..Default::default() }, decisions)
}

fn documents(report: &gatehouse::model::Report, check: &str) -> usize {
    report.checks.iter().find(|c| c.name == check).map(|c| c.documents).expect("the check ran")
}

fn validate(c: &mut Criterion) {
    let (changes, decisions) = corpus();
    let report = gatehouse::rules::evaluate(&changes);
    assert_eq!(documents(&report, "gatehouse/briefs"), corpus::briefs::BRIEFS);
    assert_eq!(documents(&report, "gatehouse/decisions"), decisions);
    assert_eq!(documents(&report, "gatehouse/specs"), corpus::specs::SPECS);
    assert_eq!(documents(&report, "gatehouse/voting"), corpus::voting::DOCS);
    assert!(!report.has_errors(), "the corpus is valid: {:?}", report.findings().next());
    c.bench_function("corpus", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

/// The briefs alone: 1,000 new briefs citing 50 ADRs (issue 2: under 100 ms).
fn briefs(c: &mut Criterion) {
    let (mut base, mut head) = (Files::new(), Files::new());
    let tree = corpus::briefs::add(&mut base, &mut head);
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, repos, ..Default::default() };
    let report = gatehouse::rules::evaluate(&changes);
    assert_eq!(documents(&report, "gatehouse/briefs"), corpus::briefs::BRIEFS);
    assert!(!report.has_errors(), "the briefs are valid: {:?}", report.findings().next());
    c.bench_function("briefs", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

/// A typical pull request: 10 new briefs in a repository whose whole corpus
/// (briefs, voting docs, specs, decisions) is merged (budget: under 5 ms).
fn pull_request(c: &mut Criterion) {
    let (mut changes, _) = corpus();
    let new_briefs: Vec<String> =
        changes.head.keys().filter(|p| p.starts_with("dark-factory/briefs/")).take(10).cloned().collect();
    changes.base = changes.head.clone();
    for path in &new_briefs {
        changes.base.remove(path);
    }
    let report = gatehouse::rules::evaluate(&changes);
    assert_eq!(report.checks.iter().find(|c| c.name == "gatehouse/briefs").expect("briefs check").documents, 10);
    assert!(!report.has_errors());
    c.bench_function("pull_request_10_briefs", |b| {
        b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes)))
    });
}

/// The decision dockets alone: 2,000 manifests, a fifth of them moving.
fn decisions(c: &mut Criterion) {
    let (mut base, mut head) = (Files::new(), Files::new());
    let touched = corpus::decisions::add(&mut base, &mut head);
    assert_eq!(base.len(), corpus::decisions::DECISIONS);
    let changes = ChangeSet { base, head, ..Default::default() };
    let report = gatehouse::rules::evaluate(&changes);
    assert_eq!(documents(&report, "gatehouse/decisions"), touched);
    assert!(!report.has_errors(), "the decisions are valid: {:?}", report.findings().next());
    c.bench_function("decisions", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
    // The worst case: every manifest new, so every one is parsed and checked.
    let fresh = ChangeSet { head: changes.head, ..Default::default() };
    assert_eq!(documents(&gatehouse::rules::evaluate(&fresh), "gatehouse/decisions"), corpus::decisions::DECISIONS);
    c.bench_function("decisions-all-new", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&fresh))));
}

/// The spec family alone, on its 200 folders.
fn validate_specs(c: &mut Criterion) {
    let mut base = Files::new();
    let mut head = Files::new();
    corpus::specs::add(&mut base, &mut head);
    let changes = ChangeSet { base, head, ..Default::default() };
    let report = gatehouse::rules::evaluate(&changes);
    assert!(!report.has_errors(), "the spec corpus is valid: {:?}", report.findings().next());
    c.bench_function("specs", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

/// The voting docs alone, as a PR that appends a vote to every ledger
/// (100 docs × 20 sections × 5 arguments × 50 votes).
fn voting(c: &mut Criterion) {
    let (mut base, mut head) = (Files::new(), Files::new());
    let tree = corpus::voting::add(&mut base, &mut head);
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let pr = PrInfo { body: Some("Appends votes.\n\nVoting-format: v1\n".into()), ..Default::default() };
    let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, pr, repos, ..Default::default() };
    let report = gatehouse::rules::evaluate(&changes);
    assert_eq!(documents(&report, "gatehouse/voting"), corpus::voting::DOCS);
    assert!(!report.has_errors(), "the voting corpus is valid: {:?}", report.findings().next());
    c.bench_function("voting", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

/// `gatehouse site` on the 1,000 briefs and the 100 voting docs, every
/// document new as `check --all` reads them: the rules' report and every
/// page, the ledgers drawn from the rules' parse (issue 17: under one
/// second); the rules alone beside it. Reading the files and writing the
/// pages are left out.
fn site(c: &mut Criterion) {
    let (mut base, mut head) = (Files::new(), Files::new());
    let mut tree = corpus::briefs::add(&mut base, &mut head);
    tree.extend(corpus::voting::add(&mut base, &mut head));
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), head, repos, ..Default::default() };
    let options = gatehouse::site::Options { now: 1_785_000_000, repo: "gyrum-labs/platform".into() };
    let (_, site) = gatehouse::site::build(&changes, &options);
    let pages = |folder: &str| site.pages.iter().filter(|(p, _)| p.starts_with(folder)).count();
    assert_eq!(pages("briefs/"), corpus::briefs::BRIEFS + 1);
    assert_eq!(pages("ledgers/"), corpus::voting::DOCS + 1);
    c.bench_function("site", |b| b.iter(|| gatehouse::site::build(std::hint::black_box(&changes), &options)));
    c.bench_function("site-rules-only", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

/// Issue 18: `check --all`'s rules and text report on 1,000, 10,000 and
/// 50,000 briefs (50 ADRs, 200 source folders, one brief in ten with an
/// untestable criterion) grow linearly; `tests/brief_growth.rs` checks
/// the growth by counting allocations. Issue 26's budget: `check --all` on
/// the 1,000 under 60 ms. The release binary on the folder
/// `examples/brief_corpus.rs` writes takes 485 M instructions and 43.1–44.8
/// ms (`valgrind --tool=callgrind` and three series of `perf stat -r 30` on
/// `target/release/gatehouse check --all --repo /tmp/briefs-1k --repo-name
/// gyrum-labs/platform`, two shared cores at load 1.5); the work timed here
/// is 464 M of it (`examples/briefs_once.rs` under callgrind), 25.7 ms.
fn brief_growth(c: &mut Criterion) {
    let mut group = c.benchmark_group("brief-growth");
    group.sample_size(10);
    for count in [1_000, 10_000, 50_000] {
        let (mut base, mut head) = (Files::new(), Files::new());
        let mut tree = corpus::briefs::add_shaped(corpus::briefs::issue_18(count), &mut base, &mut head);
        tree.extend(head.keys().cloned());
        let mut repos = RepoIndex::default();
        repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
        let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), head, repos, ..Default::default() };
        let report = gatehouse::rules::evaluate(&changes);
        assert_eq!(documents(&report, "gatehouse/briefs"), count);
        group.throughput(criterion::Throughput::Elements(count as u64));
        group.bench_function(criterion::BenchmarkId::from_parameter(count), |b| {
            b.iter(|| {
                let changes = std::hint::black_box(&changes);
                let report = gatehouse::rules::evaluate(changes);
                gatehouse::render::text(&report, changes)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = validate, briefs, pull_request, decisions, validate_specs, voting, site, brief_growth
}
criterion_main!(benches);
