//! Perturbations of Markdown text, each a change its syntax allows at a
//! place drawn at random. Whether the result is the same document is not
//! theirs to say: the HTML oracle decides, so a perturbation may well make
//! a different one (an escape inside a code span, a wrap before a `#`).

use super::Choices;
use super::doc::{Doc, Line, Zone};

fn md(line: &Line) -> bool {
    line.zone == Zone::Md
}

fn prose(line: &Line) -> bool {
    md(line) && !line.text.trim().is_empty()
}

/// The byte offsets of the characters of `text` that `keep` accepts.
fn chars_where(text: &str, keep: impl Fn(char) -> bool) -> Vec<usize> {
    text.char_indices().filter(|(_, c)| keep(*c)).map(|(at, _)| at).collect()
}

/// One line of `doc` that `keep` accepts, drawn.
fn line_where(doc: &Doc, choices: &mut Choices, keep: impl Fn(&Line) -> bool) -> Option<usize> {
    let at = doc.indices(keep);
    choices.pick(&at).copied()
}

/// A backslash before an ASCII punctuation character.
pub fn escape(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let i = line_where(doc, choices, |l| prose(l) && l.text.contains(|c: char| c.is_ascii_punctuation()))?;
    let text = &mut doc.lines[i].text;
    let at = *choices.pick(&chars_where(text, |c| c.is_ascii_punctuation()))?;
    text.insert(at, '\\');
    Some(())
}

/// A character written as a decimal, hexadecimal or named entity.
pub fn entity(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let i = line_where(doc, choices, prose)?;
    let text = &mut doc.lines[i].text;
    let at = *choices.pick(&chars_where(text, |c| !c.is_whitespace()))?;
    let c = text[at..].chars().next()?;
    let named = match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' => Some("&quot;"),
        '\u{a0}' => Some("&nbsp;"),
        '\u{2014}' => Some("&mdash;"),
        '\u{2013}' => Some("&ndash;"),
        '\u{e9}' => Some("&eacute;"),
        _ => None,
    };
    let spelled = match (choices.draw() % 3, named) {
        (0, Some(name)) => name.to_string(),
        (1, _) => format!("&#x{:X};", c as u32),
        _ => format!("&#{};", c as u32),
    };
    text.replace_range(at..at + c.len_utf8(), &spelled);
    Some(())
}

/// `\r\n` or a lone `\r` for every line ending (CommonMark §2.1, YAML §5.4).
pub fn line_endings(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let new = if choices.draw().is_multiple_of(2) { "\r\n" } else { "\r" };
    (doc.nl != new).then(|| doc.nl = new.to_string())
}

/// A hard break (two spaces or a backslash) at the end of a line whose
/// paragraph goes on, or one trailing space, which is none.
pub fn hard_break(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let at = doc.indices(prose);
    let continued: Vec<usize> = at.iter().copied().filter(|&i| at.contains(&(i + 1))).collect();
    let i = *choices.pick(&continued)?;
    let end = ["  ", "\\", " "][choices.draw() as usize % 3];
    doc.lines[i].text.push_str(end);
    Some(())
}

/// A line split in two at a space, the rest indented as the line is, or
/// as its content is (after a list marker or `>`).
pub fn wrap(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let i = line_where(doc, choices, |l| prose(l) && l.text.trim().contains(' '))?;
    let text = doc.lines[i].text.clone();
    let indent = text.len() - text.trim_start().len();
    let spaces = chars_where(&text[indent..], |c| c == ' ');
    let at = indent + *choices.pick(&spaces)?;
    let content = indent + text[indent..].find(|c: char| c.is_alphanumeric()).unwrap_or(0);
    let lead = if choices.draw().is_multiple_of(2) { " ".repeat(indent) } else { " ".repeat(content.min(at)) };
    let (head, rest) = (text[..at].to_string(), text[at + 1..].to_string());
    doc.lines[i].text = head;
    let mut next = doc.lines[i].clone();
    next.text = format!("{lead}{rest}");
    doc.lines.insert(i + 1, next);
    Some(())
}

/// Every bullet list marker of one kind (`-`, `+`, `*`) made another, or
/// every ordered marker's `.` made `)` (CommonMark §5.2).
pub fn list_markers(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let marker = |l: &Line| -> Option<(usize, char)> {
        let t = l.text.trim_start_matches([' ', '>']);
        let at = l.text.len() - t.len();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let c = t[digits..].chars().next()?;
        let bullet = digits == 0 && matches!(c, '-' | '+' | '*');
        let ordered = (1..=9).contains(&digits) && matches!(c, '.' | ')');
        let spaced = t[digits + 1..].starts_with([' ', '\t']);
        (md(l) && spaced && (bullet || ordered)).then_some((at + digits, c))
    };
    let kinds: Vec<char> = {
        let mut k: Vec<char> = doc.lines.iter().filter_map(|l| marker(l).map(|(_, c)| c)).collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    let from = *choices.pick(&kinds)?;
    let others: Vec<char> = match from {
        '.' => vec![')'],
        ')' => vec!['.'],
        c => ['-', '+', '*'].into_iter().filter(|o| *o != c).collect(),
    };
    let to = *choices.pick(&others)?;
    for line in &mut doc.lines {
        if let Some((at, c)) = marker(line).filter(|(_, c)| *c == from) {
            line.text.replace_range(at..at + c.len_utf8(), &to.to_string());
        }
    }
    Some(())
}

/// One emphasis written with the other delimiter: `*a*` and `_a_`, `**a**`
/// and `__a__` (CommonMark §6.2).
pub fn emphasis(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let spans = |text: &str| -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for run in ["**", "__", "*", "_"] {
            let mut from = 0;
            while let Some(open) = text[from..].find(run).map(|o| o + from) {
                let inner = open + run.len();
                let Some(close) = text[inner..].find(run).map(|c| c + inner) else { break };
                if close > inner && !text[inner..close].contains(['*', '_', '`']) {
                    out.push((open, close, run.len()));
                }
                from = close + run.len();
            }
        }
        out
    };
    let i = line_where(doc, choices, |l| prose(l) && !spans(&l.text).is_empty())?;
    let text = &mut doc.lines[i].text;
    let (open, close, len) = *choices.pick(&spans(text))?;
    let other = if text[open..].starts_with('*') { "_" } else { "*" }.repeat(len);
    text.replace_range(close..close + len, &other);
    text.replace_range(open..open + len, &other);
    Some(())
}

/// An inline link's destination in angle brackets, or the link written as
/// a full reference with its definition at the end (CommonMark §6.3, §4.7).
pub fn links(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let targets = |text: &str| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(at) = text[from..].find("](").map(|a| a + from) {
            let start = at + 2;
            match text[start..].find(')') {
                Some(len) if !text[start..start + len].contains([' ', '<', '>', '(']) && len > 0 => {
                    out.push((start, start + len));
                    from = start + len;
                }
                _ => from = start,
            }
        }
        out
    };
    let i = line_where(doc, choices, |l| prose(l) && !targets(&l.text).is_empty())?;
    let (start, end) = *choices.pick(&targets(&doc.lines[i].text))?;
    let destination = doc.lines[i].text[start..end].to_string();
    if choices.draw().is_multiple_of(2) {
        doc.lines[i].text.replace_range(start..end, &format!("<{destination}>"));
    } else {
        let label = format!("equivalence-{}", choices.draw() % 10_000);
        doc.lines[i].text.replace_range(start - 1..end + 1, &format!("[{label}]"));
        // The destination is written on the definition's line now.
        let end = doc.lines.len();
        doc.insert(end, String::new(), Zone::Md);
        doc.insert(end + 1, format!("[{label}]: {destination}"), Zone::Md);
        doc.lines[end + 1].from = doc.lines[i].from.clone();
    }
    Some(())
}

/// A code span between double backticks, or a fence of tildes or of more
/// backticks (CommonMark §6.1, §4.5).
pub fn code(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    if choices.draw().is_multiple_of(2) {
        let spans = |text: &str| -> Vec<(usize, usize)> {
            let ticks: Vec<usize> = chars_where(text, |c| c == '`');
            ticks.chunks(2).filter(|p| p.len() == 2 && p[1] > p[0] + 1).map(|p| (p[0], p[1])).collect()
        };
        let i = line_where(doc, choices, |l| prose(l) && !l.text.contains("``") && !spans(&l.text).is_empty())?;
        let (open, close) = *choices.pick(&spans(&doc.lines[i].text))?;
        let text = &mut doc.lines[i].text;
        text.replace_range(close..close + 1, " ``");
        text.replace_range(open..open + 1, "`` ");
        return Some(());
    }
    let opening = line_where(doc, choices, |l| l.zone == Zone::FenceMark && l.text.trim_start().starts_with("```"))?;
    let close = (opening + 1..doc.lines.len()).find(|&j| doc.lines[j].zone == Zone::FenceMark)?;
    let tildes = choices.draw().is_multiple_of(2);
    for i in [opening, close] {
        let text = &doc.lines[i].text;
        let indent = text.len() - text.trim_start().len();
        let run = text[indent..].bytes().take_while(|b| *b == b'`').count();
        let new = if tildes { "~".repeat(run) } else { "`".repeat(run + 1) };
        doc.lines[i].text.replace_range(indent..indent + run, &new);
    }
    Some(())
}

/// A blockquote's `>` without the space after it, or a continuation line
/// without its `>` (a lazy continuation, CommonMark §5.1).
pub fn quote_laziness(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let quoted = |l: &Line| md(l) && l.text.starts_with('>') && !l.text[1..].trim().is_empty();
    let at = doc.indices(quoted);
    if choices.draw().is_multiple_of(2) {
        let i =
            *choices.pick(&at.iter().copied().filter(|&i| doc.lines[i].text.starts_with("> ")).collect::<Vec<_>>())?;
        doc.lines[i].text.remove(1);
        return Some(());
    }
    let continued: Vec<usize> = at.iter().copied().filter(|&i| i > 0 && at.contains(&(i - 1))).collect();
    let i = *choices.pick(&continued)?;
    let text = &doc.lines[i].text;
    doc.lines[i].text = text[1..].strip_prefix(' ').unwrap_or(&text[1..]).to_string();
    Some(())
}

/// An HTML comment: a block of its own after a blank line, or at the end
/// of a line.
pub fn html_comment(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    if choices.draw().is_multiple_of(2) {
        let i = line_where(doc, choices, |l| md(l) && l.text.trim().is_empty())?;
        doc.insert(i + 1, String::new(), Zone::Md);
        doc.insert(i + 1, "<!-- a reviewer's note -->".to_string(), Zone::Md);
    } else {
        let i = line_where(doc, choices, prose)?;
        doc.lines[i].text.push_str(" <!-- a note -->");
    }
    Some(())
}
