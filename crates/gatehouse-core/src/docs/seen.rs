//! Markdown text as a reader sees it. [`seen`] is for comparing text with
//! text (a quote with its ADR, a copy with its original, a published
//! version with its edit): rendered by CommonMark + GFM (escapes and
//! entities decoded, emphasis, link and code delimiters gone, HTML comments
//! and tags not shown), Unicode-normalised (NFC), every run of whitespace
//! one space. [`resolved`] is for readers of lines (the fondue engine's
//! grammars, a brief's sentences): the source with each escape, entity and
//! inline link destination written as what it stands for and each HTML
//! comment blanked, its lines and markup kept.

use std::borrow::Cow;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use unicode_normalization::UnicodeNormalization;

/// CommonMark with GitHub's extensions, as the Markdown reader reads it.
const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_GFM);

/// The text `markdown` shows a reader.
pub fn seen(markdown: &str) -> String {
    let mut shown = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, OPTIONS) {
        match event {
            Event::Text(text) | Event::Code(text) => shown.push_str(&text),
            // Emphasis, strikethrough, links and images run in the text.
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. })
            | Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link | TagEnd::Image) => {}
            // Blocks and breaks separate words; HTML is not shown.
            Event::Start(_) | Event::End(_) | Event::SoftBreak | Event::HardBreak | Event::Rule => shown.push(' '),
            _ => {}
        }
    }
    let mut out = String::with_capacity(shown.len());
    for word in shown.nfc().collect::<String>().split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether two lines of Markdown read the same: equal, or equal as seen
/// (`**Ruling:**` and `__Ruling:__`, `a&amp;b` and `a&b`, a trailing space).
pub fn same_line(a: &str, b: &str) -> bool {
    a == b || seen(a) == seen(b)
}

/// `markdown` with each escape and entity in running text written as the
/// character it stands for, and each HTML comment blanked (its line ends
/// kept): the same lines, with the same markup, as a reader sees them. A
/// frontmatter is YAML, not Markdown, and stays as written (`\"` in a
/// double-quoted scalar is YAML's escape). Borrowed when there is nothing
/// to resolve.
pub fn resolved(text: &str) -> Cow<'_, str> {
    let (frontmatter, markdown) = text.split_at(super::frontmatter::end(text));
    match resolved_markdown(markdown) {
        Cow::Owned(body) => Cow::Owned(format!("{frontmatter}{body}")),
        Cow::Borrowed(_) => Cow::Borrowed(text),
    }
}

fn resolved_markdown(markdown: &str) -> Cow<'_, str> {
    if !needs_resolving(markdown) {
        return Cow::Borrowed(markdown);
    }
    let mut edits: Vec<(std::ops::Range<usize>, Cow<'_, str>)> = Vec::new();
    for (event, range) in Parser::new_ext(markdown, OPTIONS).into_offset_iter() {
        let source = &markdown[range.clone()];
        match event {
            Event::Start(
                Tag::Link { link_type: LinkType::Inline, dest_url, .. }
                | Tag::Image { link_type: LinkType::Inline, dest_url, .. },
            ) => {
                // The destination follows the last `](` of the link.
                let Some(open) = source.rfind("](").map(|at| range.start + at + 2) else { continue };
                let rest = &markdown[open..range.end];
                let written = rest.trim_start_matches('<');
                let start = open + rest.len() - written.len();
                let len = written.find(['>', ' ', ')', '\n']).unwrap_or(written.len());
                if written[..len] != *dest_url && !dest_url.contains(['\n', ' ', ')', '>']) {
                    edits.push((start..start + len, Cow::Owned(dest_url.into_string())));
                }
            }
            Event::Text(text) => {
                // An escaped character's text starts after its backslash.
                let escaped = text.starts_with(|c: char| c.is_ascii_punctuation())
                    && markdown[..range.start].ends_with('\\')
                    && !edits.iter().any(|(edit, _)| edit.contains(&(range.start - 1)));
                if escaped {
                    edits.push((range.start - 1..range.start, Cow::Borrowed("")));
                }
                if *source != *text && !source.contains('\n') && !text.contains('\n') {
                    edits.push((range, Cow::Owned(text.into_string())));
                }
            }
            Event::Start(Tag::HtmlBlock) | Event::InlineHtml(_) if source.trim_start().starts_with("<!--") => {
                let blank: String = source.chars().map(|c| if c == '\n' || c == '\r' { c } else { ' ' }).collect();
                edits.push((range, Cow::Owned(blank)));
            }
            _ => {}
        }
    }
    if edits.is_empty() {
        return Cow::Borrowed(markdown);
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(markdown.len());
    let mut at = 0;
    for (range, text) in edits {
        if range.start < at {
            continue;
        }
        out.push_str(&markdown[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&markdown[at..]);
    Cow::Owned(out)
}

/// Whether `markdown` has anything [`resolved`] would change: a backslash
/// before punctuation, an `&` that may start an entity, an HTML comment.
fn needs_resolving(markdown: &str) -> bool {
    let bytes = markdown.as_bytes();
    memchr::memchr3_iter(b'\\', b'&', b'<', bytes).any(|at| match bytes[at] {
        b'\\' => bytes.get(at + 1).is_some_and(u8::is_ascii_punctuation),
        b'&' => bytes.get(at + 1).is_some_and(|b| *b == b'#' || b.is_ascii_alphabetic()),
        _ => bytes[at..].starts_with(b"<!--"),
    })
}

#[cfg(test)]
mod tests {
    use super::{resolved, seen};

    #[test]
    fn resolving_keeps_lines_and_markup_and_writes_characters_out() {
        let text = "**Skill:** spec &amp; plan\n- a\\_b <!-- note -->\n<!--\nhidden\n-->\n`&amp;` [r](a&#47;b.md)\n";
        let lines: Vec<String> = resolved(text).lines().map(|l| l.trim_end().to_string()).collect();
        assert_eq!(lines, ["**Skill:** spec & plan", "- a_b", "", "", "", "`&amp;` [r](a/b.md)"]);
        assert!(matches!(resolved("plain **text**\n"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_frontmatter_is_yaml_and_stays_as_written() {
        let text = "---\ncriteria:\n  - \"logs \\\"upload failed\\\"\"\n---\nSay \\*this\\*.\n";
        assert_eq!(resolved(text), "---\ncriteria:\n  - \"logs \\\"upload failed\\\"\"\n---\nSay *this*.\n");
        let only = "---\nquote: \"a \\\"b\\\"\"\n---\nplain\n";
        assert!(matches!(resolved(only), std::borrow::Cow::Borrowed(_)), "nothing in the Markdown to resolve");
    }

    #[test]
    fn spellings_a_reader_cannot_tell_apart_are_seen_the_same() {
        let plain = seen("Dumps go to off-host storage & stay there.\n");
        for spelled in [
            "Dumps go to off\\-host storage &amp; stay there.\n",
            "Dumps go to *off-host* storage &#38; **stay**\nthere. <!-- checked -->\n",
            "Dumps go to off&#x2D;host storage\r\n&amp; stay  \r\nthere.\r\n",
            "Dumps go to [off-host](https://example.com) storage & stay there.\n",
        ] {
            assert_eq!(seen(spelled), plain, "{spelled:?}");
        }
        assert_eq!(seen("caf\u{65}\u{301}\n"), seen("caf\u{e9}\n"));
        assert_ne!(seen("Dumps go to offhost storage.\n"), seen("Dumps go to off-host storage.\n"));
    }
}
