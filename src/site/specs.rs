//! Spec folders (fondue `spec` v9): each spec's place on the stage path,
//! its review rounds with their verdicts, and its open audit findings.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::html::{self, Page, esc};
use super::{Card, Context, Entry, Family, Kind, chart};
use crate::docs::spec::review::{self, AnswerKind, Kind as FileKind};
use crate::docs::spec::state::{Part, State, Topic};
use crate::rules::spec::{ReviewEntry, Spec, SpecView};

struct Row {
    root: String,
    page: String,
    title: String,
    state: String,
    rounds: usize,
    open_audit: usize,
    counts: String,
}

/// Where a state sits on the stage path, and whether the spec was abandoned.
fn stage(state: State) -> (Option<usize>, bool) {
    match state {
        State::Brief => (Some(0), false),
        State::PrePlan(_) => (Some(1), false),
        State::Plan(_) => (Some(2), false),
        State::Implementation(..) => (Some(3), false),
        State::Audit(..) => (Some(4), false),
        State::HandoverUpdate(_) | State::Handover => (Some(5), false),
        State::Done => (Some(6), false),
        State::Abandoned => (None, true),
    }
}

/// Review topics in the order the stages run them.
fn topic_rank(dir: &str) -> (u32, String) {
    let rank = match Topic::parse_dir(dir) {
        Some(Topic::PrePlan) => 0,
        Some(Topic::Plan) => 1,
        Some(Topic::Phase(nn)) => 1 + u32::from(nn),
        Some(Topic::Audit(Part::Tests)) => 200,
        Some(Topic::Audit(Part::Conventions)) => 201,
        Some(Topic::Audit(Part::Fixes)) => 202,
        Some(Topic::Handover) => 300,
        None => 400,
    };
    (rank, dir.to_string())
}

pub fn build<'a>(cx: &mut Context<'a>) -> Family<'a> {
    let view = SpecView::new(cx.changes);
    let mut pages = Vec::new();
    let mut entries = Vec::new();
    let mut rows = Vec::new();
    for spec in view.specs.iter().filter(|s| !s.deleted) {
        let name = spec.root.rsplit('/').next().unwrap_or(&spec.root);
        let label = if spec.archived { format!("archive-{name}") } else { name.to_string() };
        let page_path = cx.page_path("specs", &label);
        let findings = cx.findings_under(&spec.root);
        let title = spec
            .text("pre-plan/00-brief.md")
            .and_then(|t| t.lines().find_map(|l| l.strip_prefix("# ")))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(name)
            .to_string();
        let state = match &spec.state {
            Some(Ok(state)) => state.to_string(),
            Some(Err(e)) => format!("malformed (line {}: {})", e.line, e.message),
            None => "no current-state.txt".to_string(),
        };
        let mut page = Page::new(page_path.clone(), format!("Spec {name}"));
        let _ = write!(
            page.body,
            "<h1>{}</h1>\n<p class=\"lede\">Spec folder <code>{}</code>{}</p>\n",
            esc(&title),
            esc(&spec.root),
            if spec.archived { " (archived)" } else { "" }
        );
        let (current, abandoned) = spec.state().map_or((None, false), stage);
        let _ = write!(
            page.body,
            "<dl class=\"facts\">\n<dt>Current state</dt><dd><code>{}</code></dd>\n<dt>Attempt</dt><dd>{}</dd>\n<dt>Phases planned</dt><dd>{}</dd>\n</dl>\n<figure>\n",
            esc(&state),
            spec.attempt,
            spec.last_phase.map_or("—".to_string(), |n| n.to_string())
        );
        chart::stages(&mut page.body, "stages", current, &state, abandoned);
        page.push(
            "\n<figcaption>The v9 stage path; the current stage is the large filled circle.</figcaption>\n</figure>\n",
        );
        html::findings_section(&mut page, &findings);
        let rounds = review_rounds(&mut page, spec);
        let open_audit = audit_findings(&mut page, spec);
        pages.push(page);
        rows.push(Row {
            root: spec.root.clone(),
            page: page_path.clone(),
            title,
            state,
            rounds,
            open_audit,
            counts: html::counts(&findings),
        });
        entries.push(Entry { kind: Kind::Spec, path: spec.root.clone(), page: page_path, findings });
    }
    let open: usize = rows.iter().filter(|r| !matches!(r.state.as_str(), "done" | "abandoned")).count();
    pages.push(overview(&rows));
    let card = Card {
        title: "Specs",
        href: "specs/index.html",
        count: rows.len(),
        detail: format!("{open} not done or abandoned"),
    };
    Family { pages, entries, card }
}

/// The review folders of the live attempt, a table each; returns how many
/// review files (rounds) there are.
fn review_rounds(page: &mut Page, spec: &Spec) -> usize {
    page.push("<h2 id=\"reviews\">Review rounds</h2>\n");
    let mut topics: Vec<(&&str, &Vec<ReviewEntry>)> = spec.reviews.iter().collect();
    topics.sort_by_key(|(dir, _)| topic_rank(dir));
    if topics.is_empty() {
        page.push("<p>No review has been opened.</p>\n");
        return 0;
    }
    let mut rounds = 0;
    for (dir, files) in topics {
        let _ = write!(
            page.body,
            "<h3><code>review/{}/</code></h3>\n<div class=\"table\"><table>\n<caption>Files of review/{}/</caption>\n<thead><tr>\
<th scope=\"col\">File</th><th scope=\"col\">Kind</th><th scope=\"col\">Verdict</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n",
            esc(dir),
            esc(dir)
        );
        let mut files: Vec<&ReviewEntry> = files.iter().collect();
        files.sort_by_key(|e| (e.numbered.map_or(u32::MAX, |(n, _)| n), e.name));
        for entry in files {
            rounds += usize::from(matches!(entry.numbered, Some((_, FileKind::Review))));
            let kind = entry.numbered.map_or("—", |(_, k)| k.as_str());
            let verdict = match entry.doc.verdict() {
                Some(v) => {
                    let word = match v.kind {
                        Some(k) => k.word().to_string(),
                        None => format!("{} (not a verdict word)", v.word),
                    };
                    format!("<strong>{}</strong> {}", esc(&word), esc(&v.subject))
                }
                None => "—".to_string(),
            };
            let findings = &entry.doc.findings;
            let blockers = findings.iter().filter(|f| f.is_blocker()).count();
            let found = match (findings.len(), blockers) {
                (0, _) => "—".to_string(),
                (n, 0) => n.to_string(),
                (n, b) => format!("{n} ({b} Blocker)"),
            };
            let _ = writeln!(
                page.body,
                "<tr><td><code>{}</code></td><td>{kind}</td><td>{verdict}</td><td>{}</td></tr>",
                esc(entry.name),
                esc(&found)
            );
        }
        page.push("</tbody></table></div>\n");
    }
    rounds
}

/// The findings of `audit/findings.md` that no `audit-fixes` request marks
/// fixed, challenged or declined; returns how many are open.
fn audit_findings(page: &mut Page, spec: &Spec) -> usize {
    page.push("<h2 id=\"audit\">Open audit findings</h2>\n");
    let Some(text) = spec.text("audit/findings.md") else {
        page.push(
            "<p>No <code>audit/findings.md</code>: the auditors found nothing they could not fix themselves.</p>\n",
        );
        return 0;
    };
    let audit = review::parse(text);
    let mut answered: BTreeMap<u32, &'static str> = BTreeMap::new();
    for entry in spec.reviews.get("audit-fixes").into_iter().flatten() {
        for answer in &entry.doc.answers {
            let word = match answer.kind {
                Some(AnswerKind::Fixed | AnswerKind::Accepted | AnswerKind::AcceptedDifferently) => "fixed",
                Some(AnswerKind::Challenged) => "challenged",
                Some(AnswerKind::DeclinedNit) => "declined (Nit)",
                _ => continue,
            };
            answered.insert(answer.id, word);
        }
    }
    let open: Vec<&review::Finding> = audit.findings.iter().filter(|f| !answered.contains_key(&f.id)).collect();
    let closed = audit.findings.len() - open.len();
    if open.is_empty() {
        let _ = writeln!(
            page.body,
            "<p>None open; {} answered in <code>review/audit-fixes/</code>.</p>",
            html::plural(closed, "finding")
        );
        return 0;
    }
    page.push(
        "<div class=\"table\"><table>\n<caption>Entries of audit/findings.md without an answer</caption>\n<thead><tr>\
<th scope=\"col\" class=\"num\">Id</th><th scope=\"col\">Title</th><th scope=\"col\">Severity</th><th scope=\"col\" class=\"num\">Line</th></tr></thead>\n<tbody>\n",
    );
    for f in &open {
        let severity = f.severity.as_ref().map_or("—", |(s, _)| s.as_str());
        let _ = writeln!(
            page.body,
            "<tr><td class=\"num\">#{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            f.id,
            esc(&f.title),
            esc(severity),
            f.line
        );
    }
    page.push("</tbody></table></div>\n");
    if closed > 0 {
        let _ = writeln!(
            page.body,
            "<p>{} more answered in <code>review/audit-fixes/</code>.</p>",
            html::plural(closed, "finding")
        );
    }
    open.len()
}

fn overview(rows: &[Row]) -> Page {
    let mut page = Page::new("specs/index.html", "Specs");
    let _ = write!(
        page.body,
        "<h1>Spec folders</h1>\n<p class=\"lede\">fondue <code>spec</code> v9: {}, then <code>done</code> \
(or <code>abandoned</code>).</p>\n",
        chart::STAGES[..6].join(" → ")
    );
    if rows.is_empty() {
        page.push("<p>No spec folders under the configured paths.</p>\n");
        return page;
    }
    page.push(
        "<div class=\"table\"><table>\n<caption>Every spec</caption>\n<thead><tr><th scope=\"col\">Spec</th>\
<th scope=\"col\">State</th><th scope=\"col\" class=\"num\">Review rounds</th><th scope=\"col\" class=\"num\">Open audit findings</th>\
<th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n",
    );
    for row in rows {
        let _ = writeln!(
            page.body,
            "<tr><td>{}<br><code class=\"where\">{}</code></td><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            page.link(&row.page, &row.title),
            esc(&row.root),
            esc(&row.state),
            row.rounds,
            row.open_audit,
            esc(&row.counts)
        );
    }
    page.push("</tbody></table></div>\n");
    page
}
