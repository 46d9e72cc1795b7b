//! What `gatehouse check --all` computes on issue 18's brief corpus
//! (`GATEHOUSE_BRIEFS`, default 1,000 briefs citing 50 ADRs, 200 source
//! folders, one brief in ten with an untestable criterion), without reading
//! the files: the pinned revisions a source looks up, every rule and the
//! text report, `GATEHOUSE_RUNS` times (default 1), printing the fastest run.
//! Small enough to run under `valgrind --tool=callgrind` for instruction
//! counts of the core alone.
//!
//! `cargo build --release -p gatehouse-core --example briefs_once`

extern crate gatehouse_core as gatehouse;

// The bench's corpus builders; the other families are not used here.
#[allow(dead_code)]
#[path = "../corpus/mod.rs"]
mod corpus;

use std::sync::Arc;
use std::time::Instant;

use gatehouse::model::{ChangeSet, Files, RepoIndex, RepoTree};

fn main() {
    let count: usize = std::env::var("GATEHOUSE_BRIEFS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let (mut base, mut head) = (Files::new(), Files::new());
    let mut tree = corpus::briefs::add_shaped(corpus::briefs::issue_18(count), &mut base, &mut head);
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    let changes = ChangeSet { repo: Some("gyrum-labs/platform".into()), head, repos, ..Default::default() };
    let runs: usize = std::env::var("GATEHOUSE_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut fastest = f64::INFINITY;
    for _ in 0..runs {
        let start = Instant::now();
        let changes = std::hint::black_box(&changes);
        let pinned = gatehouse::rules::brief::revisions_named(changes);
        let report = gatehouse::rules::evaluate(changes);
        let text = gatehouse::render::text(&report, changes);
        fastest = fastest.min(start.elapsed().as_secs_f64() * 1e3);
        assert!(pinned.is_empty(), "the corpus pins no revision");
        let untestable = report.findings().filter(|f| f.rule == "brief/untestable-criterion").count();
        assert_eq!(untestable, count / 10, "one brief in ten has an untestable criterion");
        std::hint::black_box(text);
    }
    println!("{count} briefs: fastest of {runs} runs {fastest:.1} ms");
}
