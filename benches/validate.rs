//! The validation budget (DESIGN §9): the generated corpus through every rule
//! on one core.

mod corpus;

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse::model::{ChangeSet, Files, RepoIndex, RepoTree};

fn corpus() -> ChangeSet {
    let mut base = Files::new();
    let mut head = Files::new();
    let mut tree = corpus::briefs::add(&mut base, &mut head);
    corpus::specs::add(&mut base, &mut head);
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, repos, ..Default::default() }
}

fn validate(c: &mut Criterion) {
    let changes = corpus();
    let report = gatehouse::rules::evaluate(&changes);
    let briefs = report.checks.iter().find(|c| c.name == "gatehouse/briefs").expect("briefs check");
    assert_eq!(briefs.documents, corpus::briefs::BRIEFS);
    let specs = report.checks.iter().find(|c| c.name == "gatehouse/specs").expect("specs check");
    assert_eq!(specs.documents, corpus::specs::SPECS);
    assert!(!report.has_errors(), "the corpus is valid: {:?}", report.findings().next());
    c.bench_function("corpus", |b| b.iter(|| gatehouse::rules::evaluate(std::hint::black_box(&changes))));
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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = validate, validate_specs
}
criterion_main!(benches);
