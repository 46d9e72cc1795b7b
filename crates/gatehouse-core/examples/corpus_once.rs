//! The validate bench's `corpus` workload (1,000 briefs, 2,000 decisions,
//! 200 spec folders and the 100 voting docs) evaluated `GATEHOUSE_RUNS`
//! times (default 1), printing the fastest run: small enough to run under
//! `valgrind --tool=callgrind` for instruction counts.
//!
//! `cargo build --release -p gatehouse-core --example corpus_once`

extern crate gatehouse_core as gatehouse;

// The bench's corpus builders; the growth shapes are not used here.
#[allow(dead_code)]
#[path = "../corpus/mod.rs"]
mod corpus;

use std::sync::Arc;
use std::time::Instant;

use gatehouse::model::{ChangeSet, Files, RepoIndex, RepoTree};

fn main() {
    let (mut base, mut head) = (Files::new(), Files::new());
    let mut tree = corpus::briefs::add(&mut base, &mut head);
    corpus::decisions::add(&mut base, &mut head);
    corpus::specs::add(&mut base, &mut head);
    tree.extend(corpus::voting::add(&mut base, &mut head));
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, repos, ..Default::default() };
    let runs: usize = std::env::var("GATEHOUSE_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut fastest = f64::INFINITY;
    for _ in 0..runs {
        let start = Instant::now();
        let report = gatehouse::rules::evaluate(std::hint::black_box(&changes));
        fastest = fastest.min(start.elapsed().as_secs_f64() * 1e3);
        assert!(!report.has_errors(), "the corpus is valid: {:?}", report.findings().next());
    }
    println!("corpus: fastest of {runs} runs {fastest:.1} ms");
}
