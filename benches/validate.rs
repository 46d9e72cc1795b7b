//! The validation budget (DESIGN §9): the generated corpus through every rule
//! on one core.

mod corpus;

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse::model::{ChangeSet, Files, PrInfo, RepoIndex, RepoTree};

fn corpus() -> ChangeSet {
    let mut base = Files::new();
    let mut head = Files::new();
    let mut tree = corpus::briefs::add(&mut base, &mut head);
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, repos, ..Default::default() }
}

/// The voting docs alone, as a PR that appends votes (base and head).
fn voting_corpus() -> ChangeSet {
    let mut base = Files::new();
    let mut head = Files::new();
    let mut tree = corpus::voting::add(&mut base, &mut head);
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let pr = PrInfo { body: Some("Appends votes.\n\nVoting-format: v1\n".into()) };
    ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, pr, repos, ..Default::default() }
}

fn validate(c: &mut Criterion) {
    let changes = corpus();
    let report = gatehouse::rules::evaluate(&changes);
    let briefs = report.checks.iter().find(|c| c.name == "gatehouse/briefs").expect("briefs check");
    assert_eq!(briefs.documents, corpus::briefs::BRIEFS);
    assert!(!report.has_errors(), "the corpus is valid: {:?}", report.findings().next());
    c.bench_function("corpus", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

fn voting(c: &mut Criterion) {
    let changes = voting_corpus();
    let report = gatehouse::rules::evaluate(&changes);
    let voting = report.checks.iter().find(|c| c.name == "gatehouse/voting").expect("voting check");
    assert_eq!(voting.documents, corpus::voting::DOCS);
    assert!(
        !report.has_errors(),
        "the voting corpus is valid: {:?}",
        report.findings().find(|f| f.severity == gatehouse::model::Severity::Error)
    );
    c.bench_function("voting", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = validate, voting
}
criterion_main!(benches);
