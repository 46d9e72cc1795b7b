//! Finding the bytes a fix rewrites. Rules know where a problem is as lines
//! and columns (1-based, columns in characters); an edit needs byte offsets
//! in the head text. A fix built from a wrong guess here is not offered: the
//! engine verifies every fix before it offers it.

use std::ops::Range;

/// The byte offset of 1-based `line`, 1-based character `col` in `text`.
pub(super) fn offset(text: &str, line: u32, col: u32) -> Option<usize> {
    let range = line_range(text, line)?;
    let content = &text[range.clone()];
    let col = col.max(1) as usize - 1;
    let within = content.char_indices().map(|(at, _)| at).chain([content.len()]).nth(col)?;
    Some(range.start + within)
}

/// The bytes of 1-based `line` without its line break.
pub(super) fn line_range(text: &str, line: u32) -> Option<Range<usize>> {
    let mut start = 0;
    for _ in 1..line.max(1) {
        start += text.get(start..)?.find('\n')? + 1;
    }
    if start > text.len() || (start == text.len() && line > 1 && !text.is_empty()) {
        return None;
    }
    let end = text[start..].find('\n').map_or(text.len(), |at| start + at);
    let end = if text[start..end].ends_with('\r') { end - 1 } else { end };
    Some(start..end)
}

/// The bytes of 1-based `line` with its line break: what deleting the line
/// removes.
pub(super) fn whole_line(text: &str, line: u32) -> Option<Range<usize>> {
    let range = line_range(text, line)?;
    let end = text[range.end..].find('\n').map_or(text.len(), |at| range.end + at + 1);
    Some(range.start..end)
}

/// The bytes of the YAML scalar written at `line`, `col`, quotes included:
/// a quoted scalar to its closing quote, a plain one to the end of the
/// line, a comment, or (`in_flow`) the `,`, `]` or `}` that ends it.
pub(super) fn scalar_range(text: &str, line: u32, col: u32, in_flow: bool) -> Option<Range<usize>> {
    let start = offset(text, line, col)?;
    let end_of_line = line_range(text, line)?.end;
    let rest = &text[start..end_of_line];
    let len = match rest.chars().next()? {
        '"' => {
            let mut escaped = false;
            let close = rest[1..].char_indices().find(|&(_, c)| {
                let closes = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                closes
            })?;
            close.0 + 2
        }
        '\'' => {
            let bytes = rest.as_bytes();
            let mut at = 1;
            loop {
                match bytes.get(at)? {
                    b'\'' if bytes.get(at + 1) == Some(&b'\'') => at += 2,
                    b'\'' => break at + 1,
                    _ => at += 1,
                }
            }
        }
        _ => {
            let comment = rest.find(" #").unwrap_or(rest.len());
            let flow_end = if in_flow { rest.find([',', ']', '}']).unwrap_or(rest.len()) } else { rest.len() };
            rest[..comment.min(flow_end)].trim_end().len()
        }
    };
    Some(start..start + len)
}

/// Whether the scalar at `range` sits in a flow sequence (`[a, b]`): the
/// nearest of `[`, `,` and the line's start before it is not the start.
pub(super) fn in_flow(text: &str, line: u32, col: u32) -> bool {
    let (Some(at), Some(range)) = (offset(text, line, col), line_range(text, line)) else { return false };
    text[range.start..at].trim_end().ends_with(['[', ','])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_become_byte_offsets() {
        let text = "a: 1\r\nbé: \"x, y\" # c\nc: [p, 'q''r', s]\n";
        assert_eq!(line_range(text, 1), Some(0..4));
        assert_eq!(whole_line(text, 1), Some(0..6));
        assert_eq!(offset(text, 2, 5), Some(11));
        assert_eq!(scalar_range(text, 2, 5, false).map(|r| &text[r]), Some("\"x, y\""));
        assert_eq!(scalar_range(text, 3, 5, true).map(|r| &text[r]), Some("p"));
        assert_eq!(scalar_range(text, 3, 8, true).map(|r| &text[r]), Some("'q''r'"));
        assert!(in_flow(text, 3, 8) && !in_flow(text, 2, 5));
        assert_eq!(line_range(text, 4), None);
        assert_eq!(line_range("", 1), Some(0..0));
    }
}
