//! Inline markdown in the site's text (findings, criteria, the footer):
//! code spans, emphasis and links become HTML, everything else is shown as
//! escaped text. Block syntax (a heading's `#`, a list's `1.`) is kept as
//! written; raw HTML is text; a link leads only to an `http(s)` URL or a
//! relative path, never to `javascript:` or another scheme (its text stays).

use std::fmt;

use askama::filters::Escaper as _;
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::html::Escape;

/// `text` rendered as inline markdown; shown with `|safe` in a template.
pub(crate) struct Inline<'a>(pub &'a str);

impl fmt::Display for Inline<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0;
        // Links that became `<a>`, innermost last, so that each end tag
        // closes only what was opened.
        let mut links: Vec<bool> = Vec::new();
        // Where the last block started, for the syntax it consumed.
        let mut block_start: Option<usize> = None;
        // Whether any text was written, so that a later block starts on a new line.
        let mut wrote = false;
        for (event, range) in Parser::new(text).into_offset_iter() {
            if let Some(start) = block_start.take() {
                let marker = text.get(start..range.start.max(start)).unwrap_or("");
                Escape.write_escaped_str(&mut *out, marker)?;
            }
            wrote |= !matches!(event, Event::Start(_) | Event::End(_));
            match event {
                Event::Start(Tag::Emphasis) => out.write_str("<em>")?,
                Event::End(TagEnd::Emphasis) => out.write_str("</em>")?,
                Event::Start(Tag::Strong) => out.write_str("<strong>")?,
                Event::End(TagEnd::Strong) => out.write_str("</strong>")?,
                Event::Start(Tag::Link { dest_url, .. }) => {
                    let ok = safe_href(&dest_url);
                    if ok {
                        out.write_str("<a href=\"")?;
                        Escape.write_escaped_str(&mut *out, &dest_url)?;
                        out.write_str("\" rel=\"noreferrer\">")?;
                    }
                    links.push(ok);
                }
                Event::End(TagEnd::Link) => {
                    if links.pop() == Some(true) {
                        out.write_str("</a>")?;
                    }
                }
                Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
                Event::Start(_) => {
                    if wrote {
                        out.write_str("\n")?;
                    }
                    block_start = Some(range.start);
                }
                Event::End(_) => {}
                Event::Code(code) => {
                    out.write_str("<code>")?;
                    Escape.write_escaped_str(&mut *out, &code)?;
                    out.write_str("</code>")?;
                }
                Event::SoftBreak | Event::HardBreak => out.write_str("\n")?,
                Event::Rule => Escape.write_escaped_str(&mut *out, &text[range])?,
                Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => Escape.write_escaped_str(&mut *out, &t)?,
                _ => Escape.write_escaped_str(&mut *out, &text[range])?,
            }
        }
        Ok(())
    }
}

/// `text` as inline markdown.
pub(crate) fn inline(text: &str) -> Inline<'_> {
    Inline(text)
}

/// An `http(s)` URL or a relative path (no scheme, not `//host`), with no
/// space or control character.
fn safe_href(url: &str) -> bool {
    if url.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return true;
    }
    let before_path = url.split(['/', '?', '#']).next().unwrap_or("");
    !before_path.contains(':') && !url.starts_with("//") && !url.starts_with('\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(text: &str) -> String {
        Inline(text).to_string()
    }

    #[test]
    fn code_spans_emphasis_and_links_render() {
        assert_eq!(
            md("pass `--pr-body FILE` to *check* the **cite**"),
            "pass <code>--pr-body FILE</code> to <em>check</em> the <strong>cite</strong>"
        );
        assert_eq!(
            md("see [ADR-140](https://example.com/adr?a=1&b=\"2\") and [notes](docs/x.md)"),
            "see <a href=\"https://example.com/adr?a=1&amp;b=&quot;2&quot;\" rel=\"noreferrer\">ADR-140</a> and \
<a href=\"docs/x.md\" rel=\"noreferrer\">notes</a>"
        );
        assert_eq!(md("ADR-140's `<login>`"), "ADR-140&#39;s <code>&lt;login&gt;</code>");
    }

    #[test]
    fn hostile_input_stays_text() {
        for hostile in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](//evil.example/)",
            "[x](vbscript:msgbox)",
        ] {
            let html = md(hostile);
            assert!(!html.contains("<a"), "{hostile}: {html}");
            assert!(html.contains('x'), "{hostile}: the link text stays: {html}");
        }
        let html = md("<script>alert(1)</script> <img src=x onerror=alert(2)> ![i](https://e.example/i.png)");
        assert!(!html.contains("<script") && !html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert_eq!(md("\" onmouseover=\"x"), "&quot; onmouseover=&quot;x");
    }

    #[test]
    fn block_syntax_is_kept_as_written() {
        assert_eq!(md("# not a heading"), "# not a heading");
        assert_eq!(md("1. first"), "1. first");
        assert_eq!(md("- `a` item"), "- <code>a</code> item");
    }
}
