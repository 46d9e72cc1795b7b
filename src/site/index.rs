//! The site's front page: counts per family, the documents with error
//! findings (linked to their pages), and findings about no one document.

use askama::Template;

use super::html::{self, Page};
use super::{Card, Entry, Family};
use crate::model::{Finding, Report, Severity};

/// A document with error findings: its link, kind and counts.
struct Failing {
    link: String,
    noun: &'static str,
    counts: String,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>Governed documents</h1>\n<p class=\"lede\">Decisions, standards ledgers, specs and agent briefs of \
this repository, with what <code>gatehouse check --all</code> finds in them: {{ counts }}.</p>\n\
<h2 id=\"counts\">At a glance</h2>\n<ul class=\"cards\">\n{% for card in cards %}\
<li><a href=\"{{ card.href }}\">{{ card.title }}</a><span class=\"big\">{{ card.count }}</span>{{ card.detail }}</li>\n\
{% endfor %}</ul>\n<h2 id=\"errors\">Documents with errors ({{ failing.len() }})</h2>\n\
{% if failing.is_empty() %}<p class=\"ok\">No document has an error finding.</p>\n\
{% else %}<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Documents whose findings include errors (scrolls sideways)\"><table>\n<caption>Documents whose findings include errors</caption>\n<thead><tr>\
<th scope=\"col\">Document</th><th scope=\"col\">Kind</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n\
{% for row in failing %}<tr><td data-label=\"Document\">{{ row.link|safe }}</td><td data-label=\"Kind\">{{ row.noun }}</td><td data-label=\"Findings\">{{ row.counts }}</td></tr>\n\
{% endfor %}</tbody></table></div>\n{% endif %}\
{% if unclaimed > 0 %}<h2 id=\"other\">Other findings ({{ unclaimed }})</h2>\n<p>Findings about files that have no \
page here (the repository's config, ADRs, files outside the document folders).</p>\n{% endif %}"
)]
struct Index<'a> {
    counts: String,
    cards: Vec<&'a Card>,
    failing: Vec<Failing>,
    unclaimed: usize,
}

pub(super) fn build(families: &[Family], unclaimed: &[&Finding], report: &Report) -> Page {
    let mut page = Page::new("index.html", "Overview");
    let all: Vec<&Finding> = report.findings().collect();
    let mut failing: Vec<&Entry> = families
        .iter()
        .flat_map(|f| &f.entries)
        .filter(|e| e.findings.iter().any(|f| f.severity == Severity::Error))
        .collect();
    failing.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
    let failing = failing
        .into_iter()
        .map(|entry| Failing {
            link: page.link(&entry.page, &entry.path),
            noun: entry.kind.noun(),
            counts: html::counts(&entry.findings),
        })
        .collect();
    page.put(&Index {
        counts: html::counts(&all),
        cards: families.iter().map(|f| &f.card).collect(),
        failing,
        unclaimed: unclaimed.len(),
    });
    if !unclaimed.is_empty() {
        html::findings_list(&mut page, unclaimed);
    }
    page
}
