//! What a YAML parse error means in the author's terms. yaml-rust2 reports
//! where its scanner gave up and why in its own terms ("illegal placement of
//! ':' indicator" on the line after an unclosed `[`); this finds the mistake
//! the author made (a tab in the indentation, a bracket or
//! brace never closed) from the text, and gives each kind of error its own
//! help. Columns count characters, a tab as one, as editors number them.

/// A diagnosed error and its position in the file.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Diagnosis {
    pub line: u32,
    pub col: u32,
    pub width: u32,
    pub message: String,
    pub help: String,
}

/// Explains the parser's error `info` at file line `line`, column `col`, in
/// `text`, which starts on file line `first_line`.
pub(super) fn diagnose(text: &str, first_line: u32, line: u32, col: u32, info: &str) -> Diagnosis {
    if let Some(tab) = misplaced_tab(text, first_line, line) {
        return tab;
    }
    if let Some(open) = unclosed_flow(text, first_line).filter(|open| open.line <= line) {
        return open;
    }
    Diagnosis { line, col, width: 1, message: info.to_string(), help: help(info).to_string() }
}

/// A tab YAML refuses: in a line's indentation, on the failing line or the
/// next one (the scanner often stops on the line before an indented tab).
fn misplaced_tab(text: &str, first_line: u32, line: u32) -> Option<Diagnosis> {
    let from = line.saturating_sub(first_line) as usize;
    for (index, source) in text.lines().enumerate().skip(from).take(2) {
        let number = first_line + index as u32;
        let indent: String = source.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        if let Some(at) = indent.find('\t').filter(|_| indent.len() < source.len()) {
            return Some(Diagnosis {
                line: number,
                col: at as u32 + 1,
                width: 1,
                message: format!("line {number} is indented with a tab; YAML indents with spaces only"),
                help: format!("replace the tab at the start of line {number} with spaces"),
            });
        }
    }
    None
}

/// An opened flow bracket or brace.
#[derive(Clone, Copy)]
struct Opener {
    bracket: char,
    line: u32,
    col: u32,
    indent: usize,
}

/// The first `[` or `{` left open: still open where a line at or left of
/// its line's indentation starts, or at the end of the text. Quoted text and
/// comments are skipped; a bracket inside a plain value (`a[1]`) opens
/// nothing.
fn unclosed_flow(text: &str, first_line: u32) -> Option<Diagnosis> {
    let mut open: Vec<Opener> = Vec::new();
    for (index, source) in text.lines().enumerate() {
        let number = first_line + index as u32;
        let indent = source.len() - source.trim_start_matches(' ').len();
        let content = source.trim();
        if let Some(first) = open.first().filter(|_| !content.is_empty() && !content.starts_with('#'))
            && indent <= first.indent
        {
            return Some(unclosed(*open.last().unwrap_or(first)));
        }
        let mut quote: Option<char> = None;
        let mut escaped = false;
        let mut previous = ' ';
        for (col, c) in source.chars().enumerate() {
            match quote {
                Some('"') if escaped => escaped = false,
                Some('"') if c == '\\' => escaped = true,
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if previous == ' ' || previous == '\t' => break,
                    '"' | '\'' if starts_node(previous, !open.is_empty()) => quote = Some(c),
                    '[' | '{' if starts_node(previous, !open.is_empty()) => {
                        open.push(Opener { bracket: c, line: number, col: col as u32 + 1, indent });
                    }
                    ']' | '}' if !open.is_empty() => {
                        open.pop();
                    }
                    _ => {}
                },
            }
            if !c.is_whitespace() || quote.is_some() {
                previous = c;
            }
        }
    }
    open.last().map(|o| unclosed(*o))
}

/// Whether a node may start after `previous` (the last character that is
/// not a space): at a line's start, after `:` or `-`, and in a flow
/// collection after `,` or an opener.
fn starts_node(previous: char, in_flow: bool) -> bool {
    matches!(previous, ' ' | ':' | '-' | '?') || (in_flow && matches!(previous, ',' | '[' | '{'))
}

fn unclosed(open: Opener) -> Diagnosis {
    let close = if open.bracket == '[' { ']' } else { '}' };
    let what = if open.bracket == '[' { "list" } else { "mapping" };
    Diagnosis {
        line: open.line,
        col: open.col,
        width: 1,
        message: format!("the `{}` opened on line {} is never closed", open.bracket, open.line),
        help: format!(
            "close the {what} with `{close}` after its last item, or quote the value if the `{}` is text",
            open.bracket
        ),
    }
}

/// Help for a kind of error, from its message.
pub(super) fn help(info: &str) -> &'static str {
    if info.contains("mapping values are not allowed") {
        "quote the value: it holds `: `, which YAML reads as the start of another key"
    } else if info.contains("did not find expected key") || info.contains("expected '-' indicator") {
        "indent this line as far as the other keys (or `- ` items) it belongs with"
    } else if info.contains("quoted scalar, found unexpected end") {
        "close the quote this value opens, with the same quote character"
    } else if info.contains("unknown escape") || info.contains("hexadecimal") || info.contains("Unicode") {
        "in double quotes write a backslash as `\\\\`, or use single quotes, which need no escapes"
    } else if info.contains("unexpected character") || info.contains("cannot start") || info.contains("node content") {
        "quote the value: YAML reserves the character it starts with"
    } else if info.contains("deeper than") {
        "flatten the structure: no gatehouse document nests this deep"
    } else if info.contains("anchors") || info.contains("aliases") {
        "write the value out in full"
    } else if info.contains("more than one YAML document") {
        "remove the `---` line inside the YAML"
    } else {
        "fix the YAML at this line; quote a value that holds `: ` or starts with a character YAML reserves"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(d: &Diagnosis) -> (u32, u32) {
        (d.line, d.col)
    }

    #[test]
    fn tabs_are_found_where_the_author_typed_them() {
        let indented = diagnose("agent: X\n\trepos: [a]\n", 1, 1, 8, "while scanning a plain scalar, found a tab");
        assert_eq!(at(&indented), (2, 1));
        assert!(indented.message.contains("line 2 is indented with a tab"), "{}", indented.message);
        let in_value =
            diagnose("a: \"x\ty\n", 1, 1, 4, "while scanning a quoted scalar, found unexpected end of stream");
        assert_eq!(at(&in_value), (1, 4));
        assert!(in_value.help.contains("close the quote"));
    }

    #[test]
    fn an_unclosed_bracket_is_reported_where_it_opens() {
        let text = "agent: X\nrepos: [a, b\nadrs: [ADR-1]\n";
        let d = diagnose(text, 1, 3, 5, "illegal placement of ':' indicator");
        assert_eq!((at(&d), d.message.as_str()), ((2, 8), "the `[` opened on line 2 is never closed"));
        let brace = diagnose("a: {b: c\n", 1, 2, 1, "did not find expected ',' or '}'");
        assert_eq!((at(&brace), brace.help.contains("`}`")), ((1, 4), true));
        let continued = "a: [b,\n  c]\nd: e[1]\ne: '['\nf: x # [\ng: [h\n";
        assert_eq!(at(&diagnose(continued, 1, 7, 1, "eof")), (6, 4));
    }

    #[test]
    fn other_errors_keep_the_parsers_words_with_their_own_help() {
        let d = diagnose("a: b: c\n", 1, 1, 5, "mapping values are not allowed in this context");
        assert_eq!(at(&d), (1, 5));
        assert!(d.help.contains("quote the value"));
        let d = diagnose("a: `x`\n", 1, 1, 4, "unexpected character: `\\``");
        assert!(d.help.contains("reserves"));
    }
}
