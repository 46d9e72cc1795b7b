//! Markdown text as a reader sees it, for comparing text with text (a
//! quote with its ADR, a copy with its original, a published version with
//! its edit): rendered by CommonMark + GFM (escapes and entities decoded,
//! emphasis, link and code delimiters gone, HTML comments and tags not
//! shown), Unicode-normalised (NFC), every run of whitespace one space.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use unicode_normalization::UnicodeNormalization;

/// The text `markdown` shows a reader.
pub fn seen(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut shown = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, options) {
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

#[cfg(test)]
mod tests {
    use super::seen;

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
