//! The fast answer to "is the head the base plus appended votes and
//! arguments, and nothing else?", from the lines alone and the head's parsed
//! structure. When it says yes, the base need not be parsed: removing the
//! appended entries from the head gives the base text exactly, so nothing
//! published changed. When it says no, the rules compare the parsed base.

use std::collections::HashMap;

use crate::docs::voting::{Block, VotingDoc};
use crate::docs::yaml::Yaml;

/// A block sequence in the head: where its entries start, and the line of
/// the first thing after it.
struct List {
    starts: Vec<u32>,
    after: u32,
}

/// True when `head` is `base` with whole entries appended at the ends of
/// vote ledgers and argument lists (blank and comment lines aside).
pub fn only_appends(base: &str, head: &str, doc: &VotingDoc) -> bool {
    let Some(inserted) = inserted_runs(base, head) else { return false };
    if inserted.is_empty() {
        return true;
    }
    let lines: Vec<&str> = head.lines().collect();
    let lists = lists(doc);
    let by_start: HashMap<u32, (usize, usize)> = lists
        .iter()
        .enumerate()
        .flat_map(|(l, list)| list.starts.iter().enumerate().map(move |(k, s)| (*s, (l, k))))
        .collect();
    inserted.iter().all(|&(first, last)| run_is_appended(first, last, &lists, &by_start, &lines))
}

/// Runs of head lines (first, last; 1-based) not matched to base lines, when
/// the base's lines appear in the head in order; `None` when they do not.
fn inserted_runs(base: &str, head: &str) -> Option<Vec<(u32, u32)>> {
    let mut base_lines = base.lines().peekable();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for (index, line) in head.lines().enumerate() {
        let n = index as u32 + 1;
        if base_lines.next_if_eq(&line).is_some() {
            continue;
        }
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == n => *last = n,
            _ => runs.push((n, n)),
        }
    }
    base_lines.peek().is_none().then_some(runs)
}

/// An inserted run must be whole entries at the tail of one list, possibly
/// followed by whole entries at the tail of the list that comes next (new
/// votes on the last argument, then new arguments).
fn run_is_appended(
    first: u32,
    last: u32,
    lists: &[List],
    by_start: &HashMap<u32, (usize, usize)>,
    lines: &[&str],
) -> bool {
    let mut start = first;
    loop {
        let Some(&(l, k)) = by_start.get(&start) else { return false };
        let list = &lists[l];
        if list.starts[k..].iter().any(|s| *s > last) {
            return false;
        }
        if list.after > last {
            // Lines after the run and before the next structure are base
            // lines; only blanks and comments may sit there.
            return (last + 1..list.after).all(|n| {
                lines.get(n as usize - 1).is_none_or(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            });
        }
        start = list.after;
    }
}

/// Every vote ledger and argument list of the head, with what follows each.
fn lists(doc: &VotingDoc) -> Vec<List> {
    let mut out = Vec::new();
    for (_, block) in doc.blocks() {
        let end = block_end(doc, block);
        let after_arguments = next_key_line(&block.root, "arguments").unwrap_or(end);
        let Some(arguments) = block.root.get("arguments").and_then(Yaml::as_seq) else { continue };
        for (index, argument) in arguments.iter().enumerate() {
            let Some(ledger) = argument.get("vote_ledger").and_then(Yaml::as_seq) else { continue };
            let after = next_key_line(argument, "vote_ledger")
                .or_else(|| arguments.get(index + 1).map(|a| a.line))
                .unwrap_or(after_arguments);
            out.push(List { starts: ledger.iter().map(|v| v.line).collect(), after });
        }
        out.push(List { starts: arguments.iter().map(|a| a.line).collect(), after: after_arguments });
    }
    out
}

/// The line of the key after `key` in a mapping.
fn next_key_line(map: &Yaml, key: &str) -> Option<u32> {
    let entries = map.as_map()?;
    let at = entries.iter().position(|(k, _)| k.name == key)?;
    entries.get(at + 1).map(|(k, _)| k.line)
}

/// The closing fence line of a block.
fn block_end(doc: &VotingDoc, block: &Block) -> u32 {
    doc.voting_fences.iter().find(|(open, _, _)| *open == block.fence_line).map_or(u32::MAX, |(_, end, _)| *end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "## S\n\n```voting\nsection: s\nactive_argument: A\narguments:\n  - id: A\n    vote_ledger:\n      - voter: a/b\n        vote: +1\n\n  - id: B\n    vote_ledger: []\n    target: A\n```\n";

    fn check(head: &str) -> bool {
        only_appends(BASE, head, &VotingDoc::parse("x@v1.md", head))
    }

    #[test]
    fn appended_votes_and_arguments_pass() {
        assert!(check(BASE));
        let vote = "      - voter: c/d\n        vote: -1\n";
        assert!(check(&BASE.replace("        vote: +1\n", &format!("        vote: +1\n{vote}"))));
        let argument = "  - id: C\n    vote_ledger: []\n";
        assert!(check(&BASE.replace("    target: A\n", &format!("    target: A\n{argument}"))));
    }

    #[test]
    fn anything_else_is_left_to_the_full_comparison() {
        // A vote inserted before the published one.
        assert!(!check(&BASE.replace(
            "    vote_ledger:\n      - voter: a/b",
            "    vote_ledger:\n      - voter: c/d\n        vote: -1\n      - voter: a/b"
        )));
        // A field added to a published vote.
        assert!(!check(&BASE.replace("        vote: +1\n", "        vote: +1\n        weight: 2\n")));
        // A line edited, a line removed.
        assert!(!check(&BASE.replace("vote: +1", "vote: -1")));
        assert!(!check(&BASE.replace("    target: A\n", "")));
        // Prose added after the block.
        assert!(!check(&format!("{BASE}\nMore prose.\n")));
    }
}
