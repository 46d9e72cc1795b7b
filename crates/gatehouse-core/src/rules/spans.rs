//! Spans that cover what is at fault as the author wrote it: a YAML or JSON
//! value with its quotes or brackets, a key, a field of a line. Rules know
//! where a value starts; these read the text to find where it ends on that
//! line. A value read from the text itself is found by its address in it,
//! so a span costs the length of its line, not of the text before it.

use super::fixes::{line_range, offset};
use crate::docs::tree::{Key, Node};
use crate::model::Span;

/// The value written at `line`, `col` (1-based, columns in characters) of
/// `text`: a quoted string to its closing quote, a `[…]` or `{…}` to its
/// closing bracket (or the end of the line when it closes on a later one),
/// anything else to the end of the line, a ` #` comment or, inside a
/// `[…]`/`{…}`, the `,`, `]` or `}` that ends it. A value with nothing
/// written (an empty YAML value) is one character.
pub(crate) fn value_span(text: &str, line: u32, col: u32) -> Span {
    Span::at(line, col, offset(text, line, col).and_then(|at| width_at(text, at)).unwrap_or(1))
}

/// The span of a YAML node's value in `text`, the file it was read from;
/// for a block mapping (an argument, a vote), its first entry, the line
/// that starts it.
pub(crate) fn node_span(text: &str, node: Node) -> Span {
    if let Some((key, _)) = node.as_map().and_then(|map| map.iter().next()) {
        let at = within(text, key.name);
        let flow = at.is_some_and(|at| text[..at].trim_end().ends_with('{'));
        if !flow {
            return entry_span(text, key);
        }
    }
    let written = node.scalar_text().and_then(|value| within(text, value)).and_then(|at| match node.is_plain() {
        true => Some(at),
        // The text holds a quoted value's inside: its quote is before it.
        false => at.checked_sub(1).filter(|&quote| matches!(text.as_bytes()[quote], b'"' | b'\'')),
    });
    match written {
        Some(at) => Span::at(node.line(), node.col(), width_at(text, at).unwrap_or(1)),
        None => value_span(text, node.line(), node.col()),
    }
}

/// The span of a YAML mapping entry from its key: `key: value` as written.
pub(crate) fn entry_span(text: &str, key: Key) -> Span {
    match within(text, key.name) {
        Some(at) => Span::at(key.line, key.col, width_at(text, at).unwrap_or(1)),
        None => value_span(text, key.line, key.col),
    }
}

/// The span of a YAML mapping key's name.
pub(crate) fn key_span(key: Key) -> Span {
    Span::at(key.line, key.col, key.name.chars().count() as u32)
}

/// The span of `bytes`, the byte range of a value in `text`, which starts
/// at `line`, `col`: the value, or its first line when it spans several.
pub(crate) fn range_span(text: &str, bytes: std::ops::Range<usize>, line: u32, col: u32) -> Span {
    let written = text.get(bytes).unwrap_or_default();
    let first = written.split('\n').next().unwrap_or_default().trim_end();
    Span::at(line, col, first.chars().count() as u32)
}

/// The span of a whole line's text, from its first to its last character
/// that is not a space.
pub(crate) fn line_span(text: &str, line: u32) -> Span {
    let Some(range) = line_range(text, line) else { return Span::line(line) };
    let content = &text[range];
    let indent = content.chars().take_while(|c| c.is_whitespace()).count() as u32;
    match content.trim().chars().count() as u32 {
        0 => Span::line(line),
        width => Span::at(line, indent + 1, width),
    }
}

/// Where `part`, a slice of `text`, starts in it; `None` for a string held
/// elsewhere (an unescaped copy).
fn within(text: &str, part: &str) -> Option<usize> {
    let (start, at) = (text.as_ptr() as usize, part.as_ptr() as usize);
    (at >= start && at + part.len() <= start + text.len()).then(|| at - start)
}

/// How many characters the value starting at byte `at` of `text` is written
/// in (see [`value_span`]); `None` when nothing is written there.
fn width_at(text: &str, at: usize) -> Option<u32> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let rest = text[at..line_end].trim_end_matches('\r');
    let nested = in_brackets(&text[line_start..at]);
    let len = match rest.chars().next()? {
        '"' => closing_double_quote(rest).unwrap_or(rest.trim_end().len()),
        '\'' => closing_single_quote(rest).unwrap_or(rest.trim_end().len()),
        '[' | '{' => closing_bracket(rest).unwrap_or(rest.trim_end().len()),
        _ => {
            let comment = rest.find(" #").unwrap_or(rest.len());
            let end = if nested { rest.find([',', ']', '}']).unwrap_or(rest.len()) } else { rest.len() };
            rest[..comment.min(end)].trim_end().len()
        }
    };
    let width = rest[..len].chars().count() as u32;
    (width > 0).then_some(width)
}

/// Whether `prefix` (a line up to a value) leaves a `[` or `{` open.
fn in_brackets(prefix: &str) -> bool {
    let mut depth = 0i32;
    let mut quote = None;
    let mut escaped = false;
    for c in prefix.chars() {
        match quote {
            Some(q) => {
                if c == q && !escaped {
                    quote = None;
                }
                escaped = q == '"' && c == '\\' && !escaped;
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '{' => depth += 1,
                ']' | '}' => depth -= 1,
                _ => {}
            },
        }
    }
    depth > 0
}

/// The length in bytes of the `"…"` string `rest` starts with.
fn closing_double_quote(rest: &str) -> Option<usize> {
    let mut escaped = false;
    let (at, _) = rest.char_indices().skip(1).find(|&(_, c)| {
        let closes = c == '"' && !escaped;
        escaped = c == '\\' && !escaped;
        closes
    })?;
    Some(at + 1)
}

/// The length in bytes of the `'…'` string `rest` starts with (`''` is a
/// quote inside it).
fn closing_single_quote(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut at = 1;
    loop {
        match bytes.get(at)? {
            b'\'' if bytes.get(at + 1) == Some(&b'\'') => at += 2,
            b'\'' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

/// The length in bytes of the `[…]` or `{…}` `rest` starts with, when it
/// closes on this line.
fn closing_bracket(rest: &str) -> Option<usize> {
    let mut depth = 0u32;
    let mut at = 0;
    while at < rest.len() {
        let tail = &rest[at..];
        match tail.as_bytes()[0] {
            b'"' => at += closing_double_quote(tail)?,
            b'\'' => at += closing_single_quote(tail)?,
            b'[' | b'{' => {
                depth += 1;
                at += 1;
            }
            b']' | b'}' => {
                depth -= 1;
                at += 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => at += tail.chars().next().map_or(1, char::len_utf8),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(text: &str, line: u32, col: u32) -> String {
        let span = value_span(text, line, col);
        let source = text.lines().nth(line as usize - 1).unwrap();
        source.chars().skip(span.col as usize - 1).take((span.end_col - span.col) as usize).collect()
    }

    #[test]
    fn a_value_is_covered_as_written() {
        let text = "date: 2026-05-32 # typo\nrefs: [a#1, 'b''c', \"d, e\"]\nkey:\n\"tier\": 3,\nx: {a: [1, 2]} \n";
        assert_eq!(covered(text, 1, 7), "2026-05-32");
        assert_eq!(covered(text, 2, 7), "[a#1, 'b''c', \"d, e\"]");
        assert_eq!(covered(text, 2, 8), "a#1");
        assert_eq!(covered(text, 2, 13), "'b''c'");
        assert_eq!(covered(text, 2, 21), "\"d, e\"");
        assert_eq!(covered(text, 3, 5), "");
        assert_eq!(value_span(text, 3, 5).end_col, 6);
        assert_eq!(covered(text, 5, 4), "{a: [1, 2]}");
        assert_eq!(covered(text, 5, 9), "1");
    }

    #[test]
    fn a_value_given_as_a_byte_range_is_covered_to_its_line_end() {
        let text = "{\n  \"tier\": 3,\n  \"evidence\": [\n    \"a\"\n  ]\n}\n";
        let tier = text.find('3').unwrap();
        assert_eq!(range_span(text, tier..tier + 1, 2, 11), Span::at(2, 11, 1));
        let list = text.find('[').unwrap();
        assert_eq!(range_span(text, list..text.find(']').unwrap() + 1, 3, 15), Span::at(3, 15, 1));
    }

    #[test]
    fn a_block_mapping_is_covered_by_its_first_entry() {
        let text = "arguments:\n  - id: B\n    proposer: x\nflow: {a: 1}\n";
        let tree = crate::docs::yaml::parse(text, 1).unwrap();
        let argument = tree.root().get("arguments").unwrap().items().get(0).unwrap();
        assert_eq!(node_span(text, argument), Span::at(2, 5, 5));
        assert_eq!(node_span(text, tree.root().get("flow").unwrap()), Span::at(4, 7, 6));
        assert_eq!(line_span(text, 3), Span::at(3, 5, 11));
        assert_eq!(line_span("a\n   \n", 2), Span::line(2));
    }

    #[test]
    fn columns_count_characters() {
        let text = "proposition: 冒烟测试。每个功能。\nvoter: lin/opus-4.7\n";
        assert_eq!(value_span(text, 1, 14), Span::at(1, 14, 10));
        assert_eq!(value_span(text, 2, 8), Span::at(2, 8, 12));
        assert_eq!(value_span(text, 9, 1), Span::at(9, 1, 1));
    }
}
