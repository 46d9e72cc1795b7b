//! Fixes: edits to the head text that clear a finding. A rule proposes one;
//! the engine offers it only once applying it has been shown to clear its
//! finding and add no error or warning (`rules::verify`).

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Serialize;

use super::Files;

/// What a fix does, and the edits that do it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Fix {
    /// What the fix does, in a sentence: "set `agent: SWARM-AR`".
    pub message: String,
    /// Non-overlapping edits, each on the head text of its file.
    pub edits: Vec<Edit>,
}

/// Replace the bytes `start..end` of the head text at `path` with `replacement`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Edit {
    pub path: String,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

impl Fix {
    /// A fix of one edit.
    pub fn replace(message: impl Into<String>, path: &str, range: Range<usize>, replacement: impl Into<String>) -> Fix {
        Fix {
            message: message.into(),
            edits: vec![Edit {
                path: path.to_string(),
                start: range.start,
                end: range.end,
                replacement: replacement.into(),
            }],
        }
    }

    /// Adds an edit.
    pub fn and(mut self, path: &str, range: Range<usize>, replacement: impl Into<String>) -> Fix {
        self.edits.push(Edit {
            path: path.to_string(),
            start: range.start,
            end: range.end,
            replacement: replacement.into(),
        });
        self
    }

    /// The paths the fix edits, each once, in path order.
    pub fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.edits.iter().map(|e| e.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        paths
    }

    /// The whole lines the fix rewrites in `head`, as a suggested change on
    /// GitHub shows them; `None` for a fix that edits more than one file.
    pub fn line_change(&self, head: &Files) -> Option<LineChange> {
        let [path] = self.paths()[..] else { return None };
        let text = head.get(path)?.text()?;
        line_change(text, &self.edits.iter().collect::<Vec<_>>())
    }

    /// Whether an edit of `self` and one of `other` touch the same bytes of
    /// one file (two insertions at one offset count: their order would be a
    /// guess).
    pub fn overlaps(&self, other: &Fix) -> bool {
        self.edits.iter().any(|a| other.edits.iter().any(|b| a.path == b.path && a.overlaps(b)))
    }
}

impl Edit {
    fn overlaps(&self, other: &Edit) -> bool {
        (self.start < other.end && other.start < self.end) || self.start == other.start
    }
}

/// `text` with `edits` applied, or `None` when an edit falls outside the
/// text or inside a character, or two of them overlap.
pub fn apply(text: &str, edits: &[&Edit]) -> Option<String> {
    let mut sorted: Vec<&Edit> = edits.to_vec();
    sorted.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for (i, edit) in sorted.iter().enumerate() {
        if edit.start < at || edit.start > edit.end || (i > 0 && sorted[i - 1].overlaps(edit)) {
            return None;
        }
        out.push_str(text.get(at..edit.start)?);
        text.get(edit.start..edit.end)?;
        out.push_str(&edit.replacement);
        at = edit.end;
    }
    out.push_str(text.get(at..)?);
    Some(out)
}

/// The texts `fixes` make of the files of `head` they edit: each file with
/// every edit of the fixes applied. The fixes of one report never overlap
/// (the engine offers the first of two that do); a file whose edits cannot
/// all be applied is left out.
pub fn fixed_texts<'f>(head: &Files, fixes: impl IntoIterator<Item = &'f Fix>) -> BTreeMap<String, String> {
    let mut edits: BTreeMap<&str, Vec<&Edit>> = BTreeMap::new();
    for fix in fixes {
        for edit in &fix.edits {
            edits.entry(edit.path.as_str()).or_default().push(edit);
        }
    }
    edits
        .into_iter()
        .filter_map(|(path, edits)| {
            let text = head.get(path)?.text()?;
            Some((path.to_string(), apply(text, &edits)?))
        })
        .collect()
}

/// The whole lines of a text that a set of edits touches, and what they
/// become: the shape of a suggested change on GitHub, which replaces lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineChange {
    /// 1-based, inclusive, in the text before the edits.
    pub start_line: u32,
    pub end_line: u32,
    /// The lines that replace them, each ending with `\n`: empty when the
    /// edits delete the lines.
    pub text: String,
}

/// The lines `edits` touch in `text`, or `None` when they cannot be applied
/// (see [`apply`]) or touch no line (an insertion at the end of the text).
pub fn line_change(text: &str, edits: &[&Edit]) -> Option<LineChange> {
    let start = edits.iter().map(|e| e.start).min()?;
    let end = edits.iter().map(|e| e.end).max()?;
    let first = text.get(..start)?.rfind('\n').map_or(0, |at| at + 1);
    // The line holding the last byte edited (or, for an insertion, the line
    // it goes before), with its newline.
    let last_byte = if end > start { end - 1 } else { end };
    let last = match text.get(last_byte..)?.find('\n') {
        Some(at) => last_byte + at + 1,
        None => text.len(),
    };
    if first >= last {
        return None;
    }
    let shifted: Vec<Edit> = edits
        .iter()
        .map(|e| Edit {
            path: e.path.clone(),
            start: e.start - first,
            end: e.end - first,
            replacement: e.replacement.clone(),
        })
        .collect();
    let lines = text.get(first..last)?;
    let mut replaced = apply(lines, &shifted.iter().collect::<Vec<_>>())?.replace("\r\n", "\n");
    if !replaced.is_empty() && !replaced.ends_with('\n') {
        replaced.push('\n');
    }
    let start_line = text[..first].matches('\n').count() as u32 + 1;
    let end_line = start_line + lines.trim_end_matches('\n').matches('\n').count() as u32;
    Some(LineChange { start_line, end_line, text: replaced })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, replacement: &str) -> Edit {
        Edit { path: "a.md".into(), start, end, replacement: replacement.into() }
    }

    #[test]
    fn edits_apply_in_offset_order_and_refuse_overlaps() {
        let text = "agent: SWARM-AQ\nlines: \"80\"\n";
        let (a, b) = (edit(7, 15, "SWARM-AR"), edit(23, 27, "80"));
        assert_eq!(apply(text, &[&b, &a]).as_deref(), Some("agent: SWARM-AR\nlines: 80\n"));
        assert_eq!(apply(text, &[&a, &edit(10, 12, "x")]), None);
        assert_eq!(apply(text, &[&edit(7, 7, "x"), &edit(7, 7, "y")]), None);
        assert_eq!(apply(text, &[&edit(7, 99, "x")]), None);
        assert_eq!(apply("é", &[&edit(1, 2, "x")]), None);
    }

    #[test]
    fn a_line_change_covers_the_whole_lines_edited() {
        let text = "a: 1\nagent: SWARM-AQ\nb: 2\n";
        let change = line_change(text, &[&edit(12, 20, "SWARM-AR")]).unwrap();
        assert_eq!(change, LineChange { start_line: 2, end_line: 2, text: "agent: SWARM-AR\n".into() });
        // Deleting a whole line (its newline included) replaces it with nothing.
        let change = line_change(text, &[&edit(5, 21, "")]).unwrap();
        assert_eq!(change, LineChange { start_line: 2, end_line: 2, text: String::new() });
        let change = line_change(text, &[&edit(0, 1, "x"), &edit(21, 22, "y")]).unwrap();
        assert_eq!(change, LineChange { start_line: 1, end_line: 3, text: "x: 1\nagent: SWARM-AQ\ny: 2\n".into() });
        // An insertion at a line's start goes before that line.
        let change = line_change(text, &[&edit(5, 5, "c: 3\n")]).unwrap();
        assert_eq!(change, LineChange { start_line: 2, end_line: 2, text: "c: 3\nagent: SWARM-AQ\n".into() });
        assert_eq!(line_change(text, &[&edit(26, 26, "z")]), None);
    }
}
