//! Standards ledgers (ADR-140): per voting doc and section the tally
//! `gatehouse tally` prints (weighted totals, quorum 10, margin +5, state)
//! as a chart and a table, and the vote ledger itself.

use std::collections::BTreeSet;

use askama::Template;

use super::html::{self, Page, put};
use super::{Card, Context, Entry, Family, Kind, chart};
use crate::docs::voting::tally::{MARGIN, QUORUM, SectionTally, State, describe_left_out, number, signed};
use crate::docs::voting::{Argument, Block, Section, Vote, VotingDoc};

/// Ledgers with at most this many votes in a section are shown open.
const OPEN_LEDGER: usize = 12;

struct Row {
    path: String,
    page: String,
    title: String,
    sections: usize,
    states: [usize; 3],
    counts: String,
}

/// The voting docs as the rules parsed them, each rendered as far as the
/// parse goes: a page but for its findings, which the finished report gives.
#[derive(Default)]
pub(super) struct Ledgers<'a> {
    docs: Vec<Ledger<'a>>,
}

struct Ledger<'a> {
    path: &'a str,
    title: String,
    sections: usize,
    states: [usize; 3],
    /// The sections' HTML: tallies, charts and vote ledgers.
    html: String,
}

impl<'a> Ledgers<'a> {
    /// Renders one voting doc from the parse and tallies the rules made.
    pub(super) fn add(&mut self, doc: &VotingDoc<'a>, tallies: &[SectionTally]) {
        let name = doc.path.rsplit('/').next().unwrap_or(doc.path);
        let title =
            match (doc.field("doc").and_then(|d| d.scalar_text()), doc.field("version").and_then(|v| v.as_i64())) {
                (Some(d), Some(v)) => format!("{d}@v{v}"),
                _ => name.to_string(),
            };
        let mut states = [0; 3];
        for t in tallies {
            states[state_index(t.state)] += 1;
        }
        let mut html = String::new();
        for (index, section) in doc.sections.iter().enumerate() {
            section_html(&mut html, index, section, tallies);
        }
        if doc.sections.is_empty() {
            put(&mut html, &NoSection);
        }
        self.docs.push(Ledger { path: doc.path, title, sections: doc.sections.len(), states, html });
    }
}

pub(super) fn build<'a>(cx: &mut Context<'a>, ledgers: Ledgers<'a>) -> Family<'a> {
    let mut pages = Vec::new();
    let mut entries = Vec::new();
    let mut rows = Vec::new();
    let rendered: BTreeSet<&str> = ledgers.docs.iter().map(|doc| doc.path).collect();
    for doc in ledgers.docs {
        let name = doc.path.rsplit('/').next().unwrap_or(doc.path);
        let page_path = cx.page_path("ledgers", name.strip_suffix(".md").unwrap_or(name));
        let findings = cx.findings(doc.path);
        let mut page = Page::new(page_path.clone(), format!("Ledger {}", doc.title));
        page.body.reserve(doc.html.len() + 4096);
        page.put(&Heading {
            title: &doc.title,
            path: doc.path,
            sections: doc.sections,
            states: state_summary(&doc.states),
        });
        html::findings_section(&mut page, &findings);
        page.body.push_str(&doc.html);
        pages.push(page);
        rows.push(Row {
            path: doc.path.to_string(),
            page: page_path.clone(),
            title: doc.title,
            sections: doc.sections,
            states: doc.states,
            counts: html::counts(&findings),
        });
        entries.push(Entry { kind: Kind::Ledger, path: doc.path.to_string(), page: page_path, findings });
    }
    let voting_paths = crate::config::PathFilter::globs(&cx.changes.config.voting.paths);
    for (path, content) in voting_paths.select(&cx.changes.head) {
        if content.text().is_some() {
            continue;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        let page_path = cx.page_path("ledgers", name);
        let findings = cx.findings(path);
        let mut page = Page::new(page_path.clone(), format!("Ledger {name}"));
        page.put(&Unreadable { name, path });
        html::findings_section(&mut page, &findings);
        pages.push(page);
        entries.push(Entry { kind: Kind::Ledger, path: path.clone(), page: page_path, findings });
    }
    // Texts on the voting paths the rules did not parse as voting docs.
    let passed_over: Vec<String> = cx
        .changes
        .changed_in(&voting_paths)
        .filter(|(path, content)| content.text().is_some() && !rendered.contains(path))
        .map(|(path, _)| path.to_string())
        .collect();
    let mut states = [0; 3];
    for row in &rows {
        for (total, n) in states.iter_mut().zip(row.states) {
            *total += n;
        }
    }
    pages.push(overview(&rows, &passed_over));
    let card = Card {
        title: "Voting docs",
        href: "ledgers/index.html",
        count: rows.len(),
        detail: format!("sections: {}", state_summary(&states)),
    };
    Family { pages, entries, card }
}

fn state_index(state: State) -> usize {
    match state {
        State::Open => 0,
        State::RetirementEligible => 1,
        State::ConsensusLocked => 2,
    }
}

fn state_summary(states: &[usize; 3]) -> String {
    format!("{} open, {} retirement-eligible, {} consensus-locked", states[0], states[1], states[2])
}

#[derive(Template)]
#[template(ext = "html", source = "<p>No <code>## </code> section: nothing to tally.</p>\n")]
struct NoSection;

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>{{ title }}</h1>\n<p class=\"lede\">Voting doc <code>{{ path }}</code></p>\n\
<dl class=\"facts\">\n<dt>Sections</dt><dd>{{ sections }}</dd>\n<dt>States</dt><dd>{{ states }}</dd>\n\
<dt>Rules</dt><dd>quorum: at least {{ self::number(self::QUORUM) }} weighted votes in a section; margin: at least \
+{{ self::number(self::MARGIN) }} between the top two arguments</dd>\n</dl>\n"
)]
struct Heading<'a> {
    title: &'a str,
    path: &'a str,
    sections: usize,
    states: String,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>{{ name }}</h1>\n<p class=\"lede\">File <code>{{ path }}</code></p>\n\
<p>This file could not be read as text; its findings say why.</p>\n"
)]
struct Unreadable<'a> {
    name: &'a str,
    path: &'a str,
}

/// How a section's `voting` block reads: absent, unreadable, tallied.
enum Body<'a> {
    NoBlock,
    Unreadable { line: u32, error: String },
    Tally(Box<TallyHtml<'a>>),
    NoTally,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<section class=\"ledger-section\" id=\"{{ id }}\" data-section=\"{{ name }}\" aria-labelledby=\"{{ id }}-h\">\n\
<h2 id=\"{{ id }}-h\">{{ heading }}</h2>\n<p class=\"lede\">Section <code>{{ name }}</code>, line {{ line }}</p>\n\
{% match body %}{% when Body::NoBlock %}<p>This section has no <code>voting</code> block.</p>\n\
{% when Body::Unreadable { line, error } %}<p>The <code>voting</code> block cannot be read (line {{ line }}): {{ error }}</p>\n\
{% when Body::Tally(tally) %}{{ tally|safe }}{% when Body::NoTally %}<p>No tally.</p>\n{% endmatch %}</section>\n"
)]
struct SectionHtml<'a> {
    id: &'a str,
    name: &'a str,
    heading: &'a str,
    line: u32,
    body: Body<'a>,
}

fn section_html(out: &mut String, index: usize, section: &Section, tallies: &[SectionTally]) {
    let id = format!("s{}", index + 1);
    let name = match &section.block {
        Some(Ok(block)) => block.name(),
        _ => format!("at line {}", section.line),
    };
    let body = match (&section.block, tallies.iter().find(|t| t.line == section.line)) {
        (None, _) => Body::NoBlock,
        (Some(Err(e)), _) => Body::Unreadable { line: e.line(), error: e.to_string() },
        (Some(Ok(block)), Some(t)) => Body::Tally(Box::new(TallyHtml::new(&id, block, t))),
        (Some(Ok(_)), None) => Body::NoTally,
    };
    put(out, &SectionHtml { id: &id, name: &name, heading: &section.heading, line: section.line, body });
}

/// One argument's row of the totals table.
struct Total<'a> {
    id: &'a str,
    top: bool,
    kind: &'a str,
    proposition: &'a str,
    total: String,
    votes: usize,
}

/// A section's tally: its facts, chart, totals and vote ledger.
#[derive(Template)]
#[template(
    ext = "html",
    source = "<dl class=\"facts\">\n<dt>State</dt><dd data-tally=\"state\"><span class=\"badge state-{{ state }}\">{{ state }}</span>\
{% if let Some(losers) = retiring %} may retire: {{ losers }}{% endif %}</dd>\n\
<dt>Weighted votes</dt><dd><span data-tally=\"weighted\">{{ weighted }}</span> (quorum {{ quorum }}: {{ quorum_met }})</dd>\n\
<dt>Margin</dt><dd>{% if let Some((value, met)) = margin %}<span data-tally=\"margin\">{{ value }}</span> \
(needs +{{ needed }}: {{ met }}){% else %}— (one argument){% endif %}</dd>\n<dt>Active argument</dt><dd>\
{% if let Some(active) = t.active_argument %}<code>{{ active }}</code>{% else %}—{% endif %}</dd>\n\
{% if !left_out.is_empty() %}<dt>Not counted</dt><dd><span data-tally=\"ignored\">{{ left_out.len() }}</span> \
{% if left_out.len() == 1 %}vote{% else %}votes{% endif %} with a <code>voting/vote-entry</code> error:<ul class=\"left-out\">\
{% for (line, text) in left_out %}<li data-line=\"{{ line }}\">{{ crate::site::markdown::inline(text)|safe }}</li>{% endfor %}</ul></dd>\n{% endif %}\
</dl>\n<figure>\n{{ chart|safe }}\n<figcaption>Weighted votes against the quorum of {{ quorum }}, and each argument's \
weighted total; the dashed line is the margin of +{{ needed }} below the top argument (a lone argument must reach it to \
lock).</figcaption>\n</figure>\n<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Weighted totals (scrolls sideways)\"><table class=\"totals\">\n<caption>Weighted totals</caption>\n<thead><tr>\
<th scope=\"col\">Argument</th><th scope=\"col\">Kind</th><th scope=\"col\">Proposition</th>\
<th scope=\"col\" class=\"num\">Total</th><th scope=\"col\" class=\"num\">Votes</th></tr></thead>\n<tbody>\n\
{% for a in totals %}<tr data-argument=\"{{ a.id }}\"><th scope=\"row\" data-label=\"Argument\"><code>{{ a.id }}</code>\
{% if a.top %} <span class=\"badge ok\">top</span>{% endif %}</th><td data-label=\"Kind\">{{ a.kind }}</td><td data-label=\"Proposition\">{{ crate::site::markdown::inline(a.proposition)|safe }}</td>\
<td class=\"num\" data-label=\"Total\" data-tally=\"total\">{{ a.total }}</td><td class=\"num\" data-label=\"Votes\" data-tally=\"votes\">{{ a.votes }}</td></tr>\n\
{% endfor %}</tbody></table></div>\n{{ ledger|safe }}"
)]
struct TallyHtml<'a> {
    t: &'a SectionTally,
    state: &'static str,
    retiring: Option<String>,
    weighted: String,
    quorum: String,
    quorum_met: &'static str,
    margin: Option<(String, &'static str)>,
    needed: String,
    left_out: Vec<(u32, String)>,
    chart: chart::Tally<'a>,
    totals: Vec<Total<'a>>,
    ledger: LedgerTable<'a>,
}

impl<'a> TallyHtml<'a> {
    fn new(id: &str, block: &'a Block, t: &'a SectionTally) -> TallyHtml<'a> {
        let met = |yes: bool| if yes { "met" } else { "not met" };
        let totals = t
            .arguments
            .iter()
            .zip(block.arguments())
            .map(|(a, argument)| Total {
                id: &a.id,
                top: t.leaders.contains(&a.id),
                kind: a.kind.as_deref().unwrap_or("?"),
                proposition: proposition(&argument),
                total: signed(a.total),
                votes: a.votes,
            })
            .collect();
        TallyHtml {
            t,
            state: t.state.as_str(),
            retiring: (t.state == State::RetirementEligible).then(|| t.losers.join(", ")),
            weighted: number(t.weighted_votes),
            quorum: number(QUORUM),
            quorum_met: met(t.quorum_met),
            margin: t.margin.map(|m| (signed(m), met(m >= MARGIN))),
            needed: number(MARGIN),
            left_out: t.left_out.iter().map(|v| (v.line, describe_left_out(v))).collect(),
            chart: chart::Tally::new(format!("{id}-chart"), t),
            totals,
            ledger: LedgerTable::new(block),
        }
    }
}

fn proposition<'a>(argument: &Argument<'a>) -> &'a str {
    argument.field("proposition").and_then(|p| p.scalar_text()).unwrap_or("—")
}

/// A vote's field as written, for a vote that is not well-formed.
fn raw<'y>(vote: &Vote<'y>, field: &str) -> &'y str {
    vote.field(field).and_then(|n| n.scalar_text()).unwrap_or("—")
}

/// `+1` or `-1`, else the value as written.
fn vote_text<'y>(vote: &Vote<'y>) -> &'y str {
    match vote.value() {
        Some(v) if v > 0 => "+1",
        Some(_) => "-1",
        None => raw(vote, "vote"),
    }
}

/// The weight as a number, else as written; a vote the tally leaves out
/// says so.
fn weight_text(vote: &Vote) -> String {
    let mut text = match vote.weight() {
        Some(w) => number(w),
        None => raw(vote, "weight").to_string(),
    };
    if !vote.is_well_formed() {
        text.push_str(" (not counted)");
    }
    text
}

/// Every vote of a section, in the order written; open when short.
#[derive(Template)]
#[template(
    ext = "html",
    source = "<details{% if votes <= OPEN_LEDGER %} open{% endif %}><summary>Vote ledger ({{ summary }})</summary>\n\
{% if votes == 0 %}<p>No votes yet.</p>\n</details>\n{% else %}\
<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Vote ledger, in the order written (scrolls sideways)\"><table class=\"ledger\">\n<caption>Vote ledger, in the order written</caption>\n<thead><tr>\
<th scope=\"col\">Argument</th><th scope=\"col\">Voter</th><th scope=\"col\" class=\"num\">Vote</th>\
<th scope=\"col\" class=\"num\">Weight</th><th scope=\"col\">Time</th><th scope=\"col\">Rationale</th></tr></thead>\n<tbody>\n\
{% for argument in block.arguments() %}{% let name = argument.name() %}{% for vote in argument.votes() %}\
<tr><td data-label=\"Argument\"><code>{{ name }}</code></td><td data-label=\"Voter\">{{ vote.voter().unwrap_or(\"—\") }}</td><td class=\"num\" data-label=\"Vote\">{{ self::vote_text(vote) }}</td>\
<td class=\"num\" data-label=\"Weight\">{{ self::weight_text(vote) }}</td><td data-label=\"Time\">{{ self::raw(vote, \"ts\") }}</td><td data-label=\"Rationale\">{{ self::raw(vote, \"rationale\") }}</td></tr>\n\
{% endfor %}{% endfor %}</tbody></table></div>\n</details>\n{% endif %}"
)]
struct LedgerTable<'a> {
    block: &'a Block<'a>,
    votes: usize,
    /// `12 votes`.
    summary: String,
}

impl<'a> LedgerTable<'a> {
    fn new(block: &'a Block<'a>) -> LedgerTable<'a> {
        let votes = block.arguments().map(|a| a.votes().len()).sum();
        LedgerTable { block, votes, summary: html::plural(votes, "vote") }
    }
}

/// A voting doc on the overview, with its link.
struct Listed<'a> {
    row: &'a Row,
    link: String,
    states: String,
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<h1>Standards ledgers</h1>\n<p class=\"lede\">ADR-140: a section's losing arguments may retire once its \
weighted votes reach {{ quorum }} and the top argument leads the next by at least +{{ margin }}; a lone argument with both is \
consensus-locked.</p>\n{% if rows.is_empty() %}<p>No voting docs under the configured paths.</p>\n{% else %}\
<div class=\"table\" role=\"region\" tabindex=\"0\" aria-label=\"Every voting doc (scrolls sideways)\"><table>\n<caption>Every voting doc</caption>\n<thead><tr><th scope=\"col\">Doc</th>\
<th scope=\"col\" class=\"num\">Sections</th><th scope=\"col\">States</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n\
{% for listed in rows %}<tr><td data-label=\"Doc\">{{ listed.link|safe }}<br><code class=\"where\">{{ listed.row.path }}</code></td>\
<td class=\"num\" data-label=\"Sections\">{{ listed.row.sections }}</td><td data-label=\"States\">{{ listed.states }}</td><td data-label=\"Findings\">{{ listed.row.counts }}</td></tr>\n\
{% endfor %}</tbody></table></div>\n{% endif %}\
{% if !passed_over.is_empty() %}<h2>Not voting docs</h2>\n<p>These files sit on the voting paths but declare no \
<code>format: voting/…</code> and hold no <code>voting</code> block:</p>\n<ul>\n\
{% for path in passed_over %}<li><code>{{ path }}</code></li>\n{% endfor %}</ul>\n{% endif %}"
)]
struct Overview<'a> {
    quorum: String,
    margin: String,
    rows: Vec<Listed<'a>>,
    passed_over: &'a [String],
}

fn overview(rows: &[Row], passed_over: &[String]) -> Page {
    let mut page = Page::new("ledgers/index.html", "Ledgers");
    let rows = rows
        .iter()
        .map(|row| Listed { row, link: page.link(&row.page, &row.title), states: state_summary(&row.states) })
        .collect();
    page.put(&Overview { quorum: number(QUORUM), margin: number(MARGIN), rows, passed_over });
    page
}
