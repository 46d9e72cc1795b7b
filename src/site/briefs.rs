//! Agent briefs (ADR-099): every brief with its agent, repositories, lines
//! estimate, whether it needs brief-PR review (the threshold the
//! `brief/review-required` rule applies), and its findings.

use askama::Template;

use super::html::{self, Page};
use super::{Card, Context, Entry, Family, Kind};
use crate::config::PathFilter;
use crate::docs::brief::Brief;
use crate::rules::brief::{review_reasons, undecided_by};

/// What the overview shows of one brief.
struct Row {
    path: String,
    page: String,
    title: String,
    agent: String,
    repos: String,
    lines: String,
    review: Review,
    counts: String,
}

enum Review {
    Required(String),
    Exempt,
    /// The fields that keep it from being decided (inline markdown).
    Undecided(String),
}

pub(super) fn build<'a>(cx: &mut Context<'a>) -> Family<'a> {
    let changes = cx.changes;
    let filter = PathFilter::globs(&changes.config.briefs.paths);
    let threshold = changes.config.briefs.review_threshold;
    let mut pages = Vec::new();
    let mut entries = Vec::new();
    let mut rows = Vec::new();
    for (path, content) in filter.select(&changes.head) {
        let findings = cx.findings(path);
        let name = path.rsplit('/').next().unwrap_or(path);
        let page_path = cx.page_path("briefs", name.strip_suffix(".md").unwrap_or(name));
        let brief = content.text().map(|text| Brief::parse(path, text));
        let title = brief
            .as_ref()
            .and_then(|b| b.markdown.headings.iter().find(|h| h.level == 1))
            .map_or_else(|| name.to_string(), |h| h.text.clone());
        let mut page = Page::new(page_path.clone(), format!("Brief {title}"));
        page.put(&Heading { title: &title, path });
        let row = match &brief {
            Some(brief) => {
                let review = match review_reasons(brief, threshold) {
                    Some(reasons) if reasons.is_empty() => Review::Exempt,
                    Some(reasons) => Review::Required(reasons.join(" and ")),
                    None => Review::Undecided(undecided_by(brief).join(" and ")),
                };
                let row = Row {
                    path: path.clone(),
                    page: page_path.clone(),
                    title: title.clone(),
                    agent: brief.agent().unwrap_or("—").to_string(),
                    repos: brief.repos().join(", "),
                    lines: brief.lines_estimate().map_or("—".to_string(), |n| n.to_string()),
                    review,
                    counts: html::counts(&findings),
                };
                facts(&mut page, brief, &row);
                row
            }
            None => {
                page.put(&Unreadable);
                Row {
                    path: path.clone(),
                    page: page_path.clone(),
                    title: title.clone(),
                    agent: "—".into(),
                    repos: String::new(),
                    lines: "—".into(),
                    review: Review::Undecided("the file is not text".into()),
                    counts: html::counts(&findings),
                }
            }
        };
        html::findings_section(&mut page, &findings);
        pages.push(page);
        rows.push(row);
        entries.push(Entry { kind: Kind::Brief, path: path.clone(), page: page_path, findings });
    }
    let required = rows.iter().filter(|r| matches!(r.review, Review::Required(_))).count();
    pages.push(overview(&rows, threshold));
    let card = Card {
        title: "Briefs",
        href: "briefs/index.html",
        count: rows.len(),
        detail: format!("{required} need brief-PR review"),
    };
    Family { pages, entries, card }
}

#[derive(Template)]
#[template(ext = "html", source = "<h1>{{ title }}</h1>\n<p class=\"lede\">Agent brief <code>{{ path }}</code></p>\n")]
struct Heading<'a> {
    title: &'a str,
    path: &'a str,
}

#[derive(Template)]
#[template(ext = "html", source = "<p>This file could not be read as text; its findings say why.</p>\n")]
struct Unreadable;

/// Whether a brief needs brief-PR review, and why.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% match review %}{% when Review::Required(why) %}<span class=\"badge human\">required</span> {{ why }}\
{% when Review::Exempt %}not required (operator's call)\
{% when Review::Undecided(why) %}undecided: {{ crate::site::markdown::inline(why)|safe }}\
{% endmatch %}"
)]
struct ReviewText<'a> {
    review: &'a Review,
}

/// A list field of the brief (inline markdown each), or `—` when it is empty.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% if items.is_empty() %}—{% else %}<ul>{% for item in items %}<li>{{ crate::site::markdown::inline(item)|safe }}</li>{% endfor %}</ul>{% endif %}"
)]
struct List<'a> {
    items: Vec<&'a str>,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<dl class=\"facts\">\n<dt>Agent</dt><dd><code>{{ row.agent }}</code></dd>\n<dt>Repositories</dt><dd>\
{% if row.repos.is_empty() %}—{% else %}{{ row.repos }}{% endif %}</dd>\n\
<dt>Lines estimate</dt><dd>{{ row.lines }}</dd>\n<dt>Brief-PR review</dt><dd>{{ ReviewText::new(&row.review)|safe }}</dd>\n\
<dt>ADRs referenced</dt><dd>{{ adrs|safe }}</dd>\n</dl>\n\
<h2>Success criteria</h2>\n{{ criteria|safe }}\n<h2>Out of scope</h2>\n{{ out_of_scope|safe }}\n"
)]
struct Facts<'a> {
    row: &'a Row,
    adrs: List<'a>,
    criteria: List<'a>,
    out_of_scope: List<'a>,
}

impl<'a> ReviewText<'a> {
    fn new(review: &'a Review) -> ReviewText<'a> {
        ReviewText { review }
    }
}

fn facts(page: &mut Page, brief: &Brief, row: &Row) {
    let list = |name: &str| List { items: brief.strings(name).into_iter().map(|(item, _)| item).collect() };
    page.put(&Facts {
        row,
        adrs: list("adrs_referenced"),
        criteria: list("success_criteria"),
        out_of_scope: list("out_of_scope"),
    });
}

/// What the overview shows of one brief, with its link.
struct Listed<'a> {
    row: &'a Row,
    link: String,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>Agent briefs</h1>\n<p class=\"lede\">ADR-099: a brief over {{ lines }} lines or touching more than \
{{ repos }} needs brief-PR review before an agent acts on it.</p>\n\
{% if rows.is_empty() %}<p>No briefs under the configured paths.</p>\n{% else %}\
<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Every brief (scrolls sideways)\"><table>\n<caption>Every brief</caption>\n<thead><tr><th scope=\"col\">Brief</th>\
<th scope=\"col\">Agent</th><th scope=\"col\">Repositories</th><th scope=\"col\" class=\"num\">Lines</th>\
<th scope=\"col\">Brief-PR review</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n\
{% for listed in rows %}{% let row = listed.row %}<tr><td data-label=\"Brief\">{{ listed.link|safe }}<br><code class=\"where\">{{ row.path }}</code></td>\
<td data-label=\"Agent\"><code>{{ row.agent }}</code></td><td data-label=\"Repositories\">{{ row.repos }}</td><td class=\"num\" data-label=\"Lines\">{{ row.lines }}</td>\
<td data-label=\"Brief-PR review\">{{ ReviewText::new(&row.review)|safe }}</td><td data-label=\"Findings\">{{ row.counts }}</td></tr>\n\
{% endfor %}</tbody></table></div>\n{% endif %}"
)]
struct Overview<'a> {
    lines: u64,
    repos: String,
    rows: Vec<Listed<'a>>,
}

fn overview(rows: &[Row], threshold: crate::config::Threshold) -> Page {
    let mut page = Page::new("briefs/index.html", "Briefs");
    let rows = rows.iter().map(|row| Listed { row, link: page.link(&row.page, &row.title) }).collect();
    page.put(&Overview {
        lines: threshold.lines,
        repos: if threshold.repos == 1 {
            "1 repository".to_string()
        } else {
            format!("{} repositories", threshold.repos)
        },
        rows,
    });
    page
}
