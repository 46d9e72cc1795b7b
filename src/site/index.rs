//! The site's front page: counts per family, the documents with error
//! findings (linked to their pages), and findings about no one document.

use std::fmt::Write as _;

use super::html::{self, Page, esc};
use super::{Entry, Family};
use crate::model::{Finding, Report, Severity};

pub fn build(families: &[Family], unclaimed: &[&Finding], report: &Report) -> Page {
    let mut page = Page::new("index.html", "Overview");
    page.push("<h1>Governed documents</h1>\n");
    let all: Vec<&Finding> = report.findings().collect();
    let _ = writeln!(
        page.body,
        "<p class=\"lede\">Decisions, standards ledgers, specs and agent briefs of this repository, with what \
<code>gatehouse check --all</code> finds in them: {}.</p>",
        esc(&html::counts(&all))
    );
    page.push("<h2 id=\"counts\">At a glance</h2>\n<ul class=\"cards\">\n");
    for family in families {
        let card = &family.card;
        let _ = writeln!(
            page.body,
            "<li><a href=\"{}\">{}</a><span class=\"big\">{}</span>{}</li>",
            card.href,
            card.title,
            card.count,
            esc(&card.detail)
        );
    }
    page.push("</ul>\n");
    let mut failing: Vec<&Entry> = families
        .iter()
        .flat_map(|f| &f.entries)
        .filter(|e| e.findings.iter().any(|f| f.severity == Severity::Error))
        .collect();
    failing.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
    let _ = writeln!(page.body, "<h2 id=\"errors\">Documents with errors ({})</h2>", failing.len());
    if failing.is_empty() {
        page.push("<p class=\"ok\">No document has an error finding.</p>\n");
    } else {
        page.push(
            "<div class=\"table\"><table>\n<caption>Documents whose findings include errors</caption>\n<thead><tr>\
<th scope=\"col\">Document</th><th scope=\"col\">Kind</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n",
        );
        for entry in failing {
            let _ = writeln!(
                page.body,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                page.link(&entry.page, &entry.path),
                entry.kind.noun(),
                esc(&html::counts(&entry.findings))
            );
        }
        page.push("</tbody></table></div>\n");
    }
    if !unclaimed.is_empty() {
        let _ = writeln!(page.body, "<h2 id=\"other\">Other findings ({})</h2>", unclaimed.len());
        page.push("<p>Findings about files that have no page here (the repository's config, ADRs, files outside the document folders).</p>\n");
        html::findings_list(&mut page, unclaimed);
    }
    page
}
