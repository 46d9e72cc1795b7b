//! The validate bench's voting set (100 docs × 20 sections × 5 arguments ×
//! 50 votes, a vote appended to every ledger) evaluated `GATEHOUSE_RUNS`
//! times (default 1), printing the fastest run: small enough to run under
//! `valgrind --tool=callgrind` for instruction counts, where the criterion
//! bench needs the whole application built.
//!
//! `cargo build --release -p gatehouse-core --example voting_once`

extern crate gatehouse_core as gatehouse;

#[path = "../corpus/voting.rs"]
mod voting;

use std::sync::Arc;
use std::time::Instant;

use gatehouse::model::{ChangeSet, Files, PrInfo, RepoIndex, RepoTree};

fn main() {
    let (mut base, mut head) = (Files::new(), Files::new());
    let tree = voting::add(&mut base, &mut head);
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let pr = PrInfo { body: Some("Appends votes.\n\nVoting-format: v1\n".into()), ..Default::default() };
    let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), base, head, pr, repos, ..Default::default() };
    let runs: usize = std::env::var("GATEHOUSE_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut fastest = f64::INFINITY;
    for _ in 0..runs {
        let start = Instant::now();
        let report = gatehouse::rules::evaluate(std::hint::black_box(&changes));
        fastest = fastest.min(start.elapsed().as_secs_f64() * 1e3);
        assert!(!report.has_errors(), "the voting corpus is valid: {:?}", report.findings().next());
    }
    println!("voting: fastest of {runs} runs {fastest:.1} ms");
}
