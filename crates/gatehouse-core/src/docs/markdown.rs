//! The markdown structure gatehouse's rules need, each piece with its source
//! line: ATX headings, fenced blocks with their info strings, blockquotes and
//! inline code spans. A line scanner, not a renderer: it follows CommonMark
//! where the rules depend on it (fence matching, backtick-run code spans).

/// One `#` heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    pub line: u32,
}

/// A fenced code block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The info string's first word (`voting`, `rust`), possibly empty.
    pub info: String,
    /// The line of the opening fence.
    pub line: u32,
    /// The line of the closing fence, or the last line when never closed.
    pub end_line: u32,
    pub closed: bool,
    /// Where the text between the fences is, in bytes of the parsed text
    /// (read it with [`Fence::content`]).
    pub content_range: std::ops::Range<usize>,
}

impl Fence {
    /// The text between the fences: its lines (as `str::lines` gives them)
    /// each followed by `\n`. `text` is the text the fence was parsed from;
    /// the content is borrowed from it unless it has `\r\n` line ends.
    pub fn content<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let raw = &text[self.content_range.clone()];
        if (raw.is_empty() || raw.ends_with('\n')) && memchr::memchr(b'\r', raw.as_bytes()).is_none() {
            return std::borrow::Cow::Borrowed(raw);
        }
        let mut content = String::with_capacity(raw.len() + 1);
        for line in super::lines::lines(raw) {
            content.push_str(line);
            content.push('\n');
        }
        std::borrow::Cow::Owned(content)
    }
}

/// A run of `>` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blockquote {
    pub line: u32,
    pub end_line: u32,
    /// The quoted text, `>` markers removed, lines joined with `\n`.
    pub text: String,
}

/// An inline code span outside fenced blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSpan {
    pub text: String,
    pub line: u32,
    /// 1-based character column of the opening backtick.
    pub col: u32,
    /// Character width including the backticks.
    pub width: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Markdown {
    pub headings: Vec<Heading>,
    pub fences: Vec<Fence>,
    pub blockquotes: Vec<Blockquote>,
    pub code_spans: Vec<CodeSpan>,
}

/// Parses `text`, whose first line is file line `first_line`.
pub fn parse(text: &str, first_line: u32) -> Markdown {
    let mut md = Markdown::default();
    let mut quote: Option<Blockquote> = None;
    let mut line_no = first_line.saturating_sub(1);
    let mut lines = super::lines::lines(text);
    while let Some(raw) = lines.next() {
        line_no += 1;
        let indent = raw.bytes().position(|b| b != b' ').unwrap_or(raw.len());
        let trimmed = &raw[indent..];
        if indent < 4
            && let Some((marker, len)) = fence_opening(trimmed)
        {
            finish_quote(&mut md, &mut quote);
            let info = trimmed[len..].split_whitespace().next().unwrap_or("").to_string();
            let mut fence = Fence { info, line: line_no, end_line: line_no, closed: false, content_range: 0..0 };
            let start = text.len() - lines.rest().len();
            // The content is skipped to the closing line in one search: code
            // blocks (vote ledgers above all) are most of some documents.
            match closing_line(text, start, marker, len) {
                Some((close, after)) => {
                    line_no += super::lines::count(&text[start..close]) + 1;
                    fence.end_line = line_no;
                    fence.closed = true;
                    fence.content_range = start..close;
                    lines = super::lines::lines(&text[after..]);
                }
                None => {
                    line_no += super::lines::count(&text[start..]);
                    fence.end_line = line_no;
                    fence.content_range = start..text.len();
                    lines = super::lines::lines("");
                }
            }
            md.fences.push(fence);
            continue;
        }
        if indent < 4 && trimmed.starts_with('>') {
            let inner = trimmed[1..].strip_prefix(' ').unwrap_or(&trimmed[1..]);
            let q = quote.get_or_insert_with(|| Blockquote { line: line_no, end_line: line_no, text: String::new() });
            if !q.text.is_empty() {
                q.text.push('\n');
            }
            q.text.push_str(inner);
            q.end_line = line_no;
        } else {
            finish_quote(&mut md, &mut quote);
            if indent < 4
                && let Some(h) = heading(trimmed, line_no)
            {
                md.headings.push(h);
            }
        }
        code_spans(raw, line_no, &mut md.code_spans);
    }
    finish_quote(&mut md, &mut quote);
    md
}

/// The line that closes a fence of `len` `marker`s whose content starts at
/// byte `from`: where it starts and where the line after it starts. A closing
/// line is up to three spaces, at least `len` markers, then only whitespace.
fn closing_line(text: &str, from: usize, marker: char, len: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(found) = memchr::memchr(marker as u8, &bytes[at..]) {
        let found = at + found;
        let start = memchr::memrchr(b'\n', &bytes[from..found]).map_or(from, |n| from + n + 1);
        let end = memchr::memchr(b'\n', &bytes[found..]).map_or(bytes.len(), |n| found + n);
        if found - start < 4 && bytes[start..found].iter().all(|b| *b == b' ') {
            let line = &text[found..end];
            let run = line.bytes().take_while(|b| *b == marker as u8).count();
            if run >= len && line[run..].trim().is_empty() {
                return Some((start, (end + 1).min(bytes.len())));
            }
        }
        at = (end + 1).min(bytes.len());
    }
    None
}

fn finish_quote(md: &mut Markdown, quote: &mut Option<Blockquote>) {
    if let Some(q) = quote.take() {
        md.blockquotes.push(q);
    }
}

fn fence_opening(line: &str) -> Option<(char, usize)> {
    let marker = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|c| *c == marker).count();
    // A backtick fence's info string may not contain backticks (CommonMark).
    (len >= 3 && !(marker == '`' && line[len..].contains('`'))).then_some((marker, len))
}

fn heading(line: &str, line_no: u32) -> Option<Heading> {
    let level = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end().to_string();
    Some(Heading { level: level as u8, text, line: line_no })
}

/// Finds backtick code spans on one line: an opening run of N backticks
/// closed by the next run of exactly N.
fn code_spans(line: &str, line_no: u32, out: &mut Vec<CodeSpan>) {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|(_, c)| *c == '`').count();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].1 != '`' {
            i += 1;
            continue;
        }
        let open = run_at(i);
        let mut j = i + open;
        let mut close = None;
        while j < chars.len() {
            if chars[j].1 == '`' {
                let run = run_at(j);
                if run == open {
                    close = Some(j);
                    break;
                }
                j += run;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                let start = chars[i + open].0;
                let end = chars[j].0;
                let mut text = line[start..end].to_string();
                if text.len() >= 2 && text.starts_with(' ') && text.ends_with(' ') && text.trim() != "" {
                    text = text[1..text.len() - 1].to_string();
                }
                out.push(CodeSpan { text, line: line_no, col: i as u32 + 1, width: (j + open - i) as u32 });
                i = j + open;
            }
            None => i += open,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A fence's content is its lines, each followed by `\n`, however
        /// the text's lines end.
        #[test]
        fn fence_content_is_its_lines(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["```", "```voting", "~~~", "a: 1", "", " x", "\r", "\n", "\r\n"]),
                0..24,
            )
        ) {
            let text: String = parts.concat();
            let lines: Vec<&str> = text.lines().collect();
            for fence in parse(&text, 1).fences {
                let last = if fence.closed { fence.end_line - 1 } else { fence.end_line };
                let expected: String =
                    lines[fence.line as usize..last as usize].iter().map(|l| format!("{l}\n")).collect();
                proptest::prop_assert_eq!(fence.content(&text), expected);
            }
        }
    }

    #[test]
    fn finds_structure_with_lines() {
        let text = "# Title\n\nSee `src/a.rs` and ``b`c``.\n\n> quoted\n> more\n\n```voting\nsection: x\n```\n## Next ##\n`not closed\n";
        let md = parse(text, 5);
        assert_eq!(md.headings[0], Heading { level: 1, text: "Title".into(), line: 5 });
        assert_eq!(md.headings[1].text, "Next");
        assert_eq!(md.headings[1].line, 15);
        assert_eq!(md.code_spans.len(), 2);
        assert_eq!((md.code_spans[0].text.as_str(), md.code_spans[0].line, md.code_spans[0].col), ("src/a.rs", 7, 5));
        assert_eq!(md.code_spans[1].text, "b`c");
        assert_eq!(md.blockquotes[0].text, "quoted\nmore");
        assert_eq!((md.blockquotes[0].line, md.blockquotes[0].end_line), (9, 10));
        let f = &md.fences[0];
        assert_eq!((f.info.as_str(), f.line, f.end_line, f.closed), ("voting", 12, 14, true));
        assert_eq!(f.content(text), "section: x\n");
    }

    #[test]
    fn code_inside_fences_is_not_a_span_and_unclosed_fences_run_to_the_end() {
        let md = parse("~~~~\n`x/y`\n~~~\nstill\n", 1);
        assert!(md.code_spans.is_empty());
        assert_eq!(md.fences.len(), 1);
        assert!(!md.fences[0].closed);
        assert_eq!(md.fences[0].end_line, 4);
    }
}
