//! What one line's bytes say, for the fast reader: lines split and
//! measured, keys split off, plain and quoted scalars recognised.

use std::borrow::Cow;

use crate::docs::is_word_byte;

/// A line with its indentation measured once (the reader looks at most
/// lines several times).
#[derive(Clone, Copy)]
pub(super) struct Line<'t> {
    pub(super) text: &'t str,
    pub(super) indent: usize,
    /// Neither blank nor a comment.
    pub(super) content: bool,
}

impl<'t> Line<'t> {
    fn new(text: &'t str) -> Line<'t> {
        let indent = spaces(text);
        let content = text.as_bytes().get(indent).is_some_and(|&b| b != b'#');
        Line { text, indent, content }
    }
}

/// The lines of `text` as `split('\n')` gives them, measured. memchr finds
/// the line ends (`split` searches with the standard library's slower one:
/// some 0.3 G more instructions on the voting set, 8% of the evaluation),
/// and counting them first sizes the vector once (growing it instead cost
/// 0.09 G more).
pub(super) fn lines(text: &str) -> Vec<Line<'_>> {
    let ends = memchr::memchr_iter(b'\n', text.as_bytes());
    let mut out = Vec::with_capacity(ends.clone().count() + 1);
    let mut start = 0;
    for end in ends.chain([text.len()]) {
        out.push(Line::new(&text[start..end]));
        start = end + 1;
    }
    out
}

/// Tabs, carriage returns, control characters, NEL, line and paragraph
/// separators and byte-order marks: YAML gives them meanings this reader
/// leaves to the full parser. Also says whether the text is all ASCII, found in the same pass.
pub(super) fn has_unusual_characters(text: &str) -> (bool, bool) {
    let bytes = text.as_bytes();
    // Most texts are printable ASCII and lines: a fold without a branch per
    // byte, which the compiler vectorises, clears them. Looking at each byte
    // with `is_unusual` instead costs 1.7 G more instructions on the voting
    // set, a third of the evaluation.
    let printable = bytes.iter().fold(true, |ok, &b| ok & ((0x20..0x7f).contains(&b) | (b == b'\n')));
    if printable {
        return (false, true);
    }
    ((0..bytes.len()).any(|at| is_unusual(bytes, at)), text.is_ascii())
}

fn is_unusual(bytes: &[u8], at: usize) -> bool {
    match bytes[at] {
        b'\n' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => bytes.get(at + 1).is_some_and(|n| (0x80..=0x9f).contains(n)),
        0xe2 => bytes.get(at + 1) == Some(&0x80) && bytes.get(at + 2).is_some_and(|n| matches!(n, 0xa8 | 0xa9)),
        0xef => bytes.get(at + 1) == Some(&0xbb) && bytes.get(at + 2) == Some(&0xbf),
        _ => false,
    }
}

/// How many spaces `text` starts with.
pub(super) fn spaces(text: &str) -> usize {
    text.bytes().take_while(|&b| b == b' ').count()
}

/// `text` after its leading spaces.
pub(super) fn skip_spaces(text: &str) -> &str {
    &text[spaces(text)..]
}

pub(super) fn is_dash(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// `key: rest` or `key:` with a plain key of word characters.
pub(super) fn split_key(text: &str) -> Option<(&str, &str)> {
    // The key's characters cannot be `:`, so the first other byte must be
    // the colon.
    let bytes = text.as_bytes();
    let colon = bytes.iter().position(|&b| !is_word_byte(b))?;
    if bytes[colon] != b':' || colon == 0 || bytes[0] == b'-' {
        return None;
    }
    let (key, rest) = (&text[..colon], &text[colon + 1..]);
    (rest.is_empty() || rest.starts_with(' ')).then_some((key, rest))
}

pub(super) fn is_comment_or_empty(rest: &str) -> bool {
    let trimmed = skip_spaces(rest);
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// A one-line plain scalar, its trailing comment removed; `None` when YAML
/// would read it otherwise (indicators, `: `, a flow character in a list).
pub(super) fn plain(text: &str, in_flow: bool) -> Option<&str> {
    // One pass: a `: ` (or a final `:`) makes it something else than a plain
    // scalar, a ` #` starts a comment, and flow lists take no `{}[]:`.
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    for (at, &b) in bytes.iter().enumerate() {
        match b {
            b'#' if at > 0 && bytes[at - 1] == b' ' => {
                if in_flow {
                    return None;
                }
                end = at;
                break;
            }
            b':' if in_flow || bytes.get(at + 1).is_none_or(|n| *n == b' ') => return None,
            b'{' | b'}' | b'[' | b']' if in_flow => return None,
            _ => {}
        }
    }
    let value = &text[..bytes[..end].iter().rposition(|b| *b != b' ').map_or(0, |at| at + 1)];
    let first = value.bytes().next()?;
    let indicator = matches!(
        first,
        b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'{' | b'}' | b'[' | b']' | b',' | b'#' | b'|' | b'>' | b'"' | b'\''
    ) || (matches!(first, b'-' | b'?' | b':') && value.len() == 1)
        || value.starts_with("- ")
        || value.starts_with("? ")
        || value.starts_with(": ");
    (!indicator).then_some(value)
}

/// Whether `value` (the rest of a line, starting with byte `first`) is a
/// plain scalar just as written: no indicator first, no `: ` or final `:`,
/// no comment, no trailing space.
pub(super) fn is_plain_line(first: u8, value: &[u8]) -> bool {
    let starts_plain = first.is_ascii_alphanumeric()
        || matches!(first, b'+' | b'.' | b'/' | b'_' | b'(' | b'$' | b'~' | b'<' | b'=' | b'^')
        || (first == b'-' && value.get(1).is_some_and(|&b| b != b' '));
    if !starts_plain || value.last() == Some(&b' ') {
        return false;
    }
    // `: ` and ` #` both hold a space, and most values have none: the
    // spaces are found (a timestamp's colons need no look), then the
    // bytes beside each. The value starts with no space.
    let breaks = |at: usize| value[at - 1] == b':' || value.get(at + 1) == Some(&b'#');
    value.last() != Some(&b':') && !memchr::memchr_iter(b' ', value).any(breaks)
}

/// A quoted scalar that closes on its line: its value and its length in bytes.
pub(super) fn quoted(text: &str) -> Option<(Cow<'_, str>, usize)> {
    let quote = text.chars().next()?;
    // Most quoted values have no escapes: copy them whole.
    if quote == '"'
        && let Some(end) = memchr::memchr2(b'"', b'\\', &text.as_bytes()[1..])
        && text.as_bytes()[end + 1] == b'"'
    {
        return Some((Cow::Borrowed(&text[1..end + 1]), end + 2));
    }
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' if quote == '\'' => {
                if text[at + 1..].starts_with('\'') {
                    chars.next();
                    value.push('\'');
                } else {
                    return Some((Cow::Owned(value), at + 1));
                }
            }
            '"' if quote == '"' => return Some((Cow::Owned(value), at + 1)),
            '\\' if quote == '"' => {
                let (_, escaped) = chars.next()?;
                value.push(match escaped {
                    '\\' => '\\',
                    '"' => '"',
                    '/' => '/',
                    'n' => '\n',
                    't' => '\t',
                    _ => return None,
                });
            }
            c => value.push(c),
        }
    }
    None
}
