//! The markdown structure gatehouse's rules need, each piece with its source
//! line, read with pulldown-cmark (a CommonMark parser that gives each event's
//! source offsets): headings, fenced blocks with their info strings,
//! blockquotes, inline code spans, link destinations and the runs of plain
//! prose, so that rules see what a renderer shows (a fence inside an HTML
//! comment or a `` ` `` inside a code block is not a code span).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

/// One heading (`#` or underlined), outside blockquotes and lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    pub level: u8,
    /// The heading's source text, markers and closing `#`s removed.
    pub text: String,
    pub line: u32,
    /// Written as text underlined by `=` or `-` (CommonMark §4.3), not `#`.
    pub setext: bool,
}

/// A fenced code block outside blockquotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The info string's first word (`voting`, `rust`), possibly empty.
    pub info: String,
    /// The line of the opening fence.
    pub line: u32,
    /// The line of the closing fence, or the block's last line when never
    /// closed.
    pub end_line: u32,
    pub closed: bool,
    /// Where the text between the fences is, in bytes of the parsed text
    /// (read it with [`Fence::content`]).
    pub content_range: Range<usize>,
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

/// A blockquote (the outermost of nested ones).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blockquote {
    /// The line of the quoted text's start (after an alert's marker line).
    pub line: u32,
    /// A GitHub alert: its marker is on the line before `line`.
    pub alert: bool,
    pub end_line: u32,
    /// The quoted text, `>` markers removed, lines joined with `\n`. A
    /// GitHub alert's marker line (`> [!NOTE]`) is the alert's kind, which
    /// GitHub renders as a title, not quoted text: it is left out.
    pub text: String,
}

/// An inline code span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSpan {
    /// The code, as CommonMark reads it (one space stripped each side).
    pub text: String,
    pub line: u32,
    /// 1-based character column of the opening backtick.
    pub col: u32,
    /// Character width including the backticks (to the end of the first
    /// line for a span that runs over lines).
    pub width: u32,
    /// Where the code sits in the parsed text, between the backtick runs.
    pub content: Range<usize>,
}

/// A link's or image's destination, written inline (`[a](dest)`) or in a
/// reference definition (`[a]: dest`). Autolinks (`<https://…>`) are not
/// listed: they are URLs by construction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkTarget {
    /// The destination as CommonMark reads it (escapes resolved, `<…>` removed).
    pub target: String,
    pub line: u32,
    /// 1-based character column of the destination in the source.
    pub col: u32,
    /// Character width of the destination in the source.
    pub width: u32,
    /// Where the destination is written in the parsed text; empty when it is
    /// not written as read (escapes, entities).
    pub range: Range<usize>,
}

/// A run of plain prose on one line: text outside code, links, images and
/// HTML, as bytes of the parsed text with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prose {
    pub range: Range<usize>,
    pub line: u32,
    /// 1-based character column of the run's first character.
    pub col: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Markdown {
    pub headings: Vec<Heading>,
    pub fences: Vec<Fence>,
    pub blockquotes: Vec<Blockquote>,
    pub code_spans: Vec<CodeSpan>,
    pub links: Vec<LinkTarget>,
    pub prose: Vec<Prose>,
}

/// Parses `text`, whose first line is file line `first_line`.
pub fn parse(text: &str, first_line: u32) -> Markdown {
    // CommonMark also ends a line at a lone `\r`; gatehouse counts lines by
    // `\n` alone, as `str::lines` does, so a lone `\r` is read as a space:
    // one byte for one, every offset unchanged.
    let spaced;
    let source = if has_lone_cr(text) {
        spaced = lone_cr_as_space(text);
        spaced.as_str()
    } else {
        text
    };
    // GFM's alerts (`> [!NOTE]`) are read as GitHub renders them.
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut md = Markdown::default();
    let mut at = Cursor { text: source, offset: 0, line: first_line };
    let mut quotes = 0u32;
    let mut quote_start = 0;
    let mut alert = false;
    let mut items = 0u32;
    let mut in_code = false;
    // Open links and images: the destination when written inline, and where
    // their text ends so far (the destination is searched for after it).
    let mut links: Vec<(Option<String>, usize)> = Vec::new();
    let mut events = Parser::new_ext(source, options).into_offset_iter();
    for (event, range) in events.by_ref() {
        if let (Some((_, text_end)), false) =
            (links.last_mut(), matches!(event, Event::End(TagEnd::Link | TagEnd::Image)))
        {
            *text_end = (*text_end).max(range.end);
        }
        match event {
            Event::Start(Tag::BlockQuote(kind)) => {
                if quotes == 0 {
                    quote_start = range.start;
                    alert = kind.is_some();
                }
                quotes += 1;
            }
            Event::End(TagEnd::BlockQuote(_)) => {
                quotes = quotes.saturating_sub(1);
                if quotes == 0 {
                    md.blockquotes.push(blockquote(source, quote_start..range.end, alert, &mut at));
                }
            }
            Event::Start(Tag::Item) => items += 1,
            Event::End(TagEnd::Item) => items = items.saturating_sub(1),
            Event::Start(Tag::Heading { level, .. }) if quotes == 0 && items == 0 => {
                md.headings.push(heading(source, range, level as u8, &mut at));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code = true;
                if let (CodeBlockKind::Fenced(info), 0) = (kind, quotes) {
                    md.fences.push(fence(source, range, &info, &mut at));
                }
            }
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::Link { link_type, dest_url, .. } | Tag::Image { link_type, dest_url, .. }) => {
                let inline = link_type == LinkType::Inline;
                // The text starts after the `[` (or `![`).
                let text_start = range.start + if source[range.start..].starts_with('!') { 2 } else { 1 };
                links.push((inline.then(|| dest_url.to_string()), text_start));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if let Some((Some(target), text_end)) = links.pop() {
                    let found = locate(source, text_end..range.end, &target);
                    md.links.push(link_target(source, target, found, &mut at));
                }
                if let Some((_, text_end)) = links.last_mut() {
                    *text_end = (*text_end).max(range.end);
                }
            }
            Event::Code(code) => md.code_spans.push(code_span(source, range, code.to_string(), &mut at)),
            Event::Text(_) if !in_code && links.is_empty() => match md.prose.last_mut() {
                Some(run) if run.range.end == range.start => run.range.end = range.end,
                _ => {
                    let (line, col) = at.position(range.start);
                    md.prose.push(Prose { range, line, col });
                }
            },
            _ => {}
        }
    }
    let mut definitions: Vec<(Range<usize>, String)> =
        events.reference_definitions().iter().map(|(_, def)| (def.span.clone(), def.dest.to_string())).collect();
    definitions.sort_by_key(|(span, _)| span.start);
    for (span, target) in definitions {
        // The label ends at the first `]:`; the destination follows it.
        let after_label = source[span.clone()].find("]:").map_or(span.start, |n| span.start + n + 2);
        let found = locate(source, after_label..span.end, &target);
        md.links.push(link_target(source, target, found, &mut at));
    }
    md.links.sort_by_key(|link| (link.line, link.col));
    md
}

/// `text` with each full reference link `[text][label]` written as the
/// inline link it stands for, `[text](destination)` (CommonMark §6.3: the
/// same link), so a reader of link text and destinations reads both forms
/// alike. Lines stay where they are; borrowed when nothing changes.
pub fn with_inline_references(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    if !memchr::memchr_iter(b']', bytes).any(|at| bytes.get(at + 1) == Some(&b':')) {
        return std::borrow::Cow::Borrowed(text);
    }
    let parser = Parser::new_ext(text, Options::empty());
    let mut out = std::borrow::Cow::Borrowed(text);
    for (label, def) in parser.reference_definitions().iter() {
        let dest = def.dest.to_string();
        if dest.contains(char::is_whitespace) || dest.contains('\n') {
            continue;
        }
        let key = format!("][{}]", label.to_lowercase());
        let mut from = 0;
        while let Some(at) = out[from..].to_lowercase().find(&key).map(|n| from + n) {
            let replacement = format!("]({dest})");
            out.to_mut().replace_range(at..at + key.len(), &replacement);
            from = at + replacement.len();
        }
    }
    out
}

/// Whether a line is a link reference definition's first line (`[label]:
/// destination`, CommonMark §4.7).
pub fn is_definition_line(line: &str) -> bool {
    let t = line.trim_start();
    line.len() - t.len() < 4
        && t.strip_prefix('[').and_then(|rest| rest.split_once("]:")).is_some_and(|(label, _)| !label.trim().is_empty())
}

/// Line and column of byte offsets, counted from the last offset asked
/// about: the parser's events come nearly in source order, so a long code
/// block's lines are counted once.
struct Cursor<'t> {
    text: &'t str,
    offset: usize,
    line: u32,
}

impl Cursor<'_> {
    /// The line and 1-based character column of `offset`, a character
    /// boundary.
    fn position(&mut self, offset: usize) -> (u32, u32) {
        let line = self.line(offset);
        let offset = self.offset;
        let line_start = memchr::memrchr(b'\n', &self.text.as_bytes()[..offset]).map_or(0, |n| n + 1);
        (line, self.text[line_start..offset].chars().count() as u32 + 1)
    }

    /// The line of the byte at `offset`.
    fn line(&mut self, offset: usize) -> u32 {
        let bytes = self.text.as_bytes();
        let offset = offset.min(bytes.len());
        if offset >= self.offset {
            self.line += memchr::memchr_iter(b'\n', &bytes[self.offset..offset]).count() as u32;
        } else {
            self.line -= memchr::memchr_iter(b'\n', &bytes[offset..self.offset]).count() as u32;
        }
        self.offset = offset;
        self.line
    }
}

fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\r', bytes).any(|at| bytes.get(at + 1) != Some(&b'\n'))
}

fn lone_cr_as_space(text: &str) -> String {
    let bytes = text.as_bytes();
    let spaced: Vec<u8> = bytes
        .iter()
        .enumerate()
        .map(|(at, &b)| if b == b'\r' && bytes.get(at + 1) != Some(&b'\n') { b' ' } else { b })
        .collect();
    String::from_utf8(spaced).unwrap_or_else(|_| text.to_string())
}

/// `range` without the line ends at its end.
fn without_line_end(text: &str, range: Range<usize>) -> Range<usize> {
    let kept = text[range.clone()].trim_end_matches(['\n', '\r']).len();
    range.start..range.start + kept
}

fn heading(source: &str, range: Range<usize>, level: u8, at: &mut Cursor) -> Heading {
    let line = at.line(range.start);
    let raw = &source[without_line_end(source, range)];
    let underlined = raw.rsplit_once('\n');
    let text = match underlined {
        // Underlined: the text is the lines above the underline.
        Some((above, _)) => above.lines().map(str::trim).collect::<Vec<_>>().join(" "),
        None => raw.trim_start().trim_start_matches('#').trim().trim_end_matches('#').trim_end().to_string(),
    };
    Heading { level, text, line, setext: underlined.is_some() }
}

fn fence(source: &str, range: Range<usize>, info: &str, at: &mut Cursor) -> Fence {
    let line = at.line(range.start);
    let block = without_line_end(source, range.clone());
    let newline = source[range.clone()].find('\n');
    let content_start = newline.map_or(range.end, |n| range.start + n + 1);
    let opening = source[range.start..content_start].trim();
    let marker = opening.chars().next().unwrap_or('`');
    let run = opening.chars().take_while(|c| *c == marker).count();
    let info = info.split_whitespace().next().unwrap_or("").to_string();
    let last_start = memchr::memrchr(b'\n', &source.as_bytes()[block.clone()]).map(|n| block.start + n + 1);
    let closing = last_start.filter(|&start| {
        let last = source[start..block.end].trim();
        let markers = last.chars().take_while(|c| *c == marker).count();
        markers >= run && last.len() == markers
    });
    match closing {
        Some(close) => {
            Fence { info, line, end_line: at.line(close), closed: true, content_range: content_start..close }
        }
        None => {
            let end_line = at.line(range.end.saturating_sub(1).max(range.start));
            Fence { info, line, end_line, closed: false, content_range: content_start..range.end.max(content_start) }
        }
    }
}

fn blockquote(source: &str, range: Range<usize>, alert: bool, at: &mut Cursor) -> Blockquote {
    let range = without_line_end(source, range);
    // An alert's quoted text starts on the line after its marker.
    let text_start = match source[range.clone()].find('\n') {
        Some(n) if alert => range.start + n + 1,
        _ => range.start,
    };
    let quote_start = range.start;
    let line = at.line(text_start);
    let end_line = at.line(range.end.saturating_sub(1).max(range.start));
    let text = super::lines::lines(&source[range])
        .skip(usize::from(alert))
        .map(|raw| {
            let trimmed = raw.trim_start_matches([' ', '\t']);
            match trimmed.strip_prefix('>') {
                Some(inner) => inner.strip_prefix(' ').unwrap_or(inner),
                None => trimmed,
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Blockquote { line, alert: alert && text_start > quote_start, end_line, text }
}

fn code_span(source: &str, range: Range<usize>, text: String, at: &mut Cursor) -> CodeSpan {
    let (line, col) = at.position(range.start);
    let raw = &source[range.clone()];
    let ticks = raw.bytes().take_while(|b| *b == b'`').count();
    let inner = (range.start + ticks)..(range.end - ticks).max(range.start + ticks);
    let code = &source[inner.clone()];
    // CommonMark strips one space each side of a span that is not all spaces.
    let content = if code.len() >= 2 && code.starts_with(' ') && code.ends_with(' ') && !code.trim().is_empty() {
        inner.start + 1..inner.end - 1
    } else {
        inner
    };
    let first_line = &raw[..raw.find('\n').unwrap_or(raw.len())];
    CodeSpan { text, line, col, width: first_line.trim_end_matches('\r').chars().count() as u32, content }
}

/// Where `target` is written within `within`, else where its search began.
fn locate(source: &str, within: Range<usize>, target: &str) -> Range<usize> {
    let start = within.start.min(source.len());
    let end = within.end.clamp(start, source.len());
    match source[start..end].find(target) {
        Some(n) if !target.is_empty() => start + n..start + n + target.len(),
        _ => start..start,
    }
}

fn link_target(source: &str, target: String, found: Range<usize>, at: &mut Cursor) -> LinkTarget {
    let (line, col) = at.position(found.start);
    LinkTarget { target, line, col, width: source[found.clone()].chars().count() as u32, range: found }
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

    proptest::proptest! {
        /// Any text parses, and every piece found lies within its lines.
        #[test]
        fn any_text_parses_within_its_lines(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "```", "~~~", "> ", "# ", "- ", "`", "[a](", ")", "]: ", "é", "。", "x/y.md", " ", "\n", "\r", "\r\n", "<!--", "-->", "---",
                ]),
                0..40,
            )
        ) {
            let text: String = parts.concat();
            let last = 3 + super::super::lines::count(&text).max(1);
            let md = parse(&text, 3);
            let lines = md.headings.iter().map(|h| h.line)
                .chain(md.fences.iter().flat_map(|f| [f.line, f.end_line]))
                .chain(md.blockquotes.iter().flat_map(|q| [q.line, q.end_line]))
                .chain(md.code_spans.iter().map(|s| s.line))
                .chain(md.links.iter().map(|l| l.line))
                .chain(md.prose.iter().map(|p| p.line));
            for line in lines {
                proptest::prop_assert!((3..last).contains(&line), "line {line} of {text:?}");
            }
        }
    }

    #[test]
    fn finds_structure_with_lines() {
        let text = "# Title\n\nSee `src/a.rs` and ``b`c``.\n\n> quoted\n> more\n\n```voting\nsection: x\n```\n## Next ##\n`not closed\n";
        let md = parse(text, 5);
        assert_eq!(md.headings[0], Heading { level: 1, text: "Title".into(), line: 5, setext: false });
        assert_eq!(md.headings[1].text, "Next");
        assert_eq!(md.headings[1].line, 15);
        assert_eq!(md.code_spans.len(), 2);
        assert_eq!((md.code_spans[0].text.as_str(), md.code_spans[0].line, md.code_spans[0].col), ("src/a.rs", 7, 5));
        assert_eq!(&text[md.code_spans[0].content.clone()], "src/a.rs");
        assert_eq!(md.code_spans[0].width, 10);
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

    #[test]
    fn links_and_reference_definitions_with_their_columns() {
        let text = "Read [the runbook](runbooks/restore.md \"title\") and ![x](img/a.png).\n\
                    A [ref][r] link, <https://x.y/z> and [`code`](docs/a.md).\n\n\
                    [r]: <runbooks/ref.md>\n";
        let md = parse(text, 3);
        let found: Vec<(&str, u32, u32, u32)> =
            md.links.iter().map(|l| (l.target.as_str(), l.line, l.col, l.width)).collect();
        assert_eq!(
            found,
            vec![
                ("runbooks/restore.md", 3, 20, 19),
                ("img/a.png", 3, 58, 9),
                ("docs/a.md", 4, 47, 9),
                ("runbooks/ref.md", 6, 7, 15),
            ]
        );
    }

    #[test]
    fn prose_runs_leave_out_code_links_and_html() {
        let text =
            "Dumps go to *backups/db/* daily, see `x` and [y](z).\n<!-- hidden/a.md -->\n\n    indented/code.rs\n";
        let md = parse(text, 1);
        let runs: Vec<&str> = md.prose.iter().map(|p| &text[p.range.clone()]).collect();
        assert_eq!(runs, vec!["Dumps go to ", "backups/db/", " daily, see ", " and ", "."]);
        assert_eq!((md.prose[1].line, md.prose[1].col), (1, 14));
    }

    #[test]
    fn crlf_and_lone_cr_keep_lines_counted_by_newlines() {
        let text = "# One\r\n\r\nSee `a/b.rs`\r\n\r\nTwo\r\n---\r\n\rx `c/d.rs`\n";
        let md = parse(text, 1);
        assert_eq!(
            md.headings,
            vec![
                Heading { level: 1, text: "One".into(), line: 1, setext: false },
                Heading { level: 2, text: "Two".into(), line: 5, setext: true },
            ]
        );
        let spans: Vec<(u32, u32)> = md.code_spans.iter().map(|s| (s.line, s.col)).collect();
        assert_eq!(spans, vec![(3, 5), (7, 4)]);
    }

    #[test]
    fn reference_links_read_as_inline_ones() {
        let text = "See [the record][R1] and [x][none].\n\n[r1]: ../adr/ADR-095.md\n";
        assert_eq!(
            with_inline_references(text),
            "See [the record](../adr/ADR-095.md) and [x][none].\n\n[r1]: ../adr/ADR-095.md\n"
        );
        assert!(is_definition_line("[r1]: ../adr/ADR-095.md") && !is_definition_line("[r1] is a note: x"));
    }

    #[test]
    fn an_alerts_marker_is_not_quoted_text() {
        let md = parse("> [!IMPORTANT]\n> Backups are taken nightly.\n\n> [!NOTE] not an alert\n", 1);
        assert_eq!(md.blockquotes[0].text, "Backups are taken nightly.");
        assert_eq!((md.blockquotes[0].line, md.blockquotes[0].end_line), (2, 2));
        assert_eq!(md.blockquotes[1].text, "[!NOTE] not an alert");
    }

    #[test]
    fn blocks_ending_in_a_wide_character_end_on_its_line() {
        let md = parse("> é\n\n```\nfin é", 1);
        assert_eq!((md.blockquotes[0].line, md.blockquotes[0].end_line), (1, 1));
        assert_eq!((md.fences[0].line, md.fences[0].end_line, md.fences[0].closed), (3, 4, false));
    }

    #[test]
    fn headings_and_fences_in_quotes_and_lists_are_not_the_documents() {
        let md = parse("> ## Quoted\n> ```\n> x\n> ```\n\n- ## Item\n\n  ```yaml\n  a: 1\n  ```\n", 1);
        assert!(md.headings.is_empty());
        assert_eq!(md.blockquotes[0].text, "## Quoted\n```\nx\n```");
        assert_eq!(md.fences.len(), 1);
        assert_eq!((md.fences[0].info.as_str(), md.fences[0].line, md.fences[0].end_line), ("yaml", 8, 10));
    }
}
