//! 1,000 briefs citing 50 ADRs, each with body paths, quotes and criteria.

use gatehouse::model::{FileContent, Files};

pub const BRIEFS: usize = 1_000;
const ADRS: usize = 50;

/// Adds the ADRs (to base and head) and the briefs (head only: all new).
/// Returns the repository files the briefs' paths name.
pub fn add(base: &mut Files, head: &mut Files) -> Vec<String> {
    for n in 0..ADRS {
        let text = format!(
            "# ADR-{n:03}: Decision {n}\n\nStatus: Accepted\n\n## Decision\n\nService {n} keeps its state in Postgres, never on local disk.\nEvery job is idempotent and retried at most 3 times.\n"
        );
        let content = FileContent::Text(text.into());
        base.insert(format!("docs/adr/ADR-{n:03}-decision.md"), content.clone());
        head.insert(format!("docs/adr/ADR-{n:03}-decision.md"), content);
    }
    let mut repo_files = Vec::new();
    for i in 0..BRIEFS {
        let a = i % ADRS;
        let b = (i * 7 + 3) % ADRS;
        let id = format!("B{i:04}");
        repo_files.push(format!("services/svc{i}/main.rs"));
        let text = format!(
            "---\nagent: SWARM-{id}\nrepos_touched: [gyrum-labs/platform]\nadrs_referenced: [ADR-{a:03}, ADR-{b:03}]\n\
success_criteria:\n  - \"`cargo test -p svc{i}` exits 0\"\n  - the job endpoint returns 200 within 50 ms\n  - the importer rejects rows over 1 MB\n\
out_of_scope:\n  - the billing service\nlines_estimate: {lines}\n---\n# Service {i}\n\n\
Implement ADR-{a:03} and ADR-{b:03} for service {i}.\n\nADR-{a:03} says:\n\n> Service {a} keeps its state in Postgres, never on local disk.\n\n\
Per ADR-{b:03}, every job of service {i} is idempotent and retried at most 3 times.\n\n\
Change `services/svc{i}/main.rs` and add `services/svc{i}/retry.rs` (to-be-created: the retry wrapper ADR-{b:03} asks for).\n\
See `gyrum-labs/platform#12` and https://example.com/docs for context.\n",
            lines = 50 + i % 300,
        );
        head.insert(format!("dark-factory/briefs/SWARM-{id}-service-{i}.md"), FileContent::Text(text.into()));
    }
    repo_files
}
