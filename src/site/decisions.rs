//! The decision docket (ADR 0007): the queue of open decisions by status,
//! the tier-2 decisions a human sees before enactment, the review feed of
//! resolved and reviewed decisions with their evidence, and a page per
//! decision with its history of states.

use askama::Template;

use super::html::{self, Page};
use super::{Card, Context, Entry, Family, Kind};
use crate::docs::decision::docket::{Docketed, HUMAN_TIER, QUEUE, seconds};
use crate::docs::decision::lifecycle::Status;
use crate::docs::json::Json;
use crate::rules::decision::DecisionView;

/// The queue's statuses as its headings name them.
fn queue_name(status: Status) -> &'static str {
    match status {
        Status::Resolved => "Resolved, awaiting enactment",
        Status::Filed => "Filed",
        Status::Triaged => "Triaged",
        Status::Deliberating => "Deliberating",
        other => other.name(),
    }
}

/// One decision, read from its manifest as the docket lists it.
struct Decision<'m> {
    docket: Docketed<'m>,
    /// The configured decisions folder the manifest sits in.
    folder: &'m str,
    page: String,
}

impl<'m> std::ops::Deref for Decision<'m> {
    type Target = Docketed<'m>;

    fn deref(&self) -> &Docketed<'m> {
        &self.docket
    }
}

impl Decision<'_> {
    fn text(&self, key: &str) -> Option<&str> {
        self.manifest.text_field(key)
    }

    fn block(&self, key: &str) -> Option<&Json> {
        self.manifest.get(key).filter(|v| v.as_object().is_some())
    }

    fn block_text(&self, block: &str, key: &str) -> Option<&str> {
        self.block(block)?.get(key)?.as_str().filter(|s| !s.trim().is_empty())
    }

    fn stakes_text(&self) -> &str {
        self.stakes().unwrap_or("—")
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
    list.sort_by_key(|d| d.age_order());
    list
}

pub(super) fn build<'a>(cx: &mut Context<'a>) -> Family<'a> {
    let view = DecisionView::new(cx.changes);
    let mut entries = Vec::new();
    let mut pages = Vec::new();
    let mut decisions = Vec::new();
    for d in &view.decisions {
        let page = cx.page_path("decisions", d.location.stem);
        decisions.push(Decision { docket: Docketed::new(d.location.stem, &d.head), folder: d.location.folder, page });
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
        page.put(&Unreadable { name, path });
        html::findings_section(&mut page, &findings);
        pages.push(page);
        entries.push(Entry { kind: Kind::Decision, path: path.to_string(), page: page_path, findings });
    }
    let open: Vec<&Decision> = decisions.iter().filter(|d| d.is_open()).collect();
    let human = open.iter().filter(|d| d.tier == Some(HUMAN_TIER)).count();
    pages.push(overview(&decisions, &entries, cx.options.now));
    let card = Card {
        title: "Open decisions",
        href: "decisions/index.html",
        count: open.len(),
        detail: format!("{human} at tier 2 (a human decides); {} manifests in all", entries.len()),
    };
    Family { pages, entries, card }
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>{{ name }}</h1>\n<p class=\"lede\">Decision manifest <code>{{ path }}</code></p>\n\
<p>This file could not be read as text; its findings say why.</p>\n"
)]
struct Unreadable<'a> {
    name: &'a str,
    path: &'a str,
}

/// A decision in a queue table.
struct Queued<'a> {
    link: String,
    id: &'a str,
    tier: String,
    human: bool,
    stakes: &'a str,
    status: &'static str,
    age: String,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"{{ caption }} (scrolls sideways)\"><table>\n<caption>{{ caption }}</caption>\n<thead><tr><th scope=\"col\">Question</th>\
<th scope=\"col\" class=\"num\">Tier</th><th scope=\"col\">Stakes</th><th scope=\"col\">Status</th>\
<th scope=\"col\" class=\"num\">Age</th></tr></thead>\n<tbody>\n{% for d in rows %}<tr><td data-label=\"Question\">{{ d.link|safe }}<br>\
<code class=\"where\">{{ d.id }}</code></td><td class=\"num\" data-label=\"Tier\">{% if d.human %}2 <span class=\"badge human\">human</span>\
{% else %}{{ d.tier }}{% endif %}</td><td data-label=\"Stakes\">{{ d.stakes }}</td><td data-label=\"Status\">{{ d.status }}</td><td class=\"num\" data-label=\"Age\">{{ d.age }}</td></tr>\n\
{% endfor %}</tbody></table></div>\n"
)]
struct QueueTable<'a> {
    caption: &'a str,
    rows: Vec<Queued<'a>>,
}

fn queue_table(page: &mut Page, caption: &str, rows: &[&Decision], now: i64) {
    let rows = rows
        .iter()
        .map(|d| Queued {
            link: page.link(&d.page, d.question()),
            id: d.id,
            tier: d.tier_text(),
            human: d.tier == Some(HUMAN_TIER),
            stakes: d.stakes_text(),
            status: d.status.map_or("—", Status::name),
            age: d.filed_at.map_or("—".to_string(), |t| html::age(t, now)),
        })
        .collect();
    page.put(&QueueTable { caption, rows });
}

/// A fixed piece of the docket's text.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% match self %}{% when Text::Docket %}<h1>Decision docket</h1>\n<p class=\"lede\">ADR 0007: decisions are \
filed, triaged, deliberated and resolved with evidence; the agent acts on a resolution at once and review samples it \
afterwards. Tier-2 decisions are the ones a human sees before enactment.</p>\n\
<h2 id=\"human\">Needs a human first (tier 2)</h2>\n{% when Text::NoHuman %}<p>No open tier-2 decision.</p>\n\
{% when Text::Queue %}<h2 id=\"queue\">Queue</h2>\n{% when Text::None %}<p>None.</p>\n\
{% when Text::NoFeed %}<p>No resolved decision yet.</p>\n\
{% when Text::FeedLede %}<p>Resolved and reviewed decisions, the most recent first.</p>\n{% endmatch %}"
)]
enum Text {
    Docket,
    NoHuman,
    Queue,
    None,
    NoFeed,
    FeedLede,
}

#[derive(Template)]
#[template(ext = "html", source = "<h{{ level }} id=\"{{ id }}\">{{ text }} ({{ count }})</h{{ level }}>\n")]
struct Counted<'a> {
    level: u8,
    id: &'a str,
    text: &'a str,
    count: usize,
}

/// A list of links to decisions, each with a note.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% if let Some(intro) = intro %}{{ intro|safe }}{% endif %}<ul>\n{% for (link, note) in items %}\
<li>{{ link|safe }} — {{ note }}</li>\n{% endfor %}</ul>\n"
)]
struct Links<'a> {
    intro: Option<Counted<'a>>,
    items: Vec<(String, String)>,
}

fn overview(decisions: &[Decision], entries: &[Entry], now: i64) -> Page {
    let mut page = Page::new("decisions/index.html", "Decisions");
    page.put(&Text::Docket);
    let human = by_age(decisions.iter().filter(|d| d.tier == Some(HUMAN_TIER) && d.is_open()).collect());
    if human.is_empty() {
        page.put(&Text::NoHuman);
    } else {
        queue_table(&mut page, "Open tier-2 decisions, oldest first", &human, now);
    }
    page.put(&Text::Queue);
    for status in QUEUE {
        let name = queue_name(status);
        let rows = by_age(decisions.iter().filter(|d| d.status == Some(status)).collect());
        page.put(&Counted { level: 3, id: status.name(), text: name, count: rows.len() });
        if rows.is_empty() {
            page.put(&Text::None);
        } else {
            queue_table(&mut page, &format!("{name}, oldest first"), &rows, now);
        }
    }
    feed(&mut page, decisions);
    let closed: Vec<&Decision> =
        decisions.iter().filter(|d| matches!(d.status, Some(Status::Superseded | Status::Wontfix))).collect();
    let heading = Counted { level: 2, id: "closed", text: "Closed without a resolution", count: closed.len() };
    if closed.is_empty() {
        page.put(&heading);
        page.put(&Text::None);
    } else {
        let items = closed
            .into_iter()
            .map(|d| {
                let why = match d.status {
                    Some(Status::Superseded) => d.text("superseded_by").map(|s| format!("superseded by {s}")),
                    _ => d.text("wontfix_reason").map(|s| format!("won't fix: {s}")),
                };
                (page.link(&d.page, d.question()), why.unwrap_or_else(|| d.status.map_or("", Status::name).to_string()))
            })
            .collect();
        page.put(&Links { intro: Some(heading), items });
    }
    let unplaced: Vec<&Entry> = entries
        .iter()
        .filter(|e| decisions.iter().find(|d| d.page == e.page).is_none_or(|d| d.status.is_none()))
        .collect();
    if !unplaced.is_empty() {
        let heading =
            Counted { level: 2, id: "unplaced", text: "Manifests without a valid status", count: unplaced.len() };
        let items = unplaced.iter().map(|e| (page.link(&e.page, &e.path), html::counts(&e.findings))).collect();
        page.put(&Links { intro: Some(heading), items });
    }
    page
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<article>\n<h3>{{ link|safe }}</h3>\n<p><span class=\"badge\">{{ status }}</span> tier {{ tier }} · stakes \
{{ stakes }} · {{ when }}</p>\n"
)]
struct FeedHead<'a> {
    link: String,
    status: &'static str,
    tier: String,
    stakes: &'a str,
    when: String,
}

#[derive(Template)]
#[template(ext = "html", source = "</article>\n")]
struct FeedEnd;

/// Resolved and reviewed decisions, newest first, with their evidence.
fn feed(page: &mut Page, decisions: &[Decision]) {
    let mut feed: Vec<&Decision> = decisions.iter().filter(|d| d.status.is_some_and(Status::is_resolved)).collect();
    feed.sort_by_key(|d| (std::cmp::Reverse(d.latest()), d.id));
    page.put(&Counted { level: 2, id: "feed", text: "Review feed", count: feed.len() });
    if feed.is_empty() {
        page.put(&Text::NoFeed);
        return;
    }
    page.put(&Text::FeedLede);
    for d in feed {
        page.put(&FeedHead {
            link: page.link(&d.page, d.question()),
            status: d.status.map_or("", Status::name),
            tier: d.tier_text(),
            stakes: d.stakes_text(),
            when: d.latest().map_or("—".to_string(), html::utc),
        });
        resolution(page, d);
        review(page, d);
        page.put(&FeedEnd);
    }
}

/// A resolution's recommendation and evidence: web links as links, the
/// rest as text.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% if let Some(text) = recommendation %}<p><strong>Recommendation:</strong> {{ text }}</p>\n{% endif %}\
{% if evidence.is_empty() %}<p><strong>Evidence:</strong> none cited.</p>\n{% else %}\
<p><strong>Evidence:</strong></p>\n<ul class=\"evidence\">\n{% for e in evidence %}\
{% if let Some(href) = self::html::external_href(e) %}<li><a href=\"{{ href }}\" rel=\"noreferrer\">{{ e }}</a></li>\n\
{% else %}<li><code>{{ e }}</code></li>\n{% endif %}{% endfor %}</ul>\n{% endif %}"
)]
struct Resolution<'a> {
    recommendation: Option<&'a str>,
    evidence: Vec<&'a str>,
}

fn resolution(page: &mut Page, d: &Decision) {
    let Some(block) = d.block("resolution") else { return };
    page.put(&Resolution {
        recommendation: d.block_text("resolution", "recommendation"),
        evidence: block
            .get("evidence")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(Json::as_str)
            .collect(),
    });
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<p><strong>Review:</strong> {{ verdict }}{% if let Some(note) = note %} — {{ note }}{% endif %}</p>\n"
)]
struct Review<'a> {
    verdict: &'a str,
    note: Option<&'a str>,
}

fn review(page: &mut Page, d: &Decision) {
    if d.block("review").is_none() {
        return;
    }
    page.put(&Review {
        verdict: d.block_text("review", "verdict").unwrap_or("—"),
        note: d.block_text("review", "note"),
    });
}

/// How a fact's value is shown.
enum Value<'a> {
    Text(String),
    Code(&'a str),
    Html(String),
}

/// A list of facts; empty, it writes nothing.
#[derive(Template)]
#[template(
    ext = "html",
    source = "{% if !facts.is_empty() %}<dl class=\"facts\">\n{% for (name, value) in facts %}<dt>{{ name|safe }}</dt><dd>\
{% match value %}{% when Value::Text(text) %}{{ text }}{% when Value::Code(code) %}<code>{{ code }}</code>\
{% when Value::Html(html) %}{{ html|safe }}{% endmatch %}</dd>\n{% endfor %}</dl>\n{% endif %}"
)]
/// Names are the literals of this file (`Won't fix because`), shown as written.
struct Facts<'a> {
    facts: Vec<(&'static str, Value<'a>)>,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "{% match self %}{% when Part::Heading(question, path) %}<h1>{{ question }}</h1>\n<p class=\"lede\">Decision \
<code>{{ path }}</code></p>\n{% when Part::Section(name, text) %}<h2>{{ name }}</h2>\n<p>{{ text }}</p>\n\
{% when Part::Title(name) %}<h2>{{ name }}</h2>\n{% when Part::Bodies(paths) %}<h2>Long-form bodies</h2>\n<ul>\n\
{% for path in paths %}<li><code>{{ path }}</code></li>\n{% endfor %}</ul>\n\
{% when Part::History(events, current) %}<h2>History of states</h2>\n{% if events.is_empty() %}<p>The manifest \
records no timestamps.</p>\n{% else %}<ol class=\"history\">\n{% for (state, at) in events %}<li><strong>{{ state }}\
</strong> — <time>{{ at }}</time></li>\n{% endfor %}</ol>\n{% if let Some(status) = current %}<p>Current status: \
<strong>{{ status }}</strong>.</p>\n{% endif %}{% endif %}{% endmatch %}"
)]
enum Part<'a> {
    Heading(&'a str, &'a str),
    Section(&'static str, &'a str),
    Title(&'static str),
    Bodies(Vec<&'a str>),
    /// The states with their times, and the current status when it is not the last of them.
    History(Vec<(String, &'a str)>, Option<&'static str>),
}

fn decision_page(page: &mut Page, d: &Decision, all: &[Decision], body_folder: &str, cx: &Context) {
    let now = cx.options.now;
    page.put(&Part::Heading(d.question(), d.manifest.path));
    let mut facts = vec![
        ("Id", Value::Code(d.id)),
        ("Status", Value::Text(d.status.map_or("(no valid status)", Status::name).to_string())),
    ];
    let tier =
        if d.tier == Some(HUMAN_TIER) { "2 — a human decides before enactment".to_string() } else { d.tier_text() };
    facts.push(("Tier", Value::Text(tier)));
    facts.push(("Stakes", Value::Text(d.stakes_text().to_string())));
    let filed = match (d.text("filed_at"), d.filed_at) {
        (Some(text), Some(at)) => format!("{text} ({} ago)", html::age(at, now)),
        (Some(text), None) => text.to_string(),
        _ => "—".into(),
    };
    facts.push(("Filed", Value::Text(filed)));
    for (key, name) in [
        ("filed_by", "Filed by"),
        ("claimed_by", "Claimed by"),
        ("council_id", "Council"),
        ("wontfix_reason", "Won't fix because"),
    ] {
        if let Some(text) = d.text(key) {
            facts.push((name, Value::Text(text.to_string())));
        }
    }
    if let Some(next) = d.text("superseded_by") {
        let value = match all.iter().find(|o| o.id == next) {
            Some(other) => Value::Html(page.link(&other.page, next)),
            None => Value::Code(next),
        };
        facts.push(("Superseded by", value));
    }
    page.put(&Facts { facts });
    for (key, name) in [("context", "Context"), ("default_taken", "Default taken meanwhile")] {
        if let Some(text) = d.text(key) {
            page.put(&Part::Section(name, text));
        }
    }
    if d.block("resolution").is_some() {
        page.put(&Part::Title("Resolution"));
        resolution(page, d);
        let mut more = Vec::new();
        for (key, name) in [
            ("resolved_by", "Resolved by"),
            ("confidence", "Confidence"),
            ("reversal_cost", "Reversal cost"),
            ("wrong_if", "Wrong if"),
        ] {
            if let Some(text) = d.block_text("resolution", key) {
                more.push((name, Value::Text(text.to_string())));
            }
        }
        page.put(&Facts { facts: more });
    }
    if d.block("review").is_some() {
        page.put(&Part::Title("Review"));
        review(page, d);
    }
    history(page, d);
    let folder = format!("{body_folder}/");
    let bodies: Vec<&str> = cx.changes.head.with_prefix(&folder).map(|(p, _)| p.as_str()).collect();
    if !bodies.is_empty() {
        page.put(&Part::Bodies(bodies));
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
    let current = d.status.filter(|status| events.last().is_none_or(|(s, _)| s != status.name())).map(Status::name);
    page.put(&Part::History(events, current));
}
