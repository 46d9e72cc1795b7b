//! Spans that cover what is at fault as the author wrote it: a YAML or JSON
//! value with its quotes or brackets, a key, a field of a line. Rules know
//! where a value starts (1-based line, column in characters); these read
//! the text to find where it ends on that line.

use super::fixes::{line_range, offset};
use crate::docs::tree::{Key, Node};
use crate::model::Span;

/// The value written at `line`, `col` of `text`: a quoted string to its
/// closing quote, a `[…]` or `{…}` to its closing bracket (or the end of the
/// line when it closes on a later one), anything else to the end of the
/// line, a ` #` comment or, inside a `[…]`/`{…}`, the `,`, `]` or `}` that
/// ends it. A value with nothing written (an empty YAML value) is one
/// character.
pub fn value_span(text: &str, line: u32, col: u32) -> Span {
    Span::at(line, col, value_width(text, line, col, false).unwrap_or(1))
}

/// The JSON value written at `line`, `col` of `text`, as [`value_span`]
/// reads it, a number, `true`, `false` or `null` ending at the `,`, `]` or
/// `}` after it.
pub fn json_span(text: &str, line: u32, col: u32) -> Span {
    Span::at(line, col, value_width(text, line, col, true).unwrap_or(1))
}

/// The span of a YAML node's value in the file it was read from; for a
/// block mapping (an argument, a vote), its first entry, the line that
/// starts it.
pub fn node_span(text: &str, node: Node) -> Span {
    let flow = offset(text, node.line(), node.col()).is_some_and(|at| text[at..].starts_with(['[', '{']));
    match node.as_map().and_then(|map| map.iter().next()) {
        Some((key, _)) if !flow => value_span(text, key.line, key.col),
        _ => value_span(text, node.line(), node.col()),
    }
}

/// The span of a YAML mapping key's name.
pub fn key_span(key: Key) -> Span {
    Span::at(key.line, key.col, key.name.chars().count() as u32)
}

/// The span of a whole line's text, from its first to its last character
/// that is not a space.
pub fn line_span(text: &str, line: u32) -> Span {
    let Some(range) = line_range(text, line) else { return Span::line(line) };
    let content = &text[range];
    let indent = content.chars().take_while(|c| c.is_whitespace()).count() as u32;
    match content.trim().chars().count() as u32 {
        0 => Span::line(line),
        width => Span::at(line, indent + 1, width),
    }
}

fn value_width(text: &str, line: u32, col: u32, json: bool) -> Option<u32> {
    let range = line_range(text, line)?;
    let start = offset(text, line, col)?;
    let rest = &text[start..range.end];
    let nested = json || in_brackets(&text[range.start..start]);
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
    fn json_values_end_at_their_comma() {
        let text = "{\n  \"tier\": 3,\n  \"stakes\": \"enormous\",\n  \"evidence\": [],\n  \"ok\": true\n}\n";
        let json = |line, col| {
            let span = json_span(text, line, col);
            let source = text.lines().nth(line as usize - 1).unwrap();
            source.chars().skip(span.col as usize - 1).take((span.end_col - span.col) as usize).collect::<String>()
        };
        assert_eq!(covered(text, 2, 11), "3,");
        assert_eq!(json(2, 11), "3");
        assert_eq!(json(3, 13), "\"enormous\"");
        assert_eq!(json(4, 15), "[]");
        assert_eq!(json(5, 9), "true");
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
