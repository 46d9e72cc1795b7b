//! Standards ledgers (ADR-140): per voting doc and section the tally
//! `gatehouse tally` prints (weighted totals, quorum 10, margin +5, state)
//! as a chart and a table, and the vote ledger itself.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::html::{self, Page, esc};
use super::{Card, Context, Entry, Family, Kind, chart};
use crate::docs::voting::tally::{MARGIN, QUORUM, SectionTally, State, describe_left_out, number, push_number, signed};
use crate::docs::voting::{Block, Section, VotingDoc};

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
pub struct Ledgers<'a> {
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
    pub fn add(&mut self, doc: &VotingDoc<'a>, tallies: &[SectionTally]) {
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
            html.push_str("<p>No <code>## </code> section: nothing to tally.</p>\n");
        }
        self.docs.push(Ledger { path: doc.path, title, sections: doc.sections.len(), states, html });
    }
}

pub fn build<'a>(cx: &mut Context<'a>, ledgers: Ledgers<'a>) -> Family<'a> {
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
        let _ = write!(
            page.body,
            "<h1>{}</h1>\n<p class=\"lede\">Voting doc <code>{}</code></p>\n",
            esc(&doc.title),
            esc(doc.path)
        );
        let _ = write!(
            page.body,
            "<dl class=\"facts\">\n<dt>Sections</dt><dd>{}</dd>\n<dt>States</dt><dd>{}</dd>\n<dt>Rules</dt><dd>quorum: at least {} \
weighted votes in a section; margin: at least +{} between the top two arguments</dd>\n</dl>\n",
            doc.sections,
            esc(&state_summary(&doc.states)),
            number(QUORUM),
            number(MARGIN)
        );
        html::findings_section(&mut page, &findings);
        page.push(&doc.html);
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
        let _ = write!(page.body, "<h1>{}</h1>\n<p class=\"lede\">File <code>{}</code></p>\n", esc(name), esc(path));
        page.push("<p>This file could not be read as text; its findings say why.</p>\n");
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

fn state_badge(t: &SectionTally) -> String {
    let mut text = format!("<span class=\"badge state-{0}\">{0}</span>", t.state.as_str());
    if t.state == State::RetirementEligible {
        let _ = write!(text, " may retire: {}", esc(&t.losers.join(", ")));
    }
    text
}

fn section_html(out: &mut String, index: usize, section: &Section, tallies: &[SectionTally]) {
    let id = format!("s{}", index + 1);
    let block = match &section.block {
        Some(Ok(block)) => Some(block),
        _ => None,
    };
    let name = block.map_or_else(|| format!("at line {}", section.line), Block::name);
    let _ = write!(
        out,
        "<section class=\"ledger-section\" id=\"{id}\" data-section=\"{}\" aria-labelledby=\"{id}-h\">\n\
<h2 id=\"{id}-h\">{}</h2>\n<p class=\"lede\">Section <code>{}</code>, line {}</p>\n",
        html::attr(&name),
        esc(&section.heading),
        esc(&name),
        section.line
    );
    match (&section.block, tallies.iter().find(|t| t.line == section.line)) {
        (None, _) => out.push_str("<p>This section has no <code>voting</code> block.</p>\n"),
        (Some(Err(e)), _) => {
            let _ = writeln!(
                out,
                "<p>The <code>voting</code> block cannot be read (line {}): {}</p>",
                e.line(),
                esc(&e.to_string())
            );
        }
        (Some(Ok(block)), Some(t)) => tally_html(out, &id, block, t),
        (Some(Ok(_)), None) => out.push_str("<p>No tally.</p>\n"),
    }
    out.push_str("</section>\n");
}

fn tally_html(out: &mut String, id: &str, block: &Block, t: &SectionTally) {
    let quorum = if t.quorum_met { "met" } else { "not met" };
    let margin = match t.margin {
        Some(m) => format!(
            "<span data-tally=\"margin\">{}</span> (needs +{}: {})",
            esc(&signed(m)),
            number(MARGIN),
            if m >= MARGIN { "met" } else { "not met" }
        ),
        None => "— (one argument)".to_string(),
    };
    let _ = write!(
        out,
        "<dl class=\"facts\">\n<dt>State</dt><dd data-tally=\"state\">{}</dd>\n\
<dt>Weighted votes</dt><dd><span data-tally=\"weighted\">{}</span> (quorum {}: {quorum})</dd>\n\
<dt>Margin</dt><dd>{margin}</dd>\n<dt>Active argument</dt><dd>{}</dd>\n",
        state_badge(t),
        esc(&number(t.weighted_votes)),
        number(QUORUM),
        t.active_argument.as_deref().map_or("—".to_string(), |a| format!("<code>{}</code>", esc(a)))
    );
    if !t.left_out.is_empty() {
        let _ = write!(
            out,
            "<dt>Not counted</dt><dd><span data-tally=\"ignored\">{}</span> {} with a <code>voting/vote-entry</code> \
error:<ul class=\"left-out\">",
            t.left_out.len(),
            if t.left_out.len() == 1 { "vote" } else { "votes" }
        );
        for v in &t.left_out {
            let _ = write!(out, "<li data-line=\"{}\">{}</li>", v.line, esc(&describe_left_out(v)));
        }
        out.push_str("</ul></dd>\n");
    }
    out.push_str("</dl>\n<figure>\n");
    chart::tally(out, &format!("{id}-chart"), t);
    let _ = write!(
        out,
        "\n<figcaption>Weighted votes against the quorum of {}, and each argument's weighted total; the dashed line is \
the margin of +{} below the top argument (a lone argument must reach it to lock).</figcaption>\n</figure>\n",
        number(QUORUM),
        number(MARGIN)
    );
    out.push_str(
        "<div class=\"table\"><table class=\"totals\">\n<caption>Weighted totals</caption>\n<thead><tr>\
<th scope=\"col\">Argument</th><th scope=\"col\">Kind</th><th scope=\"col\">Proposition</th>\
<th scope=\"col\" class=\"num\">Total</th><th scope=\"col\" class=\"num\">Votes</th></tr></thead>\n<tbody>\n",
    );
    for (a, argument) in t.arguments.iter().zip(block.arguments()) {
        let proposition = argument.field("proposition").and_then(|p| p.scalar_text()).unwrap_or("—");
        let lead = if t.leaders.contains(&a.id) { " <span class=\"badge ok\">top</span>" } else { "" };
        let _ = writeln!(
            out,
            "<tr data-argument=\"{}\"><th scope=\"row\"><code>{}</code>{lead}</th><td>{}</td><td>{}</td>\
<td class=\"num\" data-tally=\"total\">{}</td><td class=\"num\" data-tally=\"votes\">{}</td></tr>",
            html::attr(&a.id),
            esc(&a.id),
            esc(a.kind.as_deref().unwrap_or("?")),
            esc(proposition),
            esc(&signed(a.total)),
            a.votes
        );
    }
    out.push_str("</tbody></table></div>\n");
    ledger_table(out, block);
}

fn ledger_table(out: &mut String, block: &Block) {
    let votes: usize = block.arguments().map(|a| a.votes().len()).sum();
    let _ = writeln!(
        out,
        "<details{}><summary>Vote ledger ({})</summary>",
        if votes <= OPEN_LEDGER { " open" } else { "" },
        html::plural(votes, "vote")
    );
    if votes == 0 {
        out.push_str("<p>No votes yet.</p>\n</details>\n");
        return;
    }
    out.push_str(
        "<div class=\"table\"><table class=\"ledger\">\n<caption>Vote ledger, in the order written</caption>\n<thead><tr>\
<th scope=\"col\">Argument</th><th scope=\"col\">Voter</th><th scope=\"col\" class=\"num\">Vote</th>\
<th scope=\"col\" class=\"num\">Weight</th><th scope=\"col\">Time</th><th scope=\"col\">Rationale</th></tr></thead>\n<tbody>\n",
    );
    for argument in block.arguments() {
        let name = argument.name();
        for vote in argument.votes() {
            let raw = |field: &str| vote.field(field).and_then(|n| n.scalar_text()).unwrap_or("—");
            let counted = vote.is_well_formed();
            out.push_str("<tr><td><code>");
            html::esc_into(out, &name);
            out.push_str("</code></td><td>");
            html::esc_into(out, vote.voter().unwrap_or("—"));
            out.push_str("</td><td class=\"num\">");
            match vote.value() {
                Some(v) => out.push_str(if v > 0 { "+1" } else { "-1" }),
                None => html::esc_into(out, raw("vote")),
            }
            out.push_str("</td><td class=\"num\">");
            match vote.weight() {
                Some(w) => push_number(out, w),
                None => html::esc_into(out, raw("weight")),
            }
            if !counted {
                out.push_str(" (not counted)");
            }
            out.push_str("</td><td>");
            html::esc_into(out, raw("ts"));
            out.push_str("</td><td>");
            html::esc_into(out, raw("rationale"));
            out.push_str("</td></tr>\n");
        }
    }
    out.push_str("</tbody></table></div>\n</details>\n");
}

fn overview(rows: &[Row], passed_over: &[String]) -> Page {
    let mut page = Page::new("ledgers/index.html", "Ledgers");
    let _ = write!(
        page.body,
        "<h1>Standards ledgers</h1>\n<p class=\"lede\">ADR-140: a section's losing arguments may retire once its \
weighted votes reach {} and the top argument leads the next by at least +{}; a lone argument with both is \
consensus-locked.</p>\n",
        number(QUORUM),
        number(MARGIN)
    );
    if rows.is_empty() {
        page.push("<p>No voting docs under the configured paths.</p>\n");
    } else {
        page.push(
            "<div class=\"table\"><table>\n<caption>Every voting doc</caption>\n<thead><tr><th scope=\"col\">Doc</th>\
<th scope=\"col\" class=\"num\">Sections</th><th scope=\"col\">States</th><th scope=\"col\">Findings</th></tr></thead>\n<tbody>\n",
        );
        for row in rows {
            let _ = writeln!(
                page.body,
                "<tr><td>{}<br><code class=\"where\">{}</code></td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                page.link(&row.page, &row.title),
                esc(&row.path),
                row.sections,
                esc(&state_summary(&row.states)),
                esc(&row.counts)
            );
        }
        page.push("</tbody></table></div>\n");
    }
    if !passed_over.is_empty() {
        page.push("<h2>Not voting docs</h2>\n<p>These files sit on the voting paths but declare no <code>format: voting/…</code> and hold no <code>voting</code> block:</p>\n<ul>\n");
        for path in passed_over {
            let _ = writeln!(page.body, "<li><code>{}</code></li>", esc(path));
        }
        page.push("</ul>\n");
    }
    page
}
