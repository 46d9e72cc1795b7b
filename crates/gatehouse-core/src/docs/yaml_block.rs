//! A fast reader for the plain block-style YAML that generated and
//! hand-written ledgers use (`key: value` mappings, `- ` sequences, plain,
//! quoted and `|`/`>` scalars, one-line `[a, b]` lists), building the
//! [`Tree`] that [`super::yaml::parse`]'s result converts to, several times
//! faster and with values borrowed from the text. It answers
//! `None` for anything outside that subset (anchors, tags, flow mappings,
//! multi-line plain or quoted scalars, tabs, odd indentation, duplicate keys,
//! errors); the caller then uses the full parser, which also reports errors.
//! Equality with the full parser is a tested property.

use std::borrow::Cow;

mod scan;

use self::scan::{
    Line, has_unusual_characters, is_comment_or_empty, is_dash, is_plain_line, lines, plain, quoted, skip_spaces,
    spaces, split_key,
};
use super::is_word_byte;
use super::tree::{Str, Tree, TreeBuilder};
use super::yaml::{MAX_DEPTH, MAX_NODES};

/// The most keys one mapping may have here.
const MAX_KEYS: usize = 64;

/// Parses `text` (whose first line is file line `first_line`) when it lies
/// within the subset; `None` otherwise.
pub fn parse(text: &str, first_line: u32) -> Option<Tree<'_>> {
    let (unusual, ascii) = has_unusual_characters(text);
    if unusual {
        return None;
    }
    let lines = lines(text);
    let mut builder = TreeBuilder::new(text);
    // A line of block YAML holds at most one mapping entry and one sequence
    // item (only a one-line `[a, b]` list holds more): room for that many,
    // and a node for each, spares the tree's vectors their regrowth (0.14 G
    // instructions on the voting set, 4% of the evaluation).
    builder.reserve(lines.len(), lines.len());
    let mut reader = Reader {
        lines,
        ascii,
        first_line,
        next: 0,
        pending: None,
        depth: 0,
        builder,
        entries: Vec::new(),
        items: Vec::new(),
    };
    let (_, col) = reader.peek()?;
    let root = reader.node(col)?;
    reader.peek().is_none().then(|| reader.builder.finish(root))
}

struct Reader<'t> {
    builder: TreeBuilder<'t>,
    lines: Vec<Line<'t>>,
    /// Whether the whole text is ASCII: byte columns are then character columns.
    ascii: bool,
    first_line: u32,
    /// The next line to read.
    next: usize,
    /// A node that starts inside a line already begun (after `- `).
    pending: Option<(usize, usize)>,
    depth: usize,
    /// The entries (name, line, column, value) of the mappings being read,
    /// innermost last: each mapping's are moved into the tree when it ends.
    entries: Vec<(&'t str, u32, u32, u32)>,
    /// The same for block sequences' items.
    items: Vec<u32>,
}

impl<'t> Reader<'t> {
    /// The next line with content and the byte column it starts at.
    fn peek(&mut self) -> Option<(usize, usize)> {
        if self.pending.is_some() {
            return self.pending;
        }
        while let Some(line) = self.lines.get(self.next) {
            if line.content {
                return Some((self.next, line.indent));
            }
            self.next += 1;
        }
        None
    }

    fn consume(&mut self, index: usize) {
        self.pending = None;
        self.next = index + 1;
    }

    /// The line and column of byte `col` of line `index`, when another node
    /// may still be made.
    fn place(&self, index: usize, col: usize) -> Option<(u32, u32)> {
        (self.builder.len() < MAX_NODES).then(|| (self.first_line + index as u32, self.col(index, col)))
    }

    fn scalar(&mut self, value: Str, plain: bool, index: usize, col: usize) -> Option<u32> {
        let (line, col) = self.place(index, col)?;
        Some(self.builder.scalar(value, plain, line, col))
    }

    /// A quoted value: borrowed when it had nothing to unescape.
    fn text(&mut self, value: Cow<'t, str>) -> Str {
        match value {
            Cow::Borrowed(value) => self.builder.borrowed(value),
            Cow::Owned(value) => self.builder.owned(&value),
        }
    }

    /// The 1-based character column of a byte offset: the byte's own in an
    /// ASCII text. The count for other texts is a function of its own, so
    /// that this one is inlined at every node.
    #[inline]
    fn col(&self, index: usize, byte: usize) -> u32 {
        if self.ascii { byte as u32 + 1 } else { self.char_col(index, byte) }
    }

    /// [`Self::col`] in a text that is not all ASCII.
    fn char_col(&self, index: usize, byte: usize) -> u32 {
        let prefix = &self.lines[index].text[..byte];
        if prefix.is_ascii() { byte as u32 + 1 } else { prefix.chars().count() as u32 + 1 }
    }

    /// A block node whose first line starts at column `indent`.
    fn node(&mut self, indent: usize) -> Option<u32> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let (index, col) = self.peek()?;
        // Anything else than a sequence is read as a mapping, which declines
        // a first line that is not `key:`.
        let node = if is_dash(&self.lines[index].text[col..]) { self.sequence(indent) } else { self.mapping(indent) };
        self.depth -= 1;
        node
    }

    fn mapping(&mut self, indent: usize) -> Option<u32> {
        let (first, _) = self.peek()?;
        // The full parser marks a block mapping just after its first key.
        let mut mark = None;
        let start = self.entries.len();
        while let Some((index, col)) = self.peek() {
            let text = &self.lines[index].text[col..];
            if col < indent || (col == indent && is_dash(text)) {
                break;
            }
            if col != indent {
                return None;
            }
            let key_line = self.first_line + index as u32;
            if let Some((name, value)) = self.scalar_entry(index, col) {
                mark.get_or_insert(col + name.len());
                if !self.is_new_key(start, name) {
                    return None;
                }
                self.entries.push((name, key_line, self.col(index, col), value));
                continue;
            }
            let (name, rest) = split_key(text)?;
            mark.get_or_insert(col + name.len());
            if !self.is_new_key(start, name) {
                return None;
            }
            let key_col = self.col(index, col);
            self.consume(index);
            let value_col = col + (text.len() - rest.len());
            let rest_trimmed = skip_spaces(rest);
            let value = if rest_trimmed.is_empty() || rest_trimmed.starts_with('#') {
                if rest_trimmed.starts_with('#') && !rest.starts_with(' ') {
                    return None;
                }
                let (next, next_col) = self.peek()?;
                let next_text = &self.lines[next].text[next_col..];
                // A sequence at the key's own indentation is marked oddly by
                // the full parser: leave it to that parser.
                if next_col > indent && !next_text.is_empty() {
                    self.node(next_col)?
                } else {
                    return None;
                }
            } else {
                let at = value_col + (rest.len() - rest_trimmed.len());
                self.inline(index, at, indent)?
            };
            self.entries.push((name, key_line, key_col, value));
        }
        let (line, col) = self.place(first, mark?)?;
        let text = self.builder.text();
        let entries =
            self.entries.drain(start..).map(|(name, line, col, value)| (Str::within(text, name), line, col, value));
        Some(self.builder.map(entries, line, col))
    }

    /// Whether the mapping whose entries start at `start` has no key `name`
    /// yet. Ledger entries have a handful of keys; a mapping with many is
    /// left to the full parser rather than searched for duplicates.
    fn is_new_key(&self, start: usize, name: &str) -> bool {
        let entries = &self.entries[start..];
        entries.len() < MAX_KEYS && !entries.iter().any(|(k, ..)| *k == name)
    }

    /// Most ledger lines are `key: value` with a one-line plain value or a
    /// double-quoted one with nothing to unescape: read at the key's column
    /// `col` in one pass over the bytes, the value made a node. `None`
    /// (nothing read) for anything else, which the general path then reads.
    fn scalar_entry(&mut self, index: usize, col: usize) -> Option<(&'t str, u32)> {
        let line = self.lines[index].text;
        let bytes = line.as_bytes();
        let key_len = bytes[col..].iter().position(|&b| !is_word_byte(b))?;
        let colon = col + key_len;
        if key_len == 0 || bytes[col] == b'-' || bytes[colon] != b':' || bytes.get(colon + 1) != Some(&b' ') {
            return None;
        }
        let at = colon + 2;
        let (value, plain) = match *bytes.get(at)? {
            b'"' => {
                let end = at + 1 + memchr::memchr2(b'"', b'\\', &bytes[at + 1..])?;
                // Closed by the line's last byte, with nothing to unescape.
                if bytes[end] != b'"' || end + 1 != bytes.len() {
                    return None;
                }
                (&line[at + 1..][..end - at - 1], false)
            }
            first if is_plain_line(first, &bytes[at..]) => (&line[at..], true),
            _ => return None,
        };
        if self.builder.len() >= MAX_NODES {
            return None;
        }
        self.consume(index);
        let value = self.builder.borrowed(value);
        let node = self.builder.scalar(value, plain, self.first_line + index as u32, self.col(index, at));
        // Sliced from its start, then to its length (here and for the quoted
        // value): the two-ended `str` range check is a call the compiler does
        // not inline in this reader, once per entry (0.04 G instructions on
        // the voting set, 1% of the evaluation).
        Some((&line[col..][..key_len], node))
    }

    fn sequence(&mut self, indent: usize) -> Option<u32> {
        let (first, first_col) = self.peek()?;
        let start = self.items.len();
        while let Some((index, col)) = self.peek() {
            let text = &self.lines[index].text[col..];
            if col < indent || (col == indent && !is_dash(text)) {
                break;
            }
            if col > indent || text == "-" {
                return None;
            }
            let after = skip_spaces(&text[1..]);
            let item_col = col + (text.len() - after.len());
            if after.is_empty() || after.starts_with('#') || is_dash(after) {
                return None;
            }
            let item = if split_key(after).is_some() {
                self.pending = Some((index, item_col));
                self.node(item_col)?
            } else {
                self.inline(index, item_col, indent)?
            };
            self.items.push(item);
        }
        let (line, col) = self.place(first, first_col)?;
        Some(self.builder.seq(self.items.drain(start..), line, col))
    }

    /// A value that starts on line `index` at byte `col`, inside a node
    /// indented `indent`.
    fn inline(&mut self, index: usize, col: usize, indent: usize) -> Option<u32> {
        let text = &self.lines[index].text[col..];
        self.consume(index);
        let node = match text.as_bytes()[0] {
            b'|' | b'>' => return self.block_scalar(index, col, indent),
            b'[' => self.flow_sequence(index, col)?,
            b'"' | b'\'' => {
                let (value, len) = quoted(text)?;
                if !is_comment_or_empty(&text[len..]) {
                    return None;
                }
                let value = self.text(value);
                self.scalar(value, false, index, col)?
            }
            _ => {
                let value = self.builder.borrowed(plain(text, false)?);
                self.scalar(value, true, index, col)?
            }
        };
        // A deeper line after a one-line value would continue it.
        match self.peek() {
            Some((_, next_col)) if next_col > indent => None,
            _ => Some(node),
        }
    }

    fn flow_sequence(&mut self, index: usize, col: usize) -> Option<u32> {
        let line = self.lines[index].text;
        let mut at = col + 1;
        let mut items = Vec::new();
        loop {
            at += spaces(&line[at..]);
            let rest = &line[at..];
            if rest.starts_with(']') && items.is_empty() {
                at += 1;
                break;
            }
            let (value, plain_value, len) = match rest.as_bytes().first()? {
                b'"' | b'\'' => {
                    let (value, len) = quoted(rest)?;
                    (self.text(value), false, len)
                }
                _ => {
                    let len = rest.find([',', ']'])?;
                    (self.builder.borrowed(plain(&rest[..len], true)?), true, len)
                }
            };
            items.push(self.scalar(value, plain_value, index, at)?);
            at += len;
            at += spaces(&line[at..]);
            match line.as_bytes().get(at)? {
                b',' => at += 1,
                b']' => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
        if !is_comment_or_empty(&line[at..]) {
            return None;
        }
        let (line, col) = self.place(index, col)?;
        Some(self.builder.seq(items, line, col))
    }

    /// `|` and `>` scalars with clip or strip chomping; `>` only when no line
    /// is blank or indented further (nothing to fold but line breaks).
    fn block_scalar(&mut self, index: usize, col: usize, indent: usize) -> Option<u32> {
        let header = &self.lines[index].text[col..];
        let (style, rest) = header.split_at(1);
        let (strip, rest) = match rest.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        if !is_comment_or_empty(rest) {
            return None;
        }
        let mut body: Vec<&str> = Vec::new();
        let mut content_indent = None;
        let mut end = index + 1;
        // The full parser marks a block scalar at its first content line.
        if self.lines.get(end).is_none_or(|l| l.text.trim().is_empty()) {
            return None;
        }
        while end < self.lines.len() {
            let Line { text: line, indent: spaces, .. } = self.lines[end];
            if spaces == line.len() {
                // A blank line; more spaces than the content indent would be content.
                if content_indent.is_none_or(|m| spaces > m) && spaces > 0 {
                    return None;
                }
                body.push("");
            } else {
                let m = *content_indent.get_or_insert(spaces);
                if spaces <= indent || spaces < m {
                    break;
                }
                body.push(&line[m..]);
            }
            end += 1;
        }
        let m = content_indent?;
        if m <= indent {
            return None;
        }
        while body.last() == Some(&"") {
            body.pop();
        }
        let value = if style == ">" {
            if body.iter().any(|l| l.is_empty() || l.starts_with(' ')) {
                return None;
            }
            body.join(" ")
        } else {
            body.join("\n")
        };
        let value = if strip || value.is_empty() { value } else { value + "\n" };
        let value = self.builder.owned(&value);
        self.next = end;
        self.pending = None;
        self.scalar(value, false, index + 1, m)
    }
}

#[cfg(test)]
mod tests {
    use super::super::yaml;
    use super::*;

    /// The fast reader either declines or agrees with the full parser.
    fn agrees(text: &str) -> bool {
        match parse(text, 7) {
            Some(fast) => {
                assert_eq!(Ok(fast), yaml::parse(text, 7), "{text}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn reads_ledgers_exactly_as_the_full_parser() {
        let text = "section: s\nactive_argument: A\narguments:\n  - id: A\n    proposed_at: 2026-05-06\n    evidence_pr_refs: [a/b#1, \"c/d#2\"]\n    empty: []\n    rationale: |\n      two lines\n\n      with a gap\n\n    folded: >-\n      one\n      two\n    example:\n      artefact: tests/e2e/login.spec.ts # a comment\n    vote_ledger:\n      - voter: lin/opus-4.7\n        vote: +1\n        weight: 1.4\n        ts: 2026-05-06T09:42:11Z\n        rationale: \"quoted: with \\\"escapes\\\" and ü\"\n        note: 'it''s'\n\n      # a comment line\n      - voter: b/c\n        vote: -1\nlist:\n  - x\n  - 'y'\n";
        assert!(agrees(text));
        assert!(agrees("a: 1\nb: 2\nc: x #y\nd: \"q\"\ne:\n  - f\n"));
    }

    #[test]
    fn declines_what_it_does_not_read() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !tag 1\n",
            "a: {b: 1}\n",
            "a: multi\n  line\n",
            "a: \"open\n  quote\"\n",
            "a: \"open\nb: x\"\n",
            "a: x\n  b: y\n",
            "a:\tb\n",
            "a: 1\na: 2\n",
            "a:\n",
            "a: |+\n  keep\n",
            "- - x\n",
            "list:\n- x\n",
            "a: |\n\n  late\n",
            "scalar\n",
            "ü x\n",
            "a: b: c\n",
            "a: [x, [y]]\n",
            "  a: 1\n b: 2\n",
            "",
        ] {
            assert!(!agrees(text), "{text:?}");
        }
    }
}
