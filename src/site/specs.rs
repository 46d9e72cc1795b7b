//! Spec folders (fondue `spec` v9): each spec's place on the stage path,
//! its review rounds with their verdicts, and its open audit findings.

use std::collections::BTreeMap;

use askama::Template;

use super::html::{self, Page};
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
    (state.stage(), state == State::Abandoned)
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

pub(super) fn build<'a>(cx: &mut Context<'a>) -> Family<'a> {
    let view = SpecView::new(cx.changes);
    let mut pages = Vec::new();
    let mut entries = Vec::new();
    let mut rows = Vec::new();
    for spec in view.specs.iter().filter(|s| !s.deleted) {
        let name = spec.name();
        let label = if spec.archived { format!("archive-{name}") } else { name.to_string() };
        let page_path = cx.page_path("specs", &label);
        let findings = cx.findings_under(&spec.root);
        let title = spec.title().unwrap_or(name).to_string();
        let state = match &spec.state {
            Some(Ok(state)) => state.to_string(),
            Some(Err(e)) => format!("malformed (line {}: {})", e.line, e.message),
            None => "no current-state.txt".to_string(),
        };
        let mut page = Page::new(page_path.clone(), format!("Spec {name}"));
        let (current, abandoned) = spec.state().map_or((None, false), stage);
        page.put(&Heading {
            title: &title,
            root: &spec.root,
            archived: spec.archived,
            state: &state,
            attempt: spec.attempt,
            phases: spec.last_phase.map_or("—".to_string(), |n| n.to_string()),
            chart: chart::Stages::new("stages", current, &state, abandoned),
        });
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

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>{{ title }}</h1>\n<p class=\"lede\">Spec folder <code>{{ root }}</code>{% if archived %} (archived){% endif %}</p>\n\
<dl class=\"facts\">\n<dt>Current state</dt><dd><code>{{ state }}</code></dd>\n<dt>Attempt</dt><dd>{{ attempt }}</dd>\n\
<dt>Phases planned</dt><dd>{{ phases }}</dd>\n</dl>\n<figure>\n{{ chart|safe }}\n<figcaption>The v9 stage path; the \
current stage is the large filled circle.</figcaption>\n</figure>\n"
)]
struct Heading<'a> {
    title: &'a str,
    root: &'a str,
    archived: bool,
    state: &'a str,
    attempt: u8,
    phases: String,
    chart: chart::Stages<'a>,
}

/// A file of a review folder.
struct ReviewFile<'a> {
    name: &'a str,
    kind: &'static str,
    /// The verdict word and its subject.
    verdict: Option<(String, &'a str)>,
    found: String,
}

/// The review folders of the live attempt, a table each.
#[derive(Template)]
#[template(
    ext = "html",
    source = "<h2 id=\"reviews\">Review rounds</h2>\n{% if topics.is_empty() %}<p>No review has been opened.</p>\n\
{% else %}{% for (dir, files) in topics %}<h3><code>review/{{ dir }}/</code></h3>\n\
<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Files of review/{{ dir }}/ (scrolls sideways)\"><table>\n\
<caption>Files of review/{{ dir }}/</caption>\n<thead><tr><th scope=\"col\">File</th><th scope=\"col\">Kind</th>\
<th scope=\"col\">Verdict</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n\
{% for file in files %}<tr><td data-label=\"File\"><code>{{ file.name }}</code></td><td data-label=\"Kind\">{{ file.kind }}</td><td data-label=\"Verdict\">\
{% if let Some((word, subject)) = file.verdict %}<strong>{{ word }}</strong> {{ subject }}{% else %}—{% endif %}</td>\
<td data-label=\"Findings\">{{ file.found }}</td></tr>\n{% endfor %}</tbody></table></div>\n{% endfor %}{% endif %}"
)]
struct ReviewRounds<'a> {
    topics: Vec<(&'a str, Vec<ReviewFile<'a>>)>,
}

/// The review folders of the live attempt, a table each; returns how many
/// review files (rounds) there are.
fn review_rounds(page: &mut Page, spec: &Spec) -> usize {
    let mut topics: Vec<(&&str, &Vec<ReviewEntry>)> = spec.reviews.iter().collect();
    topics.sort_by_key(|(dir, _)| topic_rank(dir));
    let mut rounds = 0;
    let mut tables = Vec::new();
    for (dir, files) in topics {
        let mut files: Vec<&ReviewEntry> = files.iter().collect();
        files.sort_by_key(|e| (e.numbered.map_or(u32::MAX, |(n, _)| n), e.name));
        let mut rows = Vec::new();
        for entry in files {
            rounds += usize::from(matches!(entry.numbered, Some((_, FileKind::Review))));
            let verdict = entry.doc.verdict().map(|v| {
                let word = match v.kind {
                    Some(k) => k.word().to_string(),
                    None => format!("{} (not a verdict word)", v.word),
                };
                (word, v.subject.as_str())
            });
            let findings = &entry.doc.findings;
            let blockers = findings.iter().filter(|f| f.is_blocker()).count();
            let found = match (findings.len(), blockers) {
                (0, _) => "—".to_string(),
                (n, 0) => n.to_string(),
                (n, b) => format!("{n} ({b} Blocker)"),
            };
            rows.push(ReviewFile {
                name: entry.name,
                kind: entry.numbered.map_or("—", |(_, k)| k.as_str()),
                verdict,
                found,
            });
        }
        tables.push((*dir, rows));
    }
    page.put(&ReviewRounds { topics: tables });
    rounds
}

/// An entry of `audit/findings.md` without an answer.
struct OpenFinding<'a> {
    id: u32,
    title: &'a str,
    severity: &'a str,
    line: u32,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h2 id=\"audit\">Open audit findings</h2>\n{% match audit %}\
{% when Audit::Missing %}<p>No <code>audit/findings.md</code>: the auditors found nothing they could not fix themselves.</p>\n\
{% when Audit::AllAnswered(closed) %}<p>None open; {{ closed }} answered in <code>review/audit-fixes/</code>.</p>\n\
{% when Audit::Open(open, closed) %}<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Entries of audit/findings.md \
without an answer (scrolls sideways)\"><table>\n<caption>Entries of audit/findings.md without an answer\
</caption>\n<thead><tr><th scope=\"col\" class=\"num\">Id</th><th scope=\"col\">Title</th><th scope=\"col\">Severity</th>\
<th scope=\"col\" class=\"num\">Line</th></tr></thead>\n<tbody>\n{% for f in open %}<tr><td class=\"num\" data-label=\"Id\">#{{ f.id }}</td>\
<td data-label=\"Title\">{{ f.title }}</td><td data-label=\"Severity\">{{ f.severity }}</td><td class=\"num\" data-label=\"Line\">{{ f.line }}</td></tr>\n{% endfor %}</tbody></table></div>\n\
{% if let Some(closed) = closed %}<p>{{ closed }} more answered in <code>review/audit-fixes/</code>.</p>\n{% endif %}\
{% endmatch %}"
)]
struct AuditFindings<'a> {
    audit: Audit<'a>,
}

enum Audit<'a> {
    Missing,
    /// Every finding answered: how many, as words.
    AllAnswered(String),
    /// The open findings, and how many more are answered (as words) if any.
    Open(Vec<OpenFinding<'a>>, Option<String>),
}

/// The findings of `audit/findings.md` that no `audit-fixes` request marks
/// fixed, challenged or declined; returns how many are open.
fn audit_findings(page: &mut Page, spec: &Spec) -> usize {
    let Some(text) = spec.text("audit/findings.md") else {
        page.put(&AuditFindings { audit: Audit::Missing });
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
    let open: Vec<OpenFinding> = audit
        .findings
        .iter()
        .filter(|f| !answered.contains_key(&f.id))
        .map(|f| OpenFinding {
            id: f.id,
            title: &f.title,
            severity: f.severity.as_ref().map_or("—", |(s, _)| s.as_str()),
            line: f.line,
        })
        .collect();
    let closed = audit.findings.len() - open.len();
    let count = open.len();
    let audit = if open.is_empty() {
        Audit::AllAnswered(html::plural(closed, "finding"))
    } else {
        Audit::Open(open, (closed > 0).then(|| html::plural(closed, "finding")))
    };
    page.put(&AuditFindings { audit });
    count
}

/// A spec on the overview, with its link.
struct Listed<'a> {
    row: &'a Row,
    link: String,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>Spec folders</h1>\n<p class=\"lede\">fondue <code>spec</code> v9: {{ stages }}, then <code>done</code> \
(or <code>abandoned</code>).</p>\n{% if rows.is_empty() %}<p>No spec folders under the configured paths.</p>\n{% else %}\
<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Every spec (scrolls sideways)\"><table>\n<caption>Every spec</caption>\n<thead><tr><th scope=\"col\">Spec</th>\
<th scope=\"col\">State</th><th scope=\"col\" class=\"num\">Review rounds</th><th scope=\"col\" class=\"num\">Open audit \
findings</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n{% for listed in rows %}{% let row = listed.row %}\
<tr><td data-label=\"Spec\">{{ listed.link|safe }}<br><code class=\"where\">{{ row.root }}</code></td><td data-label=\"State\"><code>{{ row.state }}</code></td>\
<td class=\"num\" data-label=\"Review rounds\">{{ row.rounds }}</td><td class=\"num\" data-label=\"Open audit findings\">{{ row.open_audit }}</td><td data-label=\"Findings\">{{ row.counts }}</td></tr>\n\
{% endfor %}</tbody></table></div>\n{% endif %}"
)]
struct Overview<'a> {
    stages: String,
    rows: Vec<Listed<'a>>,
}

fn overview(rows: &[Row]) -> Page {
    let mut page = Page::new("specs/index.html", "Specs");
    let rows = rows.iter().map(|row| Listed { row, link: page.link(&row.page, &row.title) }).collect();
    page.put(&Overview { stages: chart::STAGES[..6].join(" → "), rows });
    page
}
