//! 100 voting docs × 20 sections × 5 arguments × 50 votes, as a PR that
//! appends one vote to every argument's ledger (base and head versions).

use gatehouse::model::{FileContent, Files};

pub const DOCS: usize = 100;
const SECTIONS: usize = 20;
const ARGUMENTS: usize = 5;
const VOTES: usize = 50;

/// Adds every doc to the base (50 votes per argument) and to the head (51).
/// Returns the repository files the examples name.
pub fn add(base: &mut Files, head: &mut Files) -> Vec<String> {
    for d in 0..DOCS {
        let path = format!("dark-factory/guidelines/rule-{d}@v1.md");
        base.insert(path.clone(), FileContent::Text(doc(d, VOTES).into()));
        head.insert(path, FileContent::Text(doc(d, VOTES + 1).into()));
    }
    vec!["tests/e2e/login.spec.ts".to_string()]
}

fn doc(d: usize, votes: usize) -> String {
    let mut text = format!(
        "---\nformat: voting/v1\ndoc: rule-{d}\nversion: 1\nscope: [e2e]\n---\n# Rule {d}\n\nGenerated guideline {d}.\n"
    );
    for s in 0..SECTIONS {
        text.push_str(&format!(
            "\n## Section {s}\n\n```voting\nsection: section-{s}\nactive_argument: A\narguments:\n"
        ));
        for a in 0..ARGUMENTS {
            let id = (b'A' + a as u8) as char;
            let (kind, target, refs) = match a {
                0 => ("original", String::new(), "[]"),
                _ => ("counter-example", "    target: A\n".to_string(), "[gyrum-labs/platform#12]"),
            };
            let lines = [
                format!("  - id: {id}"),
                format!("    proposer: author{a}/opus-4.7"),
                "    proposed_at: 2026-05-06".to_string(),
                format!("    proposition: Rule {d}.{s} holds in form {id}."),
                format!(
                    "    rationale: Generated argument {id} of section {s}, long enough to pass the fifty character gate."
                ),
                format!("    evidence_pr_refs: {refs}"),
                "    example:".to_string(),
                "      artefact: tests/e2e/login.spec.ts".to_string(),
                "      diff_snapshot_ref: gyrum-labs/platform#12".to_string(),
                "      explanation: The login smoke spec.".to_string(),
                format!("    modification_kind: {kind}"),
            ];
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
            text.push_str(&format!("{target}    vote_ledger:\n"));
            for v in 0..votes {
                // Argument A collects +1s, the others split, so A stays on top.
                let vote = if a == 0 || v % 2 == 0 { "+1" } else { "-1" };
                text.push_str(&format!(
                    "      - voter: voter{v}/opus-4.7\n        vote: {vote}\n        weight: 1.{w}\n        ts: 2026-05-{day:02}T{hour:02}:{minute:02}:00Z\n        rationale: \"Vote {v} on {id}: the rule matched the repository state in review.\"\n",
                    w = v % 10,
                    day = 7 + v / 24,
                    hour = v % 24,
                    minute = a * 10,
                ));
            }
        }
        text.push_str("```\n");
    }
    text
}
