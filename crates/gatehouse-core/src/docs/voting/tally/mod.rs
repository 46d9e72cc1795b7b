//! The tally of ADR-140 "Retirement margin and quorum", as pure functions:
//! per section the weighted totals from the stored weights, the weighted-vote
//! total against the quorum of 10, the margin against +5, and the state.
//! Weights are summed in millionths so totals are exact and hand-checkable.

mod text;

use serde::Serialize;

pub use text::{describe, describe_left_out, markdown, number, push_number, render_text, signed};

use crate::docs::voting::{Block, Section, VotingDoc};

/// ADR-140: "≥10 weighted-vote total across all arguments in the section".
pub const QUORUM: f64 = 10.0;
/// ADR-140: "≥+5 between the top-1 and top-2 arguments by weighted total".
pub const MARGIN: f64 = 5.0;

/// Tallies are sums of whole millionths: compared as such, thresholds are exact.
pub(super) const MICRO: f64 = 1_000_000.0;
pub(super) const QUORUM_MICROS: i128 = 10_000_000;
pub(super) const MARGIN_MICROS: i128 = 5_000_000;

/// `value` in whole millionths. A weight is at most `MAX_WEIGHT` × `MICRO`
/// (1e18): an i64, which the float converts to inline (to an i128 takes a
/// library call).
pub(super) fn micros(value: f64) -> i128 {
    i128::from((value * MICRO).round() as i64)
}

/// Where a section stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Below quorum, or within the margin.
    Open,
    /// Quorum and margin hold: every argument but the top one may retire
    /// (once the bootstrap unlock of ADR-140 "Hybrid bootstrap" is met;
    /// gatehouse reports eligibility, it never retires).
    RetirementEligible,
    /// A one-argument section with quorum and a total of at least +5.
    ConsensusLocked,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::RetirementEligible => "retirement-eligible",
            State::ConsensusLocked => "consensus-locked",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArgumentTally {
    pub id: String,
    pub kind: Option<String>,
    /// Σ vote × weight.
    pub total: f64,
    /// Votes counted: those with no `voting/vote-entry` error.
    pub votes: usize,
}

/// A vote the tally leaves out, and why: the problems `voting/vote-entry`
/// reports at its line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeftOut {
    /// The line of its first `voting/vote-entry` error, so the notice and
    /// the error it explains point at one line.
    pub line: u32,
    pub argument: String,
    /// `vote 2 (lin/opus-4.7)`.
    pub vote: String,
    /// Each problem, e.g. `` `ts` is `2026-05-06T09:42:11`: the timestamp has no time zone; … ``.
    /// JSON gives them as `voting/vote-entry` findings in the one finding
    /// shape beside the tally instead.
    #[serde(skip)]
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SectionTally {
    /// The block's `section` id (or where the block is, when it has none).
    pub section: String,
    pub heading: String,
    /// The heading's line.
    pub line: u32,
    pub arguments: Vec<ArgumentTally>,
    /// Σ weight over every valid vote in the section.
    pub weighted_votes: f64,
    pub quorum: f64,
    pub quorum_met: bool,
    /// Top-1 total − top-2 total; `None` with fewer than two arguments.
    pub margin: Option<f64>,
    pub state: State,
    /// The arguments sharing the highest total (several when tied).
    pub leaders: Vec<String>,
    /// The arguments that may retire (state `retirement-eligible`).
    pub losers: Vec<String>,
    pub active_argument: Option<String>,
    /// How many votes are left out: `left_out.len()`.
    pub ignored_votes: usize,
    /// The votes left out because they have a `voting/vote-entry` error, in
    /// ledger order: every surface counts the same votes.
    pub left_out: Vec<LeftOut>,
}

/// The tally of one voting doc, as `gatehouse tally FILE` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TallyReport {
    pub path: String,
    pub doc: Option<String>,
    pub version: Option<i64>,
    pub sections: Vec<SectionTally>,
}

/// Why a document cannot be tallied, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct TallyError {
    pub path: String,
    pub line: u32,
    pub message: String,
}

/// Tallies one section's block.
pub fn tally(section: &Section, block: &Block) -> SectionTally {
    let mut arguments = Vec::new();
    let mut totals: Vec<i128> = Vec::new();
    let mut weighted: i128 = 0;
    let mut left_out = Vec::new();
    for argument in block.arguments() {
        let mut total: i128 = 0;
        let mut votes = 0;
        for vote in argument.votes() {
            match (vote.value(), vote.weight()) {
                (Some(value), Some(weight)) if vote.is_well_formed() => {
                    let micros = micros(weight);
                    total += i128::from(value) * micros;
                    weighted += micros;
                    votes += 1;
                }
                _ => {
                    let problems = vote.problems();
                    left_out.push(LeftOut {
                        line: problems.first().map_or(vote.node.line(), |p| p.node.line()),
                        argument: argument.name(),
                        vote: vote.name(),
                        reasons: problems.iter().map(|p| p.reason()).collect(),
                    });
                }
            }
        }
        totals.push(total);
        arguments.push(ArgumentTally {
            id: argument.name(),
            kind: argument.kind().map(str::to_string),
            total: total as f64 / MICRO,
            votes,
        });
    }
    let mut ranked: Vec<i128> = totals.clone();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    let top = ranked.first().copied();
    let margin = (ranked.len() >= 2).then(|| ranked[0] - ranked[1]);
    let quorum_met = weighted >= QUORUM_MICROS;
    let state = match (arguments.len(), top, margin) {
        (1, Some(total), _) if quorum_met && total >= MARGIN_MICROS => State::ConsensusLocked,
        (_, _, Some(margin)) if quorum_met && margin >= MARGIN_MICROS => State::RetirementEligible,
        _ => State::Open,
    };
    let leaders: Vec<String> =
        arguments.iter().zip(&totals).filter(|(_, t)| Some(**t) == top).map(|(a, _)| a.id.clone()).collect();
    let losers = match state {
        State::RetirementEligible => {
            arguments.iter().zip(&totals).filter(|(_, t)| Some(**t) != top).map(|(a, _)| a.id.clone()).collect()
        }
        _ => Vec::new(),
    };
    SectionTally {
        section: block.name(),
        heading: section.heading.clone(),
        line: section.line,
        arguments,
        weighted_votes: weighted as f64 / MICRO,
        quorum: QUORUM,
        quorum_met,
        margin: margin.map(|m| m as f64 / MICRO),
        state,
        leaders,
        losers,
        active_argument: block.active_argument().and_then(|a| a.scalar_text()).map(str::to_string),
        ignored_votes: left_out.len(),
        left_out,
    }
}

/// Tallies every section of a parsed doc that has a readable block.
pub fn tally_doc(doc: &VotingDoc) -> Vec<SectionTally> {
    doc.blocks().map(|(section, block)| tally(section, block)).collect()
}

/// Tallies one voting doc's text: the library side of `gatehouse tally FILE`.
/// Fails, with the line, when a section's block cannot be read or the doc
/// has no `voting` block at all.
pub fn tally_document(path: &str, text: &str) -> Result<TallyReport, TallyError> {
    let doc = VotingDoc::parse(path, text);
    let error = |line: u32, message: String| TallyError { path: path.to_string(), line, message };
    for section in &doc.sections {
        if let Some(Err(e)) = &section.block {
            return Err(error(e.line(), e.to_string()));
        }
    }
    let sections = tally_doc(&doc);
    if sections.is_empty() {
        return Err(error(1, "no `## ` section carries a `voting` block, so there is nothing to tally".into()));
    }
    Ok(TallyReport {
        path: path.to_string(),
        doc: doc.doc_name().map(str::to_string),
        version: doc.version(),
        sections,
    })
}

#[cfg(test)]
pub(in crate::docs::voting) mod tests {
    use super::*;

    const TS: &str = "2026-05-06T09:42:11Z";
    const RATIONALE: &str = "the bound example lands in the repository and the rule holds there";

    /// A one-section doc: per argument its kind and (vote, weight) pairs.
    fn doc(arguments: &[(&str, &[(i32, &str)])]) -> String {
        let mut text = "---\nformat: voting/v1\ndoc: t\nversion: 1\n---\n## S\n\n```voting\nsection: s\nactive_argument: A\narguments:\n".to_string();
        for (index, (id, votes)) in arguments.iter().enumerate() {
            let kind = if index == 0 { "original" } else { "counter-argument" };
            text.push_str(&format!("  - id: {id}\n    modification_kind: {kind}\n    vote_ledger:\n"));
            for (n, (vote, weight)) in votes.iter().enumerate() {
                text.push_str(&format!(
                    "      - voter: p{n}/m\n        vote: {vote:+}\n        weight: {weight}\n        ts: {TS}\n        \
                     rationale: {RATIONALE}\n"
                ));
            }
        }
        text.push_str("```\n");
        text
    }

    /// The tally of a one-section doc: per argument its (vote, weight) pairs.
    pub(in crate::docs::voting) fn section(arguments: &[(&str, &[(i32, &str)])]) -> SectionTally {
        let report = tally_document("g/t@v1.md", &doc(arguments)).unwrap();
        report.sections.into_iter().next().unwrap()
    }

    #[test]
    fn a_tie_at_the_top_stays_open_with_both_leading() {
        let t = section(&[("A", &[(1, "4"), (1, "2")]), ("B", &[(1, "3"), (1, "3")])]);
        assert_eq!((t.weighted_votes, t.quorum_met, t.margin), (12.0, true, Some(0.0)));
        assert_eq!(t.state, State::Open);
        assert_eq!(t.leaders, vec!["A", "B"]);
        assert!(t.losers.is_empty());
    }

    #[test]
    fn negative_totals_rank_and_retire_the_lowest() {
        // A: -1×2 = -2; B: -1×5 + -1×3 = -8; weighted 2+5+3 = 10; margin -2 - -8 = 6.
        let t = section(&[("A", &[(-1, "2")]), ("B", &[(-1, "5"), (-1, "3")])]);
        assert_eq!(t.arguments.iter().map(|a| a.total).collect::<Vec<_>>(), vec![-2.0, -8.0]);
        assert_eq!((t.weighted_votes, t.margin), (10.0, Some(6.0)));
        assert_eq!(t.state, State::RetirementEligible);
        assert_eq!((t.leaders.clone(), t.losers.clone()), (vec!["A".to_string()], vec!["B".to_string()]));
    }

    #[test]
    fn one_argument_locks_at_quorum_and_plus_five() {
        // +8 - 2 = +6 over 10 weighted votes: consensus-locked.
        let t = section(&[("A", &[(1, "8"), (-1, "2")])]);
        assert_eq!((t.arguments[0].total, t.weighted_votes, t.margin), (6.0, 10.0, None));
        assert_eq!(t.state, State::ConsensusLocked);
        // +7.45 - 2.55 = +4.9 over 10: below the margin, open.
        let t = section(&[("A", &[(1, "7.45"), (-1, "2.55")])]);
        assert_eq!((t.arguments[0].total, t.weighted_votes), (4.9, 10.0));
        assert_eq!(t.state, State::Open);
        // +9.9 over 9.9: below quorum, open.
        assert_eq!(section(&[("A", &[(1, "9.9")])]).state, State::Open);
    }

    #[test]
    fn sums_are_exact_at_the_thresholds() {
        // 100 × 0.1 is exactly 10 (a float sum would be 9.99…): quorum met,
        // margin +10 over the vote-less B.
        let votes: Vec<(i32, &str)> = (0..100).map(|_| (1, "0.1")).collect();
        let t = section(&[("A", &votes), ("B", &[])]);
        assert_eq!((t.weighted_votes, t.quorum_met, t.margin), (10.0, true, Some(10.0)));
        assert_eq!(t.state, State::RetirementEligible);
        assert_eq!(t.losers, vec!["B"]);
    }

    #[test]
    fn weights_past_the_cap_are_left_out_and_the_largest_allowed_add_exactly() {
        // 1e300 would overflow the exact sum: left out (vote-entry reports it).
        let t = section(&[("A", &[(1, "1e300"), (1, "1e300"), (1, "4")]), ("B", &[(-1, "1e12"), (-1, "1e12")])]);
        assert_eq!(t.ignored_votes, 2);
        assert_eq!(t.arguments.iter().map(|a| a.total).collect::<Vec<_>>(), vec![4.0, -2e12]);
        assert_eq!((t.weighted_votes, t.margin), (2e12 + 4.0, Some(2e12 + 4.0)));
        assert_eq!(t.state, State::RetirementEligible);
    }

    #[test]
    fn the_margin_is_between_the_top_two_and_invalid_votes_are_left_out() {
        // A +9, B +5, C -1: weighted 15, margin 4: open. The `vote: 2` and the
        // zero weight are ignored.
        let t = section(&[("A", &[(1, "9"), (2, "7")]), ("B", &[(1, "5"), (1, "0")]), ("C", &[(-1, "1")])]);
        assert_eq!(t.arguments.iter().map(|a| a.total).collect::<Vec<_>>(), vec![9.0, 5.0, -1.0]);
        assert_eq!((t.weighted_votes, t.margin, t.ignored_votes), (15.0, Some(4.0), 2));
        assert_eq!(t.state, State::Open);
    }

    #[test]
    fn a_vote_with_a_vote_entry_error_is_left_out_with_its_line_and_reason() {
        // A's second vote has a `ts` without a zone: it is not counted, on
        // every surface, at the line of the `ts` that the error points at.
        let text = doc(&[("A", &[(1, "8"), (1, "3")])]).replacen(
            &format!("weight: 3\n        ts: {TS}"),
            "weight: 3\n        ts: 2026-05-06T09:42:11",
            1,
        );
        let report = tally_document("g/t@v1.md", &text).unwrap();
        let t = &report.sections[0];
        assert_eq!((t.arguments[0].total, t.arguments[0].votes, t.weighted_votes), (8.0, 1, 8.0));
        let reason =
            "`ts` is `2026-05-06T09:42:11`: the timestamp has no time zone; end it with `Z` or an offset like `+02:00`";
        assert_eq!(
            t.left_out,
            vec![LeftOut {
                line: 23,
                argument: "A".into(),
                vote: "vote 2 (p1/m)".into(),
                reasons: vec![reason.into()]
            }]
        );
        assert_eq!(t.ignored_votes, 1);
        let line = format!("line 23: vote 2 (p1/m) on argument `A`: {reason}");
        let text = render_text(&report);
        assert!(
            text.contains(&format!("  left out         1 vote with a voting/vote-entry error\n    {line}\n")),
            "{text}"
        );
        let table = markdown(&report.path, &report.sections);
        assert!(table.contains(&format!("- section `s`, {line}\n")), "{table}");
        assert!(table.contains("| s | **A** +8 | 8 (not met) | — | open |"), "{table}");
        assert!(
            describe(t).ends_with("; open; 1 vote left out for a `voting/vote-entry` error (line 23)"),
            "{}",
            describe(t)
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["sections"][0]["left_out"][0]["line"], 23);
    }

    #[test]
    fn documents_render_as_text_json_and_markdown() {
        let report = tally_document("g/t@v1.md", &doc(&[("A", &[(1, "8"), (-1, "2")])])).unwrap();
        let text = render_text(&report);
        assert!(text.contains("g/t@v1.md (t@v1)"), "{text}");
        assert!(text.contains("state            consensus-locked"), "{text}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["sections"][0]["state"], "consensus-locked");
        assert_eq!(json["sections"][0]["arguments"][0]["total"], 6.0);
        let table = markdown(&report.path, &report.sections);
        assert!(table.contains("| s | **A** +6 | 10 (met) | — | consensus-locked |"), "{table}");
        assert_eq!(
            describe(&report.sections[0]),
            "section `s`: A +6; 10 weighted votes, quorum met (needs 10); consensus-locked"
        );
    }

    #[test]
    fn unreadable_blocks_and_empty_docs_are_errors_with_lines() {
        let err = tally_document("g/t@v1.md", "## S\n\n```voting\nsection: [\n```\n").unwrap_err();
        assert_eq!(err.line, 4, "{err}");
        assert!(err.to_string().contains("the `[` opened on line 4 is never closed"), "{err}");
        let err = tally_document("g/t@v1.md", "# Nothing\n").unwrap_err();
        assert_eq!(err.line, 1);
    }
}
