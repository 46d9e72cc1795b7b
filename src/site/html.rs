//! Writing HTML: the escaper every template uses, the page frame (inline
//! CSS, a Content-Security-Policy that forbids every fetch), findings lists
//! and small helpers. Pages are askama templates, which escape every value
//! they show unless it is marked `|safe`: document text is untrusted input,
//! and only HTML a template rendered is marked safe.

use std::fmt;

use askama::Template;

use crate::model::{Finding, Severity};

/// The inline style sheet of every page.
pub const STYLE: &str = include_str!("style.css");

/// No fetch of any kind: styles only inline, images only `data:`. A page
/// that tried to load a script, font or image from anywhere would be
/// blocked, and the browser would log the violation.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// The templates' escaper (`askama.toml` names it for `.html`): `&`, `<`,
/// `>`, `"` and `'` as named entities, safe in element content and in
/// quoted attribute values alike. askama's own writes numeric ones.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Escape;

impl askama::filters::Escaper for Escape {
    fn write_escaped_str<W: fmt::Write>(&self, mut out: W, text: &str) -> fmt::Result {
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
            out.write_str(&text[start..at])?;
            out.write_str(entity)?;
            start = at + 1;
        }
        out.write_str(&text[start..])
    }
}

/// `text` escaped as the templates escape it.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let _ = askama::filters::Escaper::write_escaped_str(&Escape, &mut out, text);
    out
}

/// Appends what `template` renders to `out`. Writing to a `String` cannot
/// fail, and no template here calls a filter that can.
pub(crate) fn put(out: &mut String, template: &impl Template) {
    let _ = template.render_into(out);
}

/// What `template` renders, as a `String`.
pub(crate) fn render(template: &impl Template) -> String {
    let mut out = String::new();
    put(&mut out, template);
    out
}

/// An `href` for a link found in a document: only `http:` and `https:` URLs
/// become links; anything else (`javascript:`, a repository path) is not a
/// link at all.
pub(crate) fn external_href(text: &str) -> Option<&str> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let ok = (lower.starts_with("https://") || lower.starts_with("http://"))
        && !text.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then_some(text)
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"{{ crate::site::html::CSP|safe }}\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta name=\"referrer\" content=\"no-referrer\">\n<title>{{ title }} · gatehouse</title>\n<style>\n\
{{ crate::site::html::STYLE|safe }}</style>\n</head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n\
<header><nav aria-label=\"Site\"><ul>\
<li><a href=\"{{ root }}index.html\">Overview</a></li>\
<li><a href=\"{{ root }}decisions/index.html\">Decisions</a></li>\
<li><a href=\"{{ root }}ledgers/index.html\">Ledgers</a></li>\
<li><a href=\"{{ root }}specs/index.html\">Specs</a></li>\
<li><a href=\"{{ root }}briefs/index.html\">Briefs</a></li>\
</ul></nav></header>\n<main id=\"main\">\n"
)]
struct Head<'a> {
    title: &'a str,
    root: &'a str,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "</main>\n<footer><p>{{ crate::site::markdown::inline(footer)|safe }}</p></footer>\n</body>\n</html>\n"
)]
struct Foot<'a> {
    footer: &'a str,
}

#[derive(Template)]
#[template(ext = "html", source = "<a href=\"{{ root }}{{ target }}\">{{ text }}</a>")]
struct Link<'a> {
    root: &'a str,
    target: &'a str,
    text: &'a str,
}

/// A page being written: its path in the site and its HTML so far. The
/// head (title, style sheet, navigation) is written when the page is made,
/// so that [`Page::finish`] only appends the footer: a ledger page runs to
/// megabytes, which a second copy would cost.
pub(crate) struct Page {
    /// Path inside the site folder, `/`-separated: `ledgers/x.html`.
    pub path: String,
    pub body: String,
}

impl Page {
    pub(crate) fn new(path: impl Into<String>, title: impl AsRef<str>) -> Page {
        let mut page = Page { path: path.into(), body: String::with_capacity(STYLE.len() + 8192) };
        let root = page.root();
        put(&mut page.body, &Head { title: title.as_ref(), root: &root });
        page
    }

    /// The prefix that leads from this page to the site's root.
    pub(crate) fn root(&self) -> String {
        "../".repeat(self.path.matches('/').count())
    }

    /// A link from this page to `target` (a site path).
    pub(crate) fn link(&self, target: &str, text: &str) -> String {
        render(&Link { root: &self.root(), target, text })
    }

    /// Appends what `template` renders.
    pub(crate) fn put(&mut self, template: &impl Template) {
        put(&mut self.body, template);
    }

    /// The whole document. `footer` is inline markdown.
    pub(crate) fn finish(mut self, footer: &str) -> String {
        put(&mut self.body, &Foot { footer });
        self.body
    }
}

pub(crate) use crate::render::plural;

/// Counts by severity: `2 errors, 1 warning`, or `no findings`.
pub(crate) fn counts(findings: &[&Finding]) -> String {
    let parts: Vec<String> = [Severity::Error, Severity::Warning, Severity::Notice]
        .into_iter()
        .filter_map(|s| {
            let n = findings.iter().filter(|f| f.severity == s).count();
            (n > 0).then(|| plural(n, s.as_str()))
        })
        .collect();
    if parts.is_empty() { "no findings".to_string() } else { parts.join(", ") }
}

/// The findings about a document: severity, rule id, `path:line`, the
/// message and how to fix it (a notice has nothing to fix: its help is a
/// note); a line saying so when there are none.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% if findings.is_empty() %}\
<p class=\"ok\">No findings: <code>gatehouse check</code> has nothing to say here.</p>\n\
{% else %}<ul class=\"findings\">\n{% for f in findings %}{% let severity = f.severity.as_str() %}\
<li class=\"finding sev-{{ severity }}\"><span class=\"badge sev-{{ severity }}\">{{ severity }}</span> \
<code class=\"rule\">{{ f.rule }}</code> <span class=\"where\">{{ f.path }}:{{ f.span.line }}</span><p>{{ crate::site::markdown::inline(f.message)|safe }}</p>\
{% if let Some(help) = f.help %}<p class=\"help\">{% if f.severity == Severity::Notice %}Note: \
{% else %}How to fix: {% endif %}{{ crate::site::markdown::inline(help)|safe }}</p>{% endif %}</li>\n{% endfor %}</ul>\n{% endif %}"
)]
struct FindingsList<'a> {
    findings: Vec<&'a Finding>,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<section aria-labelledby=\"findings\">\n<h2 id=\"findings\">Findings</h2>\n{{ list|safe }}</section>\n"
)]
struct FindingsSection<'a> {
    list: FindingsList<'a>,
}

fn sorted<'a>(findings: &[&'a Finding]) -> FindingsList<'a> {
    let mut sorted = findings.to_vec();
    sorted.sort_by(|a, b| (a.severity, &a.path, a.span.line, a.rule).cmp(&(b.severity, &b.path, b.span.line, b.rule)));
    FindingsList { findings: sorted }
}

/// The findings about a document, as a section with an `<h2>` heading.
pub(crate) fn findings_section(page: &mut Page, findings: &[&Finding]) {
    page.put(&FindingsSection { list: sorted(findings) });
}

/// The findings as a list (or a line saying there are none).
pub(crate) fn findings_list(page: &mut Page, findings: &[&Finding]) {
    page.put(&sorted(findings));
}

/// `YYYY-MM-DD HH:MM UTC` of an instant in seconds since 1970.
pub(crate) fn utc(seconds: i64) -> String {
    let (y, m, d) = crate::docs::timestamp::civil_from_days(seconds.div_euclid(86_400));
    let in_day = seconds.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", in_day / 3600, in_day % 3600 / 60)
}

/// How long ago `then` was at `now` (both seconds since 1970), in the
/// coarsest unit that keeps it readable: `45 min`, `5 h`, `3 days`.
pub(crate) fn age(then: i64, now: i64) -> String {
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
        assert_eq!(esc("\" onmouseover=\"x"), "&quot; onmouseover=&quot;x");
    }

    #[test]
    fn only_web_urls_become_links() {
        assert_eq!(external_href("https://example.com/a?b=1&c=\"2\""), Some("https://example.com/a?b=1&c=\"2\""));
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
