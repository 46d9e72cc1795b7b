//! Briefs citing 50 ADRs, each with body paths, quotes and criteria: the
//! validate bench's 1,000 valid briefs, and corpora of any size shaped like
//! issue 18's repository (200 source folders, one brief in ten with an
//! untestable criterion) for the growth bench, `tests/brief_growth.rs` and
//! `examples/brief_corpus.rs`.

use gatehouse::model::{FileContent, Files};

pub const BRIEFS: usize = 1_000;
const ADRS: usize = 50;

/// How many briefs, naming how many source folders, how many of them flawed.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub briefs: usize,
    /// Brief `i` changes `services/svc{i % source_folders}/main.rs`.
    pub source_folders: usize,
    /// Every `n`-th brief has an untestable success criterion.
    pub untestable_every: Option<usize>,
}

/// The validate bench's corpus: every brief valid, each with a folder of its own.
pub const BENCH: Shape = Shape { briefs: BRIEFS, source_folders: BRIEFS, untestable_every: None };

/// Issue 18's repository with `briefs` briefs.
pub fn issue_18(briefs: usize) -> Shape {
    Shape { briefs, source_folders: 200, untestable_every: Some(10) }
}

/// Adds the bench's ADRs (to base and head) and briefs (head only: all new).
/// Returns the repository files the briefs' paths name.
pub fn add(base: &mut Files, head: &mut Files) -> Vec<String> {
    add_shaped(BENCH, base, head)
}

/// Adds a corpus of `shape`: the ADRs to base and head, the briefs to the
/// head only. Returns the repository files the briefs' paths name.
pub fn add_shaped(shape: Shape, base: &mut Files, head: &mut Files) -> Vec<String> {
    for (path, text) in adrs() {
        let content = FileContent::Text(text.into());
        base.insert(path.clone(), content.clone());
        head.insert(path, content);
    }
    for (path, text) in briefs(shape) {
        head.insert(path, FileContent::Text(text.into()));
    }
    source_files(shape)
}

/// The ADRs: path and text.
pub fn adrs() -> impl Iterator<Item = (String, String)> {
    (0..ADRS).map(|n| {
        let text = format!(
            "# ADR-{n:03}: Decision {n}\n\nStatus: Accepted\n\n## Decision\n\nService {n} keeps its state in Postgres, never on local disk.\nEvery job is idempotent and retried at most 3 times.\n"
        );
        (format!("docs/adr/ADR-{n:03}-decision.md"), text)
    })
}

/// The files the briefs' paths name (those that exist).
pub fn source_files(shape: Shape) -> Vec<String> {
    (0..shape.source_folders.min(shape.briefs)).map(|s| format!("services/svc{s}/main.rs")).collect()
}

/// The briefs: path and text.
pub fn briefs(shape: Shape) -> impl Iterator<Item = (String, String)> {
    (0..shape.briefs).map(move |i| {
        let a = i % ADRS;
        let b = (i * 7 + 3) % ADRS;
        let s = i % shape.source_folders;
        let id = format!("B{i:04}");
        let criterion = match shape.untestable_every {
            Some(n) if i % n == n - 1 => "the feature works",
            _ => "the job endpoint returns 200 within 50 ms",
        };
        let text = format!(
            "---\nagent: SWARM-{id}\nrepos_touched: [gyrum-labs/platform]\nadrs_referenced: [ADR-{a:03}, ADR-{b:03}]\n\
success_criteria:\n  - \"`cargo test -p svc{s}` exits 0\"\n  - {criterion}\n  - the importer rejects rows over 1 MB\n\
out_of_scope:\n  - the billing service\nlines_estimate: {lines}\n---\n# Service {i}\n\n\
Implement ADR-{a:03} and ADR-{b:03} for service {i}.\n\nADR-{a:03} says:\n\n> Service {a} keeps its state in Postgres, never on local disk.\n\n\
Per ADR-{b:03}, every job of service {i} is idempotent and retried at most 3 times.\n\n\
Change `services/svc{s}/main.rs` and add `services/svc{s}/retry.rs` (to-be-created: the retry wrapper ADR-{b:03} asks for).\n\
See `gyrum-labs/platform#12` and https://example.com/docs for context.\n",
            lines = 50 + i % 300,
        );
        (format!("dark-factory/briefs/SWARM-{id}-service-{i}.md"), text)
    })
}
