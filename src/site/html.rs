//! Writing HTML: escaping, the page frame (inline CSS, a Content-Security-
//! Policy that forbids every fetch), findings lists and small helpers. Every
//! text that comes from a document goes through [`esc`] or [`attr`]:
//! documents are untrusted input.

use std::fmt::Write as _;

use crate::model::{Finding, Severity};

/// The inline style sheet of every page.
const STYLE: &str = include_str!("style.css");

/// No fetch of any kind: styles only inline, images only `data:`. A page
/// that tried to load a script, font or image from anywhere would be
/// blocked, and the browser would log the violation.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// Appends `text` with `&`, `<`, `>`, `"` and `'` escaped: safe in element
/// content and in double-quoted attribute values alike.
pub fn esc_into(out: &mut String, text: &str) {
    let mut start = 0;
    for (at, byte) in text.bytes().enumerate() {
        let entity = match byte {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[start..at]);
        out.push_str(entity);
        start = at + 1;
    }
    out.push_str(&text[start..]);
}

/// `text` escaped for element content.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    esc_into(&mut out, text);
    out
}

/// `text` escaped for a double-quoted attribute value (the same escaping:
/// quotes included).
pub fn attr(text: &str) -> String {
    esc(text)
}

/// An `href` for a link found in a document: only `http:` and `https:` URLs
/// become links; anything else (`javascript:`, a repository path) is not a
/// link at all.
pub fn external_href(text: &str) -> Option<String> {
    let lower = text.trim().to_ascii_lowercase();
    let ok = (lower.starts_with("https://") || lower.starts_with("http://"))
        && !text.trim().chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| attr(text.trim()))
}

/// A page being written: its path in the site and its HTML so far. The
/// head (title, style sheet, navigation) is written when the page is made,
/// so that [`Page::finish`] only appends the footer: a ledger page runs to
/// megabytes, which a second copy would cost.
pub struct Page {
    /// Path inside the site folder, `/`-separated: `ledgers/x.html`.
    pub path: String,
    pub body: String,
}

impl Page {
    pub fn new(path: impl Into<String>, title: impl AsRef<str>) -> Page {
        let mut page = Page { path: path.into(), body: String::with_capacity(STYLE.len() + 8192) };
        let root = page.root();
        let out = &mut page.body;
        out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        let _ = writeln!(out, "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        out.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n<title>");
        esc_into(out, title.as_ref());
        out.push_str(" · gatehouse</title>\n<style>\n");
        out.push_str(STYLE);
        out.push_str("</style>\n</head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n");
        let _ = write!(
            out,
            "<header><nav aria-label=\"Site\"><ul>\
<li><a href=\"{root}index.html\">Overview</a></li>\
<li><a href=\"{root}decisions/index.html\">Decisions</a></li>\
<li><a href=\"{root}ledgers/index.html\">Ledgers</a></li>\
<li><a href=\"{root}specs/index.html\">Specs</a></li>\
<li><a href=\"{root}briefs/index.html\">Briefs</a></li>\
</ul></nav></header>\n<main id=\"main\">\n"
        );
        page
    }

    /// The prefix that leads from this page to the site's root.
    pub fn root(&self) -> String {
        "../".repeat(self.path.matches('/').count())
    }

    /// A link from this page to `target` (a site path), with escaped text.
    pub fn link(&self, target: &str, text: &str) -> String {
        format!("<a href=\"{}{}\">{}</a>", self.root(), attr(target), esc(text))
    }

    pub fn push(&mut self, html: &str) {
        self.body.push_str(html);
    }

    pub fn text(&mut self, text: &str) {
        esc_into(&mut self.body, text);
    }

    /// The whole document. `footer` is plain text.
    pub fn finish(mut self, footer: &str) -> String {
        self.body.push_str("</main>\n<footer><p>");
        esc_into(&mut self.body, footer);
        self.body.push_str("</p></footer>\n</body>\n</html>\n");
        self.body
    }
}

pub use crate::render::plural;

/// A severity badge: the word itself, so color is never the only signal.
pub fn severity_badge(severity: Severity) -> String {
    format!("<span class=\"badge sev-{0}\">{0}</span>", severity.as_str())
}

/// Counts by severity: `2 errors, 1 warning`, or `no findings`.
pub fn counts(findings: &[&Finding]) -> String {
    let parts: Vec<String> = [Severity::Error, Severity::Warning, Severity::Notice]
        .into_iter()
        .filter_map(|s| {
            let n = findings.iter().filter(|f| f.severity == s).count();
            (n > 0).then(|| plural(n, s.as_str()))
        })
        .collect();
    if parts.is_empty() { "no findings".to_string() } else { parts.join(", ") }
}

/// The findings about a document, as a section with an `<h2>` heading:
/// severity, rule id, `path:line`, the message and how to fix it.
pub fn findings_section(page: &mut Page, findings: &[&Finding]) {
    page.push("<section aria-labelledby=\"findings\">\n<h2 id=\"findings\">Findings</h2>\n");
    findings_list(page, findings);
    page.push("</section>\n");
}

/// The findings as a list (or a line saying there are none).
pub fn findings_list(page: &mut Page, findings: &[&Finding]) {
    if findings.is_empty() {
        page.push("<p class=\"ok\">No findings: <code>gatehouse check</code> has nothing to say here.</p>\n");
        return;
    }
    let mut sorted = findings.to_vec();
    sorted.sort_by(|a, b| (a.severity, &a.path, a.span.line, a.rule).cmp(&(b.severity, &b.path, b.span.line, b.rule)));
    page.push("<ul class=\"findings\">\n");
    for f in sorted {
        let _ = write!(
            page.body,
            "<li class=\"finding sev-{}\">{} <code class=\"rule\">{}</code> <span class=\"where\">{}:{}</span><p>",
            f.severity.as_str(),
            severity_badge(f.severity),
            esc(f.rule),
            esc(&f.path),
            f.span.line
        );
        page.text(&f.message);
        page.push("</p>");
        if let Some(help) = &f.help {
            page.push("<p class=\"help\">How to fix: ");
            page.text(help);
            page.push("</p>");
        }
        page.push("</li>\n");
    }
    page.push("</ul>\n");
}

/// `YYYY-MM-DD HH:MM UTC` of an instant in seconds since 1970.
pub fn utc(seconds: i64) -> String {
    let (y, m, d) = crate::docs::timestamp::civil_from_days(seconds.div_euclid(86_400));
    let in_day = seconds.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", in_day / 3600, in_day % 3600 / 60)
}

/// How long ago `then` was at `now` (both seconds since 1970), in the
/// coarsest unit that keeps it readable: `45 min`, `5 h`, `3 days`.
pub fn age(then: i64, now: i64) -> String {
    let seconds = now - then;
    if seconds < 0 {
        return "filed after the as-of date".to_string();
    }
    match seconds {
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 2 * 86_400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(esc("plain é text"), "plain é text");
        assert_eq!(attr("\" onmouseover=\"x"), "&quot; onmouseover=&quot;x");
    }

    #[test]
    fn only_web_urls_become_links() {
        assert_eq!(
            external_href("https://example.com/a?b=1&c=\"2\"").as_deref(),
            Some("https://example.com/a?b=1&amp;c=&quot;2&quot;")
        );
        assert_eq!(external_href("javascript:alert(1)"), None);
        assert_eq!(external_href("JaVaScRiPt:alert(1)"), None);
        assert_eq!(external_href("docs/runbooks/pg-backup.md"), None);
        assert_eq!(external_href("https://example.com/a b"), None);
    }

    #[test]
    fn links_lead_back_to_the_root() {
        let page = Page::new("ledgers/x.html", "x");
        assert_eq!(page.root(), "../");
        assert_eq!(page.link("specs/a.html", "<a>"), "<a href=\"../specs/a.html\">&lt;a&gt;</a>");
        assert_eq!(Page::new("index.html", "x").root(), "");
    }

    #[test]
    fn dates_and_ages() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(1_783_330_200), "2026-07-06 09:30 UTC");
        assert_eq!(age(0, 59 * 60), "59 min");
        assert_eq!(age(0, 47 * 3600), "47 h");
        assert_eq!(age(0, 3 * 86_400 + 5), "3 days");
        assert_eq!(age(10, 0), "filed after the as-of date");
    }
}
