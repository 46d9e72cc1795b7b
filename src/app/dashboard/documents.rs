//! The dashboard's sections on the documents of the default branch, read
//! through the family views the rules and the site use: the voting
//! sections within reach of quorum or lock (ADR-140, by the tally `gatehouse
//! tally` prints), the open decisions by tier (ADR 0007's docket), and the
//! specs by stage (fondue `spec` v9). Pure: the default branch's documents
//! in, markdown out.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{code, plain};
use crate::docs::decision::docket::{Docketed, HUMAN_TIER};
use crate::docs::decision::lifecycle::Status;
use crate::docs::spec::state::{STAGES, State};
use crate::docs::voting::reach::{REACH, Reach, reach};
use crate::docs::voting::tally::{MARGIN, QUORUM, SectionTally, State as TallyState, number, signed};
use crate::model::ChangeSet;
use crate::reads::Needs;
use crate::rules::decision::DecisionView;
use crate::rules::spec::SpecView;
use crate::rules::voting::VotingView;

/// The families these sections read: nothing else of the default branch is.
pub(crate) const NEEDS: Needs = Needs { briefs_and_adrs: false, voting: true, specs: true, decisions: true };

/// At most this many items are listed in a section.
const LISTED: usize = 50;

/// The three sections, each under its `## ` heading.
pub(crate) fn sections(changes: &ChangeSet) -> String {
    let mut out = String::new();
    voting(&mut out, changes);
    decisions(&mut out, changes);
    specs(&mut out, changes);
    out
}

/// Appends `items`, at most [`LISTED`] of them, then how many more there are.
fn list(out: &mut String, items: &[String]) {
    for item in items.iter().take(LISTED) {
        out.push_str(item);
        out.push('\n');
    }
    if items.len() > LISTED {
        let _ = writeln!(out, "- …and {} more", items.len() - LISTED);
    }
}

/// `1 voting doc`, `2 voting docs`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// `1 weighted vote`, `2.5 weighted votes`.
fn weighted(value: f64) -> String {
    let unit = if value == 1.0 { "weighted vote" } else { "weighted votes" };
    format!("{} {unit}", number(value))
}

/// An open section within reach, with where it is.
struct Near {
    path: String,
    tally: SectionTally,
    reach: Reach,
}

fn voting(out: &mut String, changes: &ChangeSet) {
    let _ = write!(
        out,
        "\n## Voting sections within reach\n\nADR-140: a section locks at a weighted-vote total of at least {} \
         (quorum) with its top argument +{} ahead of the next (a lone argument at +{}). Listed: the open sections at \
         most {} from quorum or from lock, by the weights their ledgers store (as `gatehouse tally` counts them).\n\n",
        number(QUORUM),
        number(MARGIN),
        number(MARGIN),
        weighted(REACH)
    );
    let mut view = VotingView::new(changes);
    let (mut docs, mut open, mut near) = (0, 0, Vec::new());
    for at in 0..view.changed.len() {
        view.load(at);
        for (doc, tallies) in view.docs.iter().zip(&view.tallies) {
            docs += 1;
            open += tallies.iter().filter(|t| t.state == TallyState::Open).count();
            for t in tallies {
                if let Some(r) = reach(t).filter(Reach::within_reach) {
                    near.push(Near { path: doc.path.to_string(), tally: t.clone(), reach: r });
                }
            }
        }
    }
    if docs == 0 {
        out.push_str("No voting doc on the default branch.\n");
        return;
    }
    if near.is_empty() {
        let _ = writeln!(
            out,
            "None of the {} of {} is within reach.",
            plural(open, "open section"),
            plural(docs, "voting doc")
        );
        return;
    }
    near.sort_by(|a, b| a.reach.to_lock.total_cmp(&b.reach.to_lock).then_with(|| a.path.cmp(&b.path)));
    let items: Vec<String> = near.iter().map(near_item).collect();
    list(out, &items);
}

/// `- `path` section `s` (heading): 8 of 10 weighted votes; `A` leads `B` by
/// +3 (lock needs +5); quorum and lock 2 weighted votes away`.
fn near_item(near: &Near) -> String {
    let t = &near.tally;
    let mut ranked: Vec<_> = t.arguments.iter().collect();
    ranked.sort_by(|a, b| b.total.total_cmp(&a.total));
    let lead = match ranked.as_slice() {
        [only] => format!("lone argument {} at {}", code(&only.id), signed(only.total)),
        [first, second, ..] if first.total == second.total => {
            format!("{} and {} tied at {}", code(&first.id), code(&second.id), signed(first.total))
        }
        [first, second, ..] => {
            format!("{} leads {} by {}", code(&first.id), code(&second.id), signed(first.total - second.total))
        }
        [] => String::new(),
    };
    let Reach { to_quorum, to_lock } = near.reach;
    let needs = if to_quorum == 0.0 {
        format!("quorum met, lock {} away", weighted(to_lock))
    } else if to_quorum == to_lock {
        format!("quorum and lock {} away", weighted(to_lock))
    } else {
        format!("quorum {} away, lock {}", weighted(to_quorum), number(to_lock))
    };
    format!(
        "- {} section {} ({}): {} of {} weighted votes; {lead} (lock needs +{}); {needs}",
        code(&near.path),
        code(&t.section),
        plain(&t.heading),
        number(t.weighted_votes),
        number(QUORUM),
        number(MARGIN)
    )
}

fn decisions(out: &mut String, changes: &ChangeSet) {
    out.push_str(
        "\n## Open decisions by tier\n\nADR 0007: open is filed, triaged, deliberating, or resolved and awaiting \
         enactment; oldest first. A tier-2 decision is one a human sees before enactment.\n",
    );
    let view = DecisionView::new(changes);
    let docketed: Vec<Docketed> =
        view.decisions.iter().map(|d| Docketed::new(d.location.stem, &d.head)).filter(Docketed::is_open).collect();
    if docketed.is_empty() {
        out.push_str("\nNo decision is open.\n");
        return;
    }
    // Highest tier first; a manifest without a valid tier last.
    let mut tiers: BTreeMap<std::cmp::Reverse<Option<i64>>, Vec<&Docketed>> = BTreeMap::new();
    for d in &docketed {
        tiers.entry(std::cmp::Reverse(d.tier)).or_default().push(d);
    }
    for (std::cmp::Reverse(tier), mut open) in tiers {
        open.sort_by_key(|d| d.age_order());
        let heading = match tier {
            Some(HUMAN_TIER) => format!("Tier {HUMAN_TIER}: a human decides before enactment"),
            Some(tier) => format!("Tier {tier}"),
            None => "No valid tier".to_string(),
        };
        let _ = write!(out, "\n### {heading} ({})\n\n", open.len());
        let items: Vec<String> = open.iter().map(|d| decision_item(d)).collect();
        list(out, &items);
    }
}

/// `- Which backup tool? — `id`, deliberating, stakes high, filed 2026-07-06T10:00:00Z`.
fn decision_item(d: &Docketed) -> String {
    let status = match d.status {
        Some(Status::Resolved) => "resolved, awaiting enactment",
        Some(status) => status.name(),
        None => "no valid status",
    };
    let mut item = format!("- {} — {}, {status}", plain(d.question()), code(d.id));
    if let Some(stakes) = d.stakes() {
        let _ = write!(item, ", stakes {}", plain(stakes));
    }
    if let Some(filed) = d.manifest.text_field("filed_at") {
        let _ = write!(item, ", filed {}", plain(filed));
    }
    item
}

fn specs(out: &mut String, changes: &ChangeSet) {
    let _ = write!(
        out,
        "\n## Specs by stage\n\nfondue `spec` v9: {}, then `done` (or `abandoned`). Specs in `archive/` are history and \
         not listed.\n",
        STAGES[..6].iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" → ")
    );
    let view = SpecView::new(changes);
    let mut by_stage: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let (mut done, mut abandoned, mut unknown) = (0, 0, Vec::new());
    for spec in view.current() {
        let title = spec.title().map(|t| format!(" {}", plain(t))).unwrap_or_default();
        match &spec.state {
            Some(Ok(State::Done)) => done += 1,
            Some(Ok(State::Abandoned)) => abandoned += 1,
            Some(Ok(state)) => {
                let item = format!("- {}{title}: {}", code(&spec.root), code(&state.to_string()));
                by_stage.entry(state.stage().unwrap_or_default()).or_default().push(item);
            }
            Some(Err(e)) => unknown.push(format!(
                "- {}{title}: `current-state.txt` line {}: {}",
                code(&spec.root),
                e.line,
                plain(&e.message)
            )),
            None => unknown.push(format!("- {}{title}: no `current-state.txt`", code(&spec.root))),
        }
    }
    if by_stage.is_empty() && unknown.is_empty() && done + abandoned == 0 {
        out.push_str("\nNo spec folder on the default branch.\n");
        return;
    }
    for (stage, items) in &by_stage {
        let _ = write!(out, "\n### {} ({})\n\n", STAGES[*stage], items.len());
        list(out, items);
    }
    if !unknown.is_empty() {
        let _ = write!(out, "\n### No valid state ({})\n\n", unknown.len());
        list(out, &unknown);
    }
    let _ = writeln!(out, "\nDone: {done}; abandoned: {abandoned}.");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileContent;

    const GUIDE: &str = "dark-factory/guidelines/smoke-spec-path@v1.md";
    const RATIONALE: &str = "the bound example lands in the repository and the rule holds there";

    type Arguments<'a> = &'a [(&'a str, &'a [(i32, &'a str)])];

    /// A voting doc: per section its id, heading and arguments with their
    /// (vote, weight) pairs.
    fn voting_doc(sections: &[(&str, &str, Arguments)]) -> String {
        let mut text = "---\nformat: voting/v1\ndoc: smoke-spec-path\nversion: 1\n---\n".to_string();
        for (id, heading, arguments) in sections {
            text.push_str(&format!("## {heading}\n\n```voting\nsection: {id}\narguments:\n"));
            for (index, (argument, votes)) in arguments.iter().enumerate() {
                let kind = if index == 0 { "original" } else { "counter-argument" };
                text.push_str(&format!("  - id: {argument}\n    modification_kind: {kind}\n    vote_ledger:\n"));
                for (n, (vote, weight)) in votes.iter().enumerate() {
                    text.push_str(&format!(
                        "      - voter: p{n}/m\n        vote: {vote:+}\n        weight: {weight}\n        \
                         ts: 2026-05-06T09:42:11Z\n        rationale: {RATIONALE}\n"
                    ));
                }
            }
            text.push_str("```\n\n");
        }
        text
    }

    fn changes(files: &[(&str, &str)]) -> ChangeSet {
        let mut changes = ChangeSet::default();
        for (path, text) in files {
            changes.head.insert(path.to_string(), FileContent::from_bytes(text.as_bytes(), 1 << 20));
        }
        changes
    }

    /// The text of the `## heading` section, up to the next `## `.
    fn section<'b>(body: &'b str, heading: &str) -> &'b str {
        let start = body.find(&format!("\n## {heading}\n")).unwrap_or_else(|| panic!("no {heading}: {body}"));
        let rest = &body[start + 1..];
        let end = rest[3..].find("\n## ").map_or(rest.len(), |at| at + 3);
        &rest[..end]
    }

    #[test]
    fn voting_sections_within_three_weighted_votes_are_listed_nearest_first() {
        let doc = voting_doc(&[
            ("lone-at-reach", "Lone at the boundary", &[("A", &[(1, "7")])]),
            ("lone-past", "A millionth past it", &[("A", &[(1, "6.999999")])]),
            ("far-lead", "Quorum near, lead far", &[("A", &[(1, "3"), (-1, "5")])]),
            ("margin-near", "Asked by @lin", &[("A", &[(1, "6")]), ("B", &[(1, "3.5"), (1, "0.5")])]),
            ("tied", "Tied", &[("A", &[(1, "4.5")]), ("B", &[(1, "4.5")])]),
            ("locked", "Locked already", &[("A", &[(1, "8"), (-1, "2")])]),
        ]);
        let body = sections(&changes(&[(GUIDE, &doc)]));
        let voting = section(&body, "Voting sections within reach");
        let items: Vec<&str> = voting.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(
            items,
            [
                "- `dark-factory/guidelines/smoke-spec-path@v1.md` section `lone-at-reach` (Lone at the boundary): 7 of \
                 10 weighted votes; lone argument `A` at +7 (lock needs +5); quorum and lock 3 weighted votes away",
                "- `dark-factory/guidelines/smoke-spec-path@v1.md` section `margin-near` (Asked by @\u{200b}lin): 10 of 10 \
                 weighted votes; `A` leads `B` by +2 (lock needs +5); quorum met, lock 3 weighted votes away",
                "- `dark-factory/guidelines/smoke-spec-path@v1.md` section `tied` (Tied): 9 of 10 weighted votes; `A` \
                 and `B` tied at +4.5 (lock needs +5); quorum 1 weighted vote away, lock 5",
                "- `dark-factory/guidelines/smoke-spec-path@v1.md` section `far-lead` (Quorum near, lead far): 8 of 10 \
                 weighted votes; lone argument `A` at -2 (lock needs +5); quorum 2 weighted votes away, lock 7",
            ],
            "{voting}"
        );
        assert!(voting.contains("at most 3 weighted votes from quorum or from lock"), "{voting}");
    }

    #[test]
    fn empty_states_say_what_there_is() {
        let body = sections(&changes(&[]));
        assert!(section(&body, "Voting sections within reach").contains("No voting doc on the default branch.\n"));
        assert!(section(&body, "Open decisions by tier").contains("No decision is open.\n"));
        assert!(section(&body, "Specs by stage").contains("No spec folder on the default branch.\n"));
        let far = voting_doc(&[("a", "A", &[("A", &[(1, "2")])]), ("b", "B", &[("A", &[(1, "8"), (-1, "2")])])]);
        let closed = r#"{"status": "enacted", "tier": 2, "question": "Done?"}"#;
        let body = sections(&changes(&[
            (GUIDE, &far),
            (".harnery/decisions/done-2026-07-06-a1b2.json", closed),
            ("fondue/specs/old/current-state.txt", "done\n"),
            ("fondue/specs/gone/current-state.txt", "abandoned\n"),
        ]));
        let voting = section(&body, "Voting sections within reach");
        assert!(voting.contains("None of the 1 open section of 1 voting doc is within reach.\n"), "{voting}");
        assert!(section(&body, "Open decisions by tier").contains("No decision is open.\n"), "{body}");
        let specs = section(&body, "Specs by stage");
        assert!(!specs.contains("### ") && specs.ends_with("\nDone: 1; abandoned: 1.\n"), "{specs}");
    }

    #[test]
    fn open_decisions_are_grouped_by_tier_highest_first_and_oldest_first() {
        let manifest = |status: &str, tier: &str, question: &str, filed: &str| {
            format!(
                r#"{{"status": "{status}", "tier": {tier}, "stakes": "high", "question": "{question}", "filed_at": "{filed}"}}"#
            )
        };
        let files = [
            ("a-2026-07-10-0001", manifest("deliberating", "2", "Which queue? cc @dana", "2026-07-10T13:00:00Z")),
            ("b-2026-07-06-0002", manifest("resolved", "2", "<!-- hidden --> Backup window", "2026-07-06T08:00:00Z")),
            ("c-2026-07-07-0003", manifest("filed", "0", "Log format", "2026-07-07T08:00:00Z")),
            ("d-2026-07-08-0004", manifest("triaged", "\"two\"", "Cache TTL", "2026-07-08T08:00:00Z")),
            ("e-2026-07-01-0005", manifest("reviewed", "1", "Closed one", "2026-07-01T08:00:00Z")),
            ("f-2026-07-02-0006", manifest("wontfix", "1", "Won't", "2026-07-02T08:00:00Z")),
        ];
        let files: Vec<(String, String)> =
            files.into_iter().map(|(id, text)| (format!(".harnery/decisions/{id}.json"), text)).collect();
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let body = sections(&changes(&files));
        let decisions = section(&body, "Open decisions by tier");
        let expected = "### Tier 2: a human decides before enactment (2)\n\n\
            - &lt;!-- hidden --> Backup window — `b-2026-07-06-0002`, resolved, awaiting enactment, stakes high, filed \
            2026-07-06T08:00:00Z\n\
            - Which queue? cc @\u{200b}dana — `a-2026-07-10-0001`, deliberating, stakes high, filed 2026-07-10T13:00:00Z\n\
            \n### Tier 0 (1)\n\n\
            - Log format — `c-2026-07-07-0003`, filed, stakes high, filed 2026-07-07T08:00:00Z\n\
            \n### No valid tier (1)\n\n\
            - Cache TTL — `d-2026-07-08-0004`, triaged, stakes high, filed 2026-07-08T08:00:00Z\n";
        assert!(decisions.ends_with(expected), "{decisions}");
        assert!(!decisions.contains("Closed one") && !decisions.contains("Won't"), "{decisions}");
    }

    #[test]
    fn specs_are_listed_by_stage_and_archived_ones_not_at_all() {
        let body = sections(&changes(&[
            ("fondue/specs/csv/current-state.txt", "implementation:02:Review\n"),
            ("fondue/specs/csv/pre-plan/00-brief.md", "# CSV export for @lin\n\n## Goal\n"),
            ("fondue/specs/search/current-state.txt", "pre-plan:Draft\n"),
            ("fondue/specs/index/current-state.txt", "audit:tests:Answer\n"),
            ("fondue/specs/bad/current-state.txt", "implementation:2:Draft\n"),
            ("fondue/specs/bare/pre-plan/00-brief.md", "# Bare\n"),
            ("fondue/specs/old/current-state.txt", "done\n"),
            ("fondue/specs/archive/older/current-state.txt", "plan:Draft\n"),
        ]));
        let specs = section(&body, "Specs by stage");
        let expected = "### pre-plan (1)\n\n- `fondue/specs/search`: `pre-plan:Draft`\n\
            \n### implementation (1)\n\n- `fondue/specs/csv` CSV export for @\u{200b}lin: `implementation:02:Review`\n\
            \n### audit (1)\n\n- `fondue/specs/index`: `audit:tests:Answer`\n\
            \n### No valid state (2)\n\n";
        assert!(specs.contains(expected), "{specs}");
        assert!(specs.contains("- `fondue/specs/bad`: `current-state.txt` line 1: "), "{specs}");
        assert!(specs.contains("- `fondue/specs/bare` Bare: no `current-state.txt`\n"), "{specs}");
        assert!(specs.ends_with("\nDone: 1; abandoned: 0.\n"), "{specs}");
        assert!(!specs.contains("older") && !specs.contains("### plan"), "{specs}");
    }

    #[test]
    fn no_at_sign_outside_code_mentions_anyone() {
        let doc = voting_doc(&[("s", "Asked by @lin", &[("A", &[(1, "7")])])]);
        let decision = r#"{"status": "filed", "tier": 1, "stakes": "@ops", "question": "Ping @dana?",
                           "filed_at": "@org/team"}"#;
        let files = [
            ("dark-factory/guidelines/at@v1.md", doc.as_str()),
            (".harnery/decisions/x@y-2026-07-06-a1b2.json", decision),
            ("fondue/specs/@lin/current-state.txt", "implementation:@lin:Draft\n"),
            ("fondue/specs/@lin/pre-plan/00-brief.md", "# For @lin and @priya\n"),
        ];
        let pulls =
            [super::super::Pull { number: 3, title: "Fix @lin's @org/team".into(), draft: false, runs: vec![] }];
        let body = super::super::render("acme/docs", &pulls, &[], Some(&changes(&files)));
        for (at, part) in body.split('`').enumerate() {
            // Even parts are outside code spans: every `@` there is defused.
            if at % 2 == 0 {
                for (i, _) in part.match_indices('@') {
                    assert!(part[i + 1..].starts_with('\u{200b}'), "{part:?} in {body}");
                }
            }
        }
        assert!(body.contains("`dark-factory/guidelines/at@v1.md`"), "{body}");
        assert!(body.contains("`fondue/specs/@lin` For @\u{200b}lin and @\u{200b}priya:"), "{body}");
        assert!(body.contains("Ping @\u{200b}dana?"), "{body}");
        assert!(body.contains("#3 Fix @\u{200b}lin's @\u{200b}org/team"), "{body}");
    }

    #[test]
    fn long_lists_stop_at_fifty() {
        let mut files = Vec::new();
        for n in 0..52 {
            files.push((format!("fondue/specs/s{n:02}/current-state.txt"), "brief\n".to_string()));
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let specs = sections(&changes(&files));
        assert!(specs.contains("### brief (52)\n"), "{specs}");
        assert!(specs.contains("- `fondue/specs/s49`: `brief`\n- …and 2 more\n"), "{specs}");
        assert!(!specs.contains("s50"), "{specs}");
    }
}
