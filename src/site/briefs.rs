//! Agent briefs (ADR-099): every brief with its agent, repositories, lines
//! estimate, whether it needs brief-PR review (the threshold the
//! `brief/review-required` rule applies), and its findings.

use std::fmt::Write as _;

use super::html::{self, Page, esc};
use super::{Card, Context, Entry, Family, Kind};
use crate::config::PathFilter;
use crate::docs::brief::Brief;
use crate::rules::brief::review_reasons;

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
    Unknown,
}

pub fn build<'a>(cx: &mut Context<'a>) -> Family<'a> {
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
        let _ = write!(
            page.body,
            "<h1>{}</h1>\n<p class=\"lede\">Agent brief <code>{}</code></p>\n",
            esc(&title),
            esc(path)
        );
        let row = match &brief {
            Some(brief) => {
                let review = match review_reasons(brief, threshold) {
                    Some(reasons) if reasons.is_empty() => Review::Exempt,
                    Some(reasons) => Review::Required(reasons.join(" and ")),
                    None => Review::Unknown,
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
                page.push("<p>This file could not be read as text; its findings say why.</p>\n");
                Row {
                    path: path.clone(),
                    page: page_path.clone(),
                    title: title.clone(),
                    agent: "—".into(),
                    repos: String::new(),
                    lines: "—".into(),
                    review: Review::Unknown,
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

fn review_text(review: &Review) -> String {
    match review {
        Review::Required(why) => format!("<span class=\"badge human\">required</span> {}", esc(why)),
        Review::Exempt => "not required (operator's call)".to_string(),
        Review::Unknown => {
            "unknown: <code>lines_estimate</code> or <code>repos_touched</code> is not well-formed".into()
        }
    }
}

fn facts(page: &mut Page, brief: &Brief, row: &Row) {
    let list = |name: &str| -> String {
        let items = brief.strings(name);
        if items.is_empty() {
            return "—".to_string();
        }
        let items: Vec<String> = items.iter().map(|(s, _)| format!("<li>{}</li>", esc(s))).collect();
        format!("<ul>{}</ul>", items.join(""))
    };
    let repos = if row.repos.is_empty() { "—".to_string() } else { esc(&row.repos) };
    let _ = write!(
        page.body,
        "<dl class=\"facts\">\n<dt>Agent</dt><dd><code>{}</code></dd>\n<dt>Repositories</dt><dd>{repos}</dd>\n\
<dt>Lines estimate</dt><dd>{}</dd>\n<dt>Brief-PR review</dt><dd>{}</dd>\n<dt>ADRs referenced</dt><dd>{}</dd>\n</dl>\n",
        esc(&row.agent),
        esc(&row.lines),
        review_text(&row.review),
        list("adrs_referenced"),
    );
    let _ = write!(
        page.body,
        "<h2>Success criteria</h2>\n{}\n<h2>Out of scope</h2>\n{}\n",
        list("success_criteria"),
        list("out_of_scope")
    );
}

fn overview(rows: &[Row], threshold: crate::config::Threshold) -> Page {
    let mut page = Page::new("briefs/index.html", "Briefs");
    let _ = write!(
        page.body,
        "<h1>Agent briefs</h1>\n<p class=\"lede\">ADR-099: a brief over {} lines or touching more than {} needs \
brief-PR review before an agent acts on it.</p>\n",
        threshold.lines,
        if threshold.repos == 1 { "1 repository".to_string() } else { format!("{} repositories", threshold.repos) }
    );
    if rows.is_empty() {
        page.push("<p>No briefs under the configured paths.</p>\n");
        return page;
    }
    page.push(
        "<div class=\"table\"><table>\n<caption>Every brief</caption>\n<thead><tr><th scope=\"col\">Brief</th>\
<th scope=\"col\">Agent</th><th scope=\"col\">Repositories</th><th scope=\"col\" class=\"num\">Lines</th>\
<th scope=\"col\">Brief-PR review</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n",
    );
    for row in rows {
        let _ = writeln!(
            page.body,
            "<tr><td>{}<br><code class=\"where\">{}</code></td><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            page.link(&row.page, &row.title),
            esc(&row.path),
            esc(&row.agent),
            esc(&row.repos),
            esc(&row.lines),
            review_text(&row.review),
            esc(&row.counts)
        );
    }
    page.push("</tbody></table></div>\n");
    page
}
