//! The fast answer to "is the head the base plus appended votes and
//! arguments, and nothing else?", from the lines alone and the head's parsed
//! structure. When it says yes, the base need not be parsed: removing the
//! appended entries from the head gives the base text exactly, so nothing
//! published changed. When it says no, the rules compare the parsed base.

use crate::docs::tree::{Node, Seq};
use crate::docs::voting::{Block, VotingDoc};

/// A block sequence in the head: where its entries start (a range of
/// [`Lists::starts`]), and the line of the first thing after it.
struct List {
    entries: std::ops::Range<usize>,
    after: u32,
}

/// True when `head` is `base` with whole entries appended at the ends of
/// vote ledgers and argument lists (blank and comment lines aside).
pub(super) fn only_appends(base: &str, head: &str, doc: &VotingDoc) -> bool {
    let Some(inserted) = inserted_runs(base, head) else { return false };
    if inserted.is_empty() {
        return true;
    }
    // The head's lines, split only when a run is followed by lines to look
    // at (rarely: appended entries usually end where the next list starts).
    let lines = std::cell::OnceCell::new();
    let lines = || lines.get_or_init(|| crate::docs::lines::lines(head).collect::<Vec<&str>>()).as_slice();
    let lists = Lists::new(doc);
    inserted.iter().all(|&(first, last)| run_is_appended(first, last, &lists, &lines))
}

/// Runs of head lines (first, last; 1-based) not matched to base lines, when
/// the base's lines appear in the head in order; `None` when they do not.
/// Greedy, line by line: a head line that equals the next base line matches
/// it. Stretches the two texts share byte for byte are whole matched lines,
/// so they are skipped with one comparison (a PR that appends votes to a big
/// doc leaves almost all of it so).
fn inserted_runs(base: &str, head: &str) -> Option<Vec<(u32, u32)>> {
    let (mut b, mut h) = (0, 0);
    let mut n: u32 = 0;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    while h < head.len() {
        let same = common_prefix(&base.as_bytes()[b..], &head.as_bytes()[h..]);
        if let Some(last) = memchr::memrchr(b'\n', &head.as_bytes()[h..h + same]) {
            n += crate::docs::lines::count(&head[h..=h + last]);
            (b, h) = (b + last + 1, h + last + 1);
        }
        if h >= head.len() {
            break;
        }
        let (line, after) = next_line(head, h);
        h = after;
        n += 1;
        if b < base.len() {
            let (base_line, base_after) = next_line(base, b);
            if base_line == line {
                b = base_after;
                continue;
            }
        }
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == n => *last = n,
            _ => runs.push((n, n)),
        }
    }
    (b >= base.len()).then_some(runs)
}

/// How many leading bytes two texts share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let max = a.len().min(b.len());
    let mut at = 0;
    // Big chunks first (few comparisons over long shared stretches), then
    // small ones to close in on the first difference.
    for chunk in [4096, 256, 16] {
        while at + chunk <= max && a[at..at + chunk] == b[at..at + chunk] {
            at += chunk;
        }
    }
    at + a[at..max].iter().zip(&b[at..max]).take_while(|(x, y)| x == y).count()
}

/// The line starting at byte `at`, as `str::lines` gives it (without its
/// `\n` or `\r\n`), and where the next line starts.
fn next_line(text: &str, at: usize) -> (&str, usize) {
    let rest = &text[at..];
    match memchr::memchr(b'\n', rest.as_bytes()) {
        Some(end) => {
            let line = &rest[..end];
            (line.strip_suffix('\r').unwrap_or(line), at + end + 1)
        }
        None => (rest, text.len()),
    }
}

/// An inserted run must be whole entries at the tail of one list, possibly
/// followed by whole entries at the tail of the list that comes next (new
/// votes on the last argument, then new arguments).
fn run_is_appended<'t>(first: u32, last: u32, lists: &Lists, lines: &dyn Fn() -> &'t [&'t str]) -> bool {
    let mut start = first;
    loop {
        let Some((list, k)) = lists.entry_at(start) else { return false };
        if lists.starts[list.entries.start + k..list.entries.end].iter().any(|s| *s > last) {
            return false;
        }
        if list.after > last {
            // Lines after the run and before the next structure are base
            // lines; only blanks and comments may sit there.
            return (last + 1..list.after).all(|n| {
                lines().get(n as usize - 1).is_none_or(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            });
        }
        start = list.after;
    }
}

/// Every vote ledger and argument list of the head, with what follows each,
/// and which list's entry starts on a line.
struct Lists {
    lists: Vec<List>,
    /// The line each entry starts on, list after list.
    starts: Vec<u32>,
    /// (line, list, entry) of every vote ledger's entries, by line; of
    /// entries starting on one line (flow style), the last listed is last.
    ledger_entries: Vec<(u32, usize, usize)>,
    /// The same for the argument lists' entries, which come after the
    /// ledgers' entries that start on their line.
    argument_entries: Vec<(u32, usize, usize)>,
}

impl Lists {
    fn new(doc: &VotingDoc) -> Lists {
        // Room for every entry at once: growing the vectors copied them
        // several times over.
        let entries: usize = doc
            .blocks()
            .filter_map(|(_, block)| arguments(block))
            .flat_map(|arguments| arguments.iter().map(|a| 1 + a.get("vote_ledger").map_or(0, |l| l.items().len())))
            .sum();
        let mut out = Lists {
            lists: Vec::new(),
            starts: Vec::with_capacity(entries),
            ledger_entries: Vec::with_capacity(entries),
            argument_entries: Vec::new(),
        };
        for (_, block) in doc.blocks() {
            let end = block_end(doc, block);
            let after_arguments = next_key_line(block.root(), "arguments").unwrap_or(end);
            let Some(arguments) = arguments(block) else { continue };
            for (index, argument) in arguments.iter().enumerate() {
                let Some(ledger) = argument.get("vote_ledger").and_then(Node::as_seq) else { continue };
                let after = next_key_line(argument, "vote_ledger")
                    .or_else(|| arguments.get(index + 1).map(|a| a.line()))
                    .unwrap_or(after_arguments);
                out.push(ledger.iter().map(|v| v.line()), after, true);
            }
            out.push(arguments.iter().map(|a| a.line()), after_arguments, false);
        }
        // Entries follow one another down the doc, ledger after ledger and
        // list after list, so these hold at once.
        for entries in [&mut out.ledger_entries, &mut out.argument_entries] {
            if !entries.is_sorted_by_key(|(line, _, _)| *line) {
                entries.sort_by_key(|(line, _, _)| *line);
            }
        }
        out
    }

    /// Adds a list whose entries start on `starts`, a vote ledger or an
    /// argument list.
    fn push(&mut self, starts: impl Iterator<Item = u32>, after: u32, ledger: bool) {
        let (from, l) = (self.starts.len(), self.lists.len());
        self.starts.extend(starts);
        self.lists.push(List { entries: from..self.starts.len(), after });
        let index = if ledger { &mut self.ledger_entries } else { &mut self.argument_entries };
        index.extend(self.starts[from..].iter().enumerate().map(|(k, &line)| (line, l, k)));
    }

    /// The list, and the entry of it, that starts on `line`: an argument
    /// list's before a ledger's.
    fn entry_at(&self, line: u32) -> Option<(&List, usize)> {
        let last_on = |entries: &[(u32, usize, usize)]| {
            let at = entries.partition_point(|(s, _, _)| *s <= line).checked_sub(1)?;
            let (s, l, k) = entries[at];
            (s == line).then_some((l, k))
        };
        let (l, k) = last_on(&self.argument_entries).or_else(|| last_on(&self.ledger_entries))?;
        Some((&self.lists[l], k))
    }
}

/// A block's `arguments`, when they are a list.
fn arguments<'b>(block: &'b Block) -> Option<Seq<'b>> {
    block.root().get("arguments").and_then(Node::as_seq)
}

/// The line of the key after `key` in a mapping.
fn next_key_line(map: Node, key: &str) -> Option<u32> {
    let mut entries = map.as_map()?.iter().skip_while(|(k, _)| k.name != key);
    entries.next()?;
    entries.next().map(|(k, _)| k.line)
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

    /// The plain line-by-line matching that `inserted_runs` skips ahead of.
    fn inserted_runs_by_lines(base: &str, head: &str) -> Option<Vec<(u32, u32)>> {
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

    proptest::proptest! {
        #[test]
        fn skipping_shared_text_matches_line_by_line(
            base in "[ab\\r\\n]{0,40}",
            edits in proptest::collection::vec((0usize..60, "[ab\\r\\n]{0,6}"), 0..4),
        ) {
            let mut head = base.clone();
            for (at, insert) in edits {
                let at = at.min(head.len());
                head.insert_str(at, &insert);
            }
            proptest::prop_assert_eq!(inserted_runs(&base, &head), inserted_runs_by_lines(&base, &head));
            proptest::prop_assert_eq!(inserted_runs(&head, &base), inserted_runs_by_lines(&head, &base));
        }
    }

    #[test]
    fn long_shared_stretches_are_skipped_exactly() {
        let base: String = (0..300).map(|i| format!("line {i}\n")).collect();
        let head = base.replace("line 150\n", "line 150\nnew\r\nnewer\n") + "tail";
        assert_eq!(inserted_runs(&base, &head), Some(vec![(152, 153), (303, 303)]));
        assert_eq!(inserted_runs(&base, &head), inserted_runs_by_lines(&base, &head));
        assert_eq!(inserted_runs(&head, &base), None);
        assert_eq!(inserted_runs(&base.replace('\n', "\r\n"), &base), Some(vec![]));
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
