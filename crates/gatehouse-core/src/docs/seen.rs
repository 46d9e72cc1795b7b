//! Markdown text as a reader sees it. [`seen`] is for comparing text with
//! text (a quote with its ADR, a copy with its original, a published
//! version with its edit): rendered by CommonMark + GFM (escapes and
//! entities decoded, emphasis, link and code delimiters gone, HTML comments
//! and tags not shown), Unicode-normalised (NFC), every run of whitespace
//! one space. [`resolved`] is for readers of line grammars (the fondue
//! engine's files): the source with each escape and entity written as the
//! character it stands for and each HTML comment blanked, its lines and
//! markup kept.

use std::borrow::Cow;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_GFM);
use unicode_normalization::UnicodeNormalization;

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

/// `markdown` with each escape and entity in running text written as the
/// character it stands for, and each HTML comment blanked (its line ends
/// kept): the same lines, with the same markup, as a reader sees them.
/// Borrowed when there is nothing to resolve.
pub fn resolved(markdown: &str) -> Cow<'_, str> {
    if !markdown.contains(['\\', '&', '<']) {
        return Cow::Borrowed(markdown);
    }
    let mut edits: Vec<(std::ops::Range<usize>, Cow<'_, str>)> = Vec::new();
    for (event, range) in Parser::new_ext(markdown, OPTIONS).into_offset_iter() {
        let source = &markdown[range.clone()];
        match event {
            Event::Text(text) => {
                // An escaped character's text starts after its backslash.
                let escaped = text.starts_with(|c: char| c.is_ascii_punctuation())
                    && markdown[..range.start].ends_with('\\')
                    && edits.last().is_none_or(|(last, _)| last.end < range.start);
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

#[cfg(test)]
mod tests {
    use super::{resolved, seen};

    #[test]
    fn resolving_keeps_lines_and_markup_and_writes_characters_out() {
        let text = "**Skill:** spec &amp; plan\n- a\\_b <!-- note -->\n<!--\nhidden\n-->\n`&amp;`\n";
        let lines: Vec<String> = resolved(text).lines().map(|l| l.trim_end().to_string()).collect();
        assert_eq!(lines, ["**Skill:** spec & plan", "- a_b", "", "", "", "`&amp;`"]);
        assert!(matches!(resolved("plain **text**\n"), std::borrow::Cow::Borrowed(_)));
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
