//! The decision docket (ADR 0007): the queue of open decisions by status,
//! the tier-2 decisions a human sees before enactment, the review feed of
//! resolved and reviewed decisions with their evidence, and a page per
//! decision with its history of states.

use std::fmt::Write as _;

use super::html::{self, Page, esc};
use super::{Card, Context, Entry, Family, Kind};
use crate::docs::decision::Manifest;
use crate::docs::decision::lifecycle::Status;
use crate::docs::json::Json;
use crate::docs::timestamp;
use crate::rules::decision::DecisionView;

/// The statuses of the queue, in lifecycle order: `resolved` is a decision
/// awaiting enactment.
const QUEUE: [(Status, &str); 4] = [
    (Status::Filed, "Filed"),
    (Status::Triaged, "Triaged"),
    (Status::Deliberating, "Deliberating"),
    (Status::Resolved, "Resolved, awaiting enactment"),
];

/// One decision, read from its manifest.
struct Decision<'m> {
    id: String,
    /// The configured decisions folder the manifest sits in.
    folder: &'m str,
    page: String,
    manifest: &'m Manifest<'m>,
    status: Option<Status>,
    tier: Option<i64>,
    filed_at: Option<i64>,
}

impl Decision<'_> {
    fn text(&self, key: &str) -> Option<&str> {
        self.manifest.text_field(key)
    }

    /// The question, else the id (a manifest may lack one).
    fn question(&self) -> &str {
        self.text("question").unwrap_or(&self.id)
    }

    fn block(&self, key: &str) -> Option<&Json> {
        self.manifest.get(key).filter(|v| v.as_object().is_some())
    }

    fn block_text(&self, block: &str, key: &str) -> Option<&str> {
        self.block(block)?.get(key)?.as_str().filter(|s| !s.trim().is_empty())
    }

    fn stakes(&self) -> &str {
        self.text("stakes").unwrap_or("—")
    }

    fn tier_text(&self) -> String {
        self.tier.map_or("—".to_string(), |t| t.to_string())
    }

    /// When the decision last moved: reviewed, else resolved, else filed.
    fn latest(&self) -> Option<i64> {
        [self.block_text("review", "reviewed_at"), self.block_text("resolution", "resolved_at")]
            .into_iter()
            .flatten()
            .find_map(seconds)
            .or(self.filed_at)
    }
}

/// Oldest first: the order a queue is worked in.
fn by_age<'d, 'm>(mut list: Vec<&'d Decision<'m>>) -> Vec<&'d Decision<'m>> {
    list.sort_by_key(|d| (d.filed_at.unwrap_or(i64::MAX), d.id.clone()));
    list
}

fn in_queue(status: Status) -> bool {
    QUEUE.iter().any(|(s, _)| *s == status)
}

fn seconds(text: &str) -> Option<i64> {
    timestamp::parse(text).map(|t| t.seconds)
}

pub fn build<'a>(cx: &mut Context<'a>) -> Family<'a> {
    let view = DecisionView::new(cx.changes);
    let mut entries = Vec::new();
    let mut pages = Vec::new();
    let mut decisions = Vec::new();
    for d in &view.decisions {
        let page = cx.page_path("decisions", d.location.stem);
        decisions.push(Decision {
            id: d.location.stem.to_string(),
            folder: d.location.folder,
            page,
            manifest: &d.head,
            status: d.head.status().map(|(s, _)| s),
            tier: d.head.get("tier").and_then(Json::as_i64),
            filed_at: d.head.text_field("filed_at").and_then(seconds),
        });
    }
    for d in &decisions {
        let body_folder = format!("{}/{}", d.folder, d.id);
        let mut findings = cx.findings(d.manifest.path);
        findings.extend(cx.findings_under(&body_folder));
        let mut page = Page::new(d.page.clone(), format!("Decision {}", d.id));
        decision_page(&mut page, d, &decisions, &body_folder, cx);
        html::findings_section(&mut page, &findings);
        pages.push(page);
        entries.push(Entry { kind: Kind::Decision, path: d.manifest.path.to_string(), page: d.page.clone(), findings });
    }
    for &path in &view.unreadable {
        let name = path.rsplit('/').next().unwrap_or(path);
        let page_path = cx.page_path("decisions", name.strip_suffix(".json").unwrap_or(name));
        let findings = cx.findings(path);
        let mut page = Page::new(page_path.clone(), format!("Decision manifest {name}"));
        let _ = write!(
            page.body,
            "<h1>{}</h1>\n<p class=\"lede\">Decision manifest <code>{}</code></p>\n",
            esc(name),
            esc(path)
        );
        page.push("<p>This file could not be read as text; its findings say why.</p>\n");
        html::findings_section(&mut page, &findings);
        pages.push(page);
        entries.push(Entry { kind: Kind::Decision, path: path.to_string(), page: page_path, findings });
    }
    let open: Vec<&Decision> = decisions.iter().filter(|d| d.status.is_some_and(in_queue)).collect();
    let human = open.iter().filter(|d| d.tier == Some(2)).count();
    pages.push(overview(&decisions, &entries, cx.options.now));
    let card = Card {
        title: "Open decisions",
        href: "decisions/index.html",
        count: open.len(),
        detail: format!("{human} at tier 2 (a human decides); {} manifests in all", entries.len()),
    };
    Family { pages, entries, card }
}

fn queue_table(page: &mut Page, caption: &str, rows: &[&Decision], now: i64) {
    let _ = write!(
        page.body,
        "<div class=\"table\"><table>\n<caption>{}</caption>\n<thead><tr><th scope=\"col\">Question</th>\
<th scope=\"col\" class=\"num\">Tier</th><th scope=\"col\">Stakes</th><th scope=\"col\">Status</th>\
<th scope=\"col\" class=\"num\">Age</th></tr></thead>\n<tbody>\n",
        esc(caption)
    );
    for d in rows {
        let age = d.filed_at.map_or("—".to_string(), |t| html::age(t, now));
        let tier = if d.tier == Some(2) {
            "2 <span class=\"badge human\">human</span>".to_string()
        } else {
            esc(&d.tier_text())
        };
        let _ = writeln!(
            page.body,
            "<tr><td>{}<br><code class=\"where\">{}</code></td><td class=\"num\">{tier}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            page.link(&d.page, d.question()),
            esc(&d.id),
            esc(d.stakes()),
            d.status.map_or("—", Status::name),
            esc(&age)
        );
    }
    page.push("</tbody></table></div>\n");
}

fn overview(decisions: &[Decision], entries: &[Entry], now: i64) -> Page {
    let mut page = Page::new("decisions/index.html", "Decisions");
    page.push(
        "<h1>Decision docket</h1>\n<p class=\"lede\">ADR 0007: decisions are filed, triaged, deliberated and \
resolved with evidence; the agent acts on a resolution at once and review samples it afterwards. Tier-2 \
decisions are the ones a human sees before enactment.</p>\n",
    );
    let human = by_age(decisions.iter().filter(|d| d.tier == Some(2) && d.status.is_some_and(in_queue)).collect());
    page.push("<h2 id=\"human\">Needs a human first (tier 2)</h2>\n");
    if human.is_empty() {
        page.push("<p>No open tier-2 decision.</p>\n");
    } else {
        queue_table(&mut page, "Open tier-2 decisions, oldest first", &human, now);
    }
    page.push("<h2 id=\"queue\">Queue</h2>\n");
    for (status, name) in QUEUE {
        let rows = by_age(decisions.iter().filter(|d| d.status == Some(status)).collect());
        let _ = writeln!(page.body, "<h3 id=\"{}\">{name} ({})</h3>", status.name(), rows.len());
        if rows.is_empty() {
            page.push("<p>None.</p>\n");
        } else {
            queue_table(&mut page, &format!("{name}, oldest first"), &rows, now);
        }
    }
    feed(&mut page, decisions);
    let closed: Vec<&Decision> =
        decisions.iter().filter(|d| matches!(d.status, Some(Status::Superseded | Status::Wontfix))).collect();
    let _ = writeln!(page.body, "<h2 id=\"closed\">Closed without a resolution ({})</h2>", closed.len());
    if closed.is_empty() {
        page.push("<p>None.</p>\n");
    } else {
        page.push("<ul>\n");
        for d in closed {
            let why = match d.status {
                Some(Status::Superseded) => d.text("superseded_by").map(|s| format!("superseded by {s}")),
                _ => d.text("wontfix_reason").map(|s| format!("won't fix: {s}")),
            };
            let _ = writeln!(
                page.body,
                "<li>{} — {}</li>",
                page.link(&d.page, d.question()),
                esc(&why.unwrap_or_else(|| d.status.map_or("", Status::name).to_string()))
            );
        }
        page.push("</ul>\n");
    }
    let unplaced: Vec<&Entry> = entries
        .iter()
        .filter(|e| decisions.iter().find(|d| d.page == e.page).is_none_or(|d| d.status.is_none()))
        .collect();
    if !unplaced.is_empty() {
        let _ =
            writeln!(page.body, "<h2 id=\"unplaced\">Manifests without a valid status ({})</h2>\n<ul>", unplaced.len());
        for e in unplaced {
            let _ =
                writeln!(page.body, "<li>{} — {}</li>", page.link(&e.page, &e.path), esc(&html::counts(&e.findings)));
        }
        page.push("</ul>\n");
    }
    page
}

/// Resolved and reviewed decisions, newest first, with their evidence.
fn feed(page: &mut Page, decisions: &[Decision]) {
    let mut feed: Vec<&Decision> = decisions.iter().filter(|d| d.status.is_some_and(Status::is_resolved)).collect();
    feed.sort_by_key(|d| (std::cmp::Reverse(d.latest()), d.id.clone()));
    let _ = writeln!(page.body, "<h2 id=\"feed\">Review feed ({})</h2>", feed.len());
    if feed.is_empty() {
        page.push("<p>No resolved decision yet.</p>\n");
        return;
    }
    page.push("<p>Resolved and reviewed decisions, the most recent first.</p>\n");
    for d in feed {
        let _ = write!(page.body, "<article>\n<h3>{}</h3>\n", page.link(&d.page, d.question()));
        let when = d.latest().map_or("—".to_string(), html::utc);
        let _ = writeln!(
            page.body,
            "<p><span class=\"badge\">{}</span> tier {} · stakes {} · {}</p>",
            d.status.map_or("", Status::name),
            esc(&d.tier_text()),
            esc(d.stakes()),
            esc(&when)
        );
        resolution(page, d);
        review(page, d);
        page.push("</article>\n");
    }
}

fn resolution(page: &mut Page, d: &Decision) {
    let Some(block) = d.block("resolution") else { return };
    if let Some(text) = d.block_text("resolution", "recommendation") {
        let _ = writeln!(page.body, "<p><strong>Recommendation:</strong> {}</p>", esc(text));
    }
    let evidence: Vec<&str> =
        block.get("evidence").and_then(Json::as_array).unwrap_or(&[]).iter().filter_map(Json::as_str).collect();
    if evidence.is_empty() {
        page.push("<p><strong>Evidence:</strong> none cited.</p>\n");
    } else {
        page.push("<p><strong>Evidence:</strong></p>\n<ul class=\"evidence\">\n");
        for e in evidence {
            match html::external_href(e) {
                Some(href) => {
                    let _ = writeln!(page.body, "<li><a href=\"{href}\" rel=\"noreferrer\">{}</a></li>", esc(e));
                }
                None => {
                    let _ = writeln!(page.body, "<li><code>{}</code></li>", esc(e));
                }
            }
        }
        page.push("</ul>\n");
    }
}

fn review(page: &mut Page, d: &Decision) {
    if d.block("review").is_none() {
        return;
    }
    let verdict = d.block_text("review", "verdict").unwrap_or("—");
    let _ = write!(page.body, "<p><strong>Review:</strong> {}", esc(verdict));
    if let Some(note) = d.block_text("review", "note") {
        let _ = write!(page.body, " — {}", esc(note));
    }
    page.push("</p>\n");
}

fn decision_page(page: &mut Page, d: &Decision, all: &[Decision], body_folder: &str, cx: &Context) {
    let now = cx.options.now;
    let _ = write!(
        page.body,
        "<h1>{}</h1>\n<p class=\"lede\">Decision <code>{}</code></p>\n",
        esc(d.question()),
        esc(d.manifest.path)
    );
    let row = |name: &str, value: String| format!("<dt>{name}</dt><dd>{value}</dd>\n");
    let mut facts = String::new();
    facts.push_str(&row("Id", format!("<code>{}</code>", esc(&d.id))));
    facts.push_str(&row("Status", esc(d.status.map_or("(no valid status)", Status::name))));
    let tier = if d.tier == Some(2) { "2 — a human decides before enactment".to_string() } else { d.tier_text() };
    facts.push_str(&row("Tier", esc(&tier)));
    facts.push_str(&row("Stakes", esc(d.stakes())));
    let filed = match (d.text("filed_at"), d.filed_at) {
        (Some(text), Some(at)) => format!("{} ({} ago)", esc(text), esc(&html::age(at, now))),
        (Some(text), None) => esc(text),
        _ => "—".into(),
    };
    facts.push_str(&row("Filed", filed));
    for (key, name) in [
        ("filed_by", "Filed by"),
        ("claimed_by", "Claimed by"),
        ("council_id", "Council"),
        ("wontfix_reason", "Won't fix because"),
    ] {
        if let Some(text) = d.text(key) {
            facts.push_str(&row(name, esc(text)));
        }
    }
    if let Some(next) = d.text("superseded_by") {
        let value = match all.iter().find(|o| o.id == next) {
            Some(other) => page.link(&other.page, next),
            None => format!("<code>{}</code>", esc(next)),
        };
        facts.push_str(&row("Superseded by", value));
    }
    let _ = write!(page.body, "<dl class=\"facts\">\n{facts}</dl>\n");
    for (key, name) in [("context", "Context"), ("default_taken", "Default taken meanwhile")] {
        if let Some(text) = d.text(key) {
            let _ = write!(page.body, "<h2>{name}</h2>\n<p>{}</p>\n", esc(text));
        }
    }
    if d.block("resolution").is_some() {
        page.push("<h2>Resolution</h2>\n");
        resolution(page, d);
        let mut more = String::new();
        for (key, name) in [
            ("resolved_by", "Resolved by"),
            ("confidence", "Confidence"),
            ("reversal_cost", "Reversal cost"),
            ("wrong_if", "Wrong if"),
        ] {
            if let Some(text) = d.block_text("resolution", key) {
                more.push_str(&row(name, esc(text)));
            }
        }
        if !more.is_empty() {
            let _ = write!(page.body, "<dl class=\"facts\">\n{more}</dl>\n");
        }
    }
    if d.block("review").is_some() {
        page.push("<h2>Review</h2>\n");
        review(page, d);
    }
    history(page, d);
    let folder = format!("{body_folder}/");
    let bodies: Vec<&str> = cx.changes.head.with_prefix(&folder).map(|(p, _)| p.as_str()).collect();
    if !bodies.is_empty() {
        page.push("<h2>Long-form bodies</h2>\n<ul>\n");
        for path in bodies {
            let _ = writeln!(page.body, "<li><code>{}</code></li>", esc(path));
        }
        page.push("</ul>\n");
    }
}

/// The states the manifest records a time for, in time order: filed,
/// resolved, reviewed, and the current status as of `updated_at`.
fn history(page: &mut Page, d: &Decision) {
    let mut events: Vec<(String, &str)> = Vec::new();
    if let Some(at) = d.text("filed_at") {
        events.push(("filed".into(), at));
    }
    if let Some(at) = d.block_text("resolution", "resolved_at") {
        events.push(("resolved".into(), at));
    }
    if let Some(at) = d.block_text("review", "reviewed_at") {
        events.push(("reviewed".into(), at));
    }
    if let (Some(status), Some(at)) = (d.status, d.text("updated_at"))
        && !matches!(status, Status::Filed | Status::Resolved | Status::Reviewed)
    {
        events.push((status.name().to_string(), at));
    }
    events.sort_by_key(|(_, at)| seconds(at).unwrap_or(i64::MAX));
    page.push("<h2>History of states</h2>\n");
    if events.is_empty() {
        page.push("<p>The manifest records no timestamps.</p>\n");
        return;
    }
    page.push("<ol class=\"history\">\n");
    for (state, at) in &events {
        let _ = writeln!(page.body, "<li><strong>{}</strong> — <time>{}</time></li>", esc(state), esc(at));
    }
    page.push("</ol>\n");
    if let Some(status) = d.status
        && events.last().is_none_or(|(s, _)| s != status.name())
    {
        let _ = writeln!(page.body, "<p>Current status: <strong>{}</strong>.</p>", status.name());
    }
}
