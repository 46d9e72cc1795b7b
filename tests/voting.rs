//! Voting docs end to end: bad input as precise findings, and the properties
//! of ADR-140's append-only ledgers.

use gatehouse::docs::voting::VotingDoc;
use gatehouse::model::{ChangeSet, FileContent, Finding, PrInfo};
use gatehouse::rules::evaluate;
use proptest::prelude::*;

const PATH: &str = "dark-factory/guidelines/smoke-spec-path@v1.md";

#[derive(Clone, Debug)]
struct Vote {
    voter: String,
    vote: i8,
    weight: String,
    ts: String,
    rationale: String,
}

#[derive(Clone, Debug)]
struct Argument {
    id: String,
    original: bool,
    votes: Vec<Vote>,
}

/// A doc as data, rendered the way people write voting docs.
#[derive(Clone, Debug)]
struct Doc {
    intro: String,
    sections: Vec<Vec<Argument>>,
}

impl Doc {
    fn render(&self) -> String {
        let mut text = format!(
            "---\nformat: voting/v1\ndoc: smoke-spec-path\nversion: 1\n---\n# Smoke spec path\n\n{}\n",
            self.intro
        );
        for (s, arguments) in self.sections.iter().enumerate() {
            text.push_str(&format!(
                "\n## Section {s}\n\n```voting\nsection: section-{s}\nactive_argument: A\narguments:\n"
            ));
            for a in arguments {
                let (kind, target, refs) = if a.original {
                    ("original", "", "[]")
                } else {
                    ("counter-example", "    target: A\n", "[gyrum-labs/ai-frontend#430]")
                };
                text.push_str(&format!(
                    "  - id: {}\n    proposer: author-{}/opus-4.7\n    proposed_at: 2026-05-06\n    proposition: Smoke specs live under tests/e2e/ in form {}.\n    rationale: |\n      The CI smoke job globs tests/e2e/ and every reviewed repository agrees.\n    evidence_pr_refs: {refs}\n    example:\n      artefact: tests/e2e/login.spec.ts\n      diff_snapshot_ref: gyrum-labs/ai-frontend#412\n      explanation: The login smoke spec.\n    modification_kind: {kind}\n{target}    vote_ledger:{}\n",
                    a.id,
                    a.id.to_lowercase(),
                    a.id,
                    if a.votes.is_empty() { " []" } else { "" }
                ));
                for v in &a.votes {
                    text.push_str(&format!(
                        "      - voter: {}\n        vote: {:+}\n        weight: {}\n        ts: {}\n        rationale: \"{}\"\n",
                        v.voter, v.vote, v.weight, v.ts, v.rationale
                    ));
                }
            }
            text.push_str("```\n");
        }
        text
    }
}

fn vote(n: usize, vote: i8, weight: &str) -> Vote {
    Vote {
        voter: format!("voter{n}/opus-4.7"),
        vote,
        weight: weight.to_string(),
        ts: format!("2026-05-{:02}T{:02}:00:00Z", 7 + n / 24, n % 24),
        rationale: format!("Vote {n}: the rule matched the repository state in every review."),
    }
}

fn base_doc() -> Doc {
    let a = Argument { id: "A".into(), original: true, votes: (0..4).map(|n| vote(n, 1, "1.5")).collect() };
    let b = Argument { id: "B".into(), original: false, votes: (4..6).map(|n| vote(n, -1, "0.5")).collect() };
    let c = Argument { id: "A".into(), original: true, votes: vec![vote(6, 1, "2")] };
    Doc { intro: "Where smoke specs live.".into(), sections: vec![vec![a, b], vec![c]] }
}

fn changes(base: Option<&str>, head: &str, body: Option<&str>) -> ChangeSet {
    let mut changes =
        ChangeSet { pr: PrInfo { body: body.map(str::to_string), ..Default::default() }, ..Default::default() };
    if let Some(base) = base {
        changes.base.insert(PATH.into(), FileContent::Text(base.into()));
    }
    changes.head.insert(PATH.into(), FileContent::Text(head.into()));
    changes
}

fn findings(base: Option<&str>, head: &str) -> Vec<Finding> {
    evaluate(&changes(base, head, Some("Voting-format: v1"))).findings().cloned().collect()
}

fn fired(findings: &[Finding], rule: &str) -> Vec<u32> {
    findings.iter().filter(|f| f.rule == rule).map(|f| f.span.line).collect()
}

fn line_of(text: &str, needle: &str) -> u32 {
    text.lines().position(|l| l.contains(needle)).expect(needle) as u32 + 1
}

#[test]
fn the_generated_doc_is_valid() {
    let text = base_doc().render();
    let all = findings(None, &text);
    assert!(all.iter().all(|f| f.severity != gatehouse::model::Severity::Error), "{all:#?}");
}

#[test]
fn an_alias_bomb_is_one_finding_at_its_line() {
    let text = base_doc().render().replace("section: section-1\n", "section: section-1\nbomb: &a [x, x, x, x, x, x, x, x, x]\nb2: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nb3: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nb4: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n");
    let all = findings(None, &text);
    assert_eq!(fired(&all, "voting/section-block"), vec![line_of(&text, "b4: [*c")], "{all:#?}");
    let message = &all.iter().find(|f| f.rule == "voting/section-block").unwrap().message;
    assert!(message.contains("more than 10000 values"), "{message}");
}

#[test]
fn vote_two_and_a_zoneless_timestamp_are_found_at_their_lines() {
    let mut doc = base_doc();
    doc.sections[0][0].votes[1].vote = 2;
    doc.sections[0][1].votes[0].ts = "2026-05-08T14:00:00".into();
    let text = doc.render();
    let all = findings(None, &text);
    let two = line_of(&text, "vote: +2");
    let zoneless = line_of(&text, "ts: 2026-05-08T14:00:00");
    assert_eq!(fired(&all, "voting/vote-entry"), vec![two, zoneless]);
    assert!(all.iter().any(|f| f.message.contains("a vote is +1 or -1")));
    assert!(all.iter().any(|f| f.message.contains("no time zone")));
}

#[test]
fn a_vote_with_a_vote_entry_error_is_counted_on_no_surface() {
    // Section 0: A has four +1 × 1.5 votes, B two -1 × 0.5. A's second vote
    // is `vote: 2` and B's first has a `ts` without a zone: both are left out.
    let mut doc = base_doc();
    doc.sections[0][0].votes[1].vote = 2;
    doc.sections[0][1].votes[0].ts = "2026-05-08T14:00:00".into();
    let text = doc.render();
    // The notice names the lines its `voting/vote-entry` errors point at.
    let two = line_of(&text, "vote: +2");
    let zoneless = line_of(&text, "ts: 2026-05-08T14:00:00");
    let report = evaluate(&changes(None, &text, Some("Voting-format: v1")));
    let notice = report.findings().find(|f| f.rule == "voting/tally" && f.message.contains("section-0")).unwrap();
    assert_eq!(
        notice.message,
        format!(
            "section `section-0`: A +4.5, B -0.5; 5 weighted votes, below quorum (needs 10); margin +5 (needs +5); \
             open; 2 votes left out for a `voting/vote-entry` error (lines {two}, {zoneless})"
        )
    );
    let voting = report.checks.iter().find(|c| c.name == "gatehouse/voting").unwrap();
    let summary = voting.details.join("\n");
    assert!(summary.contains("| section-0 | **A** +4.5 · B -0.5 | 5 (not met) | +5 | open |"), "{summary}");
    assert!(summary.contains("Left out of the tally: 2 votes with a `voting/vote-entry` error"), "{summary}");
    assert!(
        summary.contains(&format!(
            "- section `section-0`, line {two}: vote 2 (voter1/opus-4.7) on argument `A`: `vote` is `+2`; a vote is +1 or -1\n"
        )),
        "{summary}"
    );
    assert!(summary.contains(&format!("- section `section-0`, line {zoneless}: vote 1 (voter4/opus-4.7) on argument `B`: `ts` is `2026-05-08T14:00:00`: the timestamp has no time zone")), "{summary}");
    let tally = gatehouse::docs::voting::tally::tally_document(PATH, &text).unwrap();
    let rendered = gatehouse::docs::voting::tally::render_text(&tally);
    assert!(rendered.contains("  weighted votes   5 (quorum 10: not met)\n"), "{rendered}");
    assert!(rendered.contains("  left out         2 votes with a voting/vote-entry error\n"), "{rendered}");
    assert!(
        rendered.contains(&format!("    line {zoneless}: vote 1 (voter4/opus-4.7) on argument `B`: ")),
        "{rendered}"
    );
}

#[test]
fn sections_with_two_blocks_or_none_and_duplicate_ids_are_found_at_their_lines() {
    let text = base_doc().render();
    let text = text.replace("## Section 1\n", "## No block here\n\nProse.\n\n## Section 1\n");
    let text = format!("{text}\n```voting\nsection: again\n```\n");
    let text = text.replacen("  - id: B\n", "  - id: A\n", 1);
    let all = findings(None, &text);
    let second_block = text.lines().collect::<Vec<_>>().iter().rposition(|l| *l == "```voting").unwrap() as u32 + 1;
    assert_eq!(fired(&all, "voting/section-block"), vec![line_of(&text, "## No block here"), second_block]);
    let duplicate = text.lines().enumerate().filter(|(_, l)| *l == "  - id: A").nth(1).unwrap().0 as u32 + 1;
    assert_eq!(fired(&all, "voting/argument-id"), vec![duplicate]);
}

#[test]
fn a_hundred_thousand_vote_ledger_is_read_and_its_bad_vote_found() {
    let mut doc = base_doc();
    doc.sections[1][0].votes = (0..100_000).map(|n| vote(n, 1, "0.25")).collect();
    for (n, v) in doc.sections[1][0].votes.iter_mut().enumerate() {
        // Keep time moving forward across the 100,000 votes.
        v.ts = format!("2026-05-07T00:00:00.{n:06}Z");
    }
    doc.sections[1][0].votes[99_999].weight = "-3".into();
    let text = doc.render();
    let all = findings(None, &text);
    assert_eq!(fired(&all, "voting/vote-entry"), vec![line_of(&text, "weight: -3")]);
    let tally = all.iter().find(|f| f.rule == "voting/tally" && f.message.contains("section-1")).unwrap();
    assert!(tally.message.contains("A +24999.75; 24999.75 weighted votes"), "{}", tally.message);
}

/// `AAAA`, `AAAB`, …: ids whose lexicographic order is their order (ADR-140).
fn id(n: usize) -> String {
    (0..4).rev().map(|place| char::from(b'A' + (n / 26usize.pow(place) % 26) as u8)).collect()
}

#[test]
fn twenty_thousand_arguments_cost_linear_time() {
    let mut doc = base_doc();
    doc.sections[1] = (0..20_000).map(|n| Argument { id: id(n), original: n == 0, votes: Vec::new() }).collect();
    let text = doc.render().replace("    target: A\n", "    target: ZZZZ\n");
    let all = findings(None, &text);
    // Section 0's B and every modification in section 1 name a missing target.
    assert_eq!(fired(&all, "voting/target").len(), 1 + 19_999);
    assert!(all.iter().any(|f| f.rule == "voting/target"
        && f.message.contains("(it has AAAA, AAAB, AAAC, AAAD, AAAE, AAAF, AAAG, AAAH, AAAI, AAAJ, and 19990 more)")));
    assert!(fired(&all, "voting/argument-id").is_empty());
}

#[test]
fn a_published_doc_that_changes_is_compared_in_full() {
    let base = base_doc();
    let mut head = base.clone();
    head.intro = "Where smoke specs live, amended.".into();
    head.sections[0][0].votes[2].weight = "9".into();
    let (base, head) = (base.render(), head.render());
    let all = findings(Some(&base), &head);
    assert_eq!(fired(&all, "voting/immutable-version"), vec![line_of(&head, "amended")]);
    assert_eq!(fired(&all, "voting/append-only"), vec![line_of(&head, "weight: 9")]);
    let edit = all.iter().find(|f| f.rule == "voting/append-only").unwrap();
    assert!(
        edit.message.contains("vote 3 (voter2/opus-4.7) on argument `A` is edited: `weight` `1.5` → `9`"),
        "{}",
        edit.message
    );
}

/// Appends to a doc: votes at the ends of ledgers, then maybe a new argument.
fn appended() -> impl Strategy<Value = (Doc, bool)> {
    let votes = prop::collection::vec((0usize..3, any::<bool>(), 1u32..400, 20usize..90), 1..6);
    (votes, any::<bool>(), any::<bool>()).prop_map(|(votes, new_argument, prose_too)| {
        let mut doc = base_doc();
        for (i, (target, up, weight, len)) in votes.into_iter().enumerate() {
            let argument = match target {
                0 => &mut doc.sections[0][0],
                1 => &mut doc.sections[0][1],
                _ => &mut doc.sections[1][0],
            };
            let mut v = vote(100 + i, if up { 1 } else { -1 }, &format!("{}.{}", weight / 10, weight % 10));
            v.rationale = "r".repeat(len);
            argument.votes.push(v);
        }
        if new_argument {
            doc.sections[0].push(Argument { id: "C".into(), original: false, votes: vec![vote(200, 1, "1")] });
        }
        if prose_too {
            doc.intro.push_str(" Amended.");
        }
        (doc, prose_too)
    })
}

/// One edit of a published vote: change a field, remove it, or swap it with
/// its neighbour.
fn edited() -> impl Strategy<Value = Doc> {
    (0usize..3, 0usize..6, 0usize..4).prop_map(|(target, index, edit)| {
        let mut doc = base_doc();
        let argument = match target {
            0 => &mut doc.sections[0][0],
            1 => &mut doc.sections[0][1],
            _ => &mut doc.sections[1][0],
        };
        let len = argument.votes.len();
        let index = index % len;
        match edit {
            0 => argument.votes[index].weight.push('5'),
            1 => argument.votes[index].vote = -argument.votes[index].vote,
            2 => {
                argument.votes.remove(index);
            }
            _ if len >= 2 => argument.votes.swap(index, (index + 1) % len),
            _ => argument.votes[index].rationale.push_str(" Edited."),
        }
        doc
    })
}

const LONG_RATIONALE: &str = "\"The CI smoke job globs tests/e2e/ and every reviewed repository agrees.\"";

/// One vote entry's fields as written, each from values ADR-140 accepts and
/// values it does not, with whether any is wrong (`None`: the field left out).
fn vote_fields() -> impl Strategy<Value = (Vec<(&'static str, Option<&'static str>)>, bool)> {
    let field = |name: &'static str, good: &'static [&'static str], bad: &'static [&'static str]| {
        // Mostly right, so that a quarter of the entries are right throughout.
        let good: Vec<_> = good.iter().map(|v| (Some(*v), false)).collect();
        let bad: Vec<_> = bad.iter().map(|v| (Some(*v), true)).chain([(None, name != "scope_match")]).collect();
        prop_oneof![4 => prop::sample::select(good), 1 => prop::sample::select(bad)]
            .prop_map(move |(v, wrong)| ((name, v), wrong))
    };
    (
        field("voter", &["voter9/opus-4.7", "'lin/opus-4.7'"], &["voter9", "12", "'/opus'"]),
        field("vote", &["+1", "-1", "1"], &["2", "0", "'+1'", "1.0"]),
        field("weight", &["1.5", "2", ".5", "1e3", "1e12"], &["0", "-1", "x", "'1.5'", "1e300", ".inf"]),
        field(
            "ts",
            &["2026-05-07T00:00:00Z", "2026-05-07T02:00:00.5+02:00"],
            &["2026-05-07T00:00:00", "2026-05-07", "2026-02-30T00:00:00Z"],
        ),
        field("rationale", &[LONG_RATIONALE], &["\"too short\"", "12", "[a, b]"]),
        field("scope_match", &["0.9", "0", "1"], &["1.5", "x"]),
    )
        .prop_map(|(a, b, c, d, e, f)| {
            let fields = [a, b, c, d, e, f];
            (fields.iter().map(|(field, _)| *field).collect(), fields.iter().any(|(_, wrong)| *wrong))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn vote_entry_fires_exactly_when_a_field_is_wrong((fields, wrong) in vote_fields()) {
        let doc = base_doc().render();
        let first = "      - voter: voter0/opus-4.7\n        vote: +1\n        weight: 1.5\n        ts: 2026-05-07T00:00:00Z\n        rationale: \"Vote 0: the rule matched the repository state in every review.\"\n";
        let written: Vec<String> =
            fields.iter().filter_map(|(name, value)| value.map(|v| format!("{name}: {v}"))).collect();
        let entry = format!("      - {}\n", written.join("\n        "));
        prop_assert!(doc.contains(first));
        let head = doc.replacen(first, &entry, 1);
        let lines = fired(&findings(None, &head), "voting/vote-entry");
        let at = line_of(&head, "      - ");
        prop_assert_eq!(!lines.is_empty(), wrong, "{}", entry);
        prop_assert!(lines.iter().all(|l| (at..at + 6).contains(l)), "{:?} {}", lines, entry);
    }

    #[test]
    fn appending_votes_and_arguments_never_breaks_append_only((head, prose_changed) in appended()) {
        let base = base_doc().render();
        let all = findings(Some(&base), &head.render());
        prop_assert!(fired(&all, "voting/append-only").is_empty(), "{:#?}", all);
        prop_assert_eq!(fired(&all, "voting/immutable-version").is_empty(), !prose_changed);
    }

    #[test]
    fn editing_removing_or_reordering_a_published_vote_always_breaks_it(head in edited()) {
        let base = base_doc().render();
        let all = findings(Some(&base), &head.render());
        prop_assert_eq!(fired(&all, "voting/append-only").len(), 1, "{:#?}", all);
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = VotingDoc::parse(PATH, &text);
        let _ = evaluate(&changes(Some(&base_doc().render()), &text, None));
    }

    #[test]
    fn spliced_docs_never_panic(cuts in prop::collection::vec((0usize..200, 0usize..200), 1..6)) {
        // Lines of a valid doc, duplicated, dropped and shuffled.
        let text = base_doc().render();
        let lines: Vec<&str> = text.lines().collect();
        let mut out: Vec<&str> = lines.clone();
        for (from, to) in cuts {
            let (from, to) = (from % lines.len(), to % (out.len() + 1));
            out.insert(to, lines[from]);
            if to % 3 == 0 && !out.is_empty() {
                out.remove(from % out.len());
            }
        }
        let head = out.join("\n");
        let _ = gatehouse::docs::voting::tally::tally_document(PATH, &head);
        let _ = evaluate(&changes(Some(&text), &head, None));
    }
}

/// The rules see one doc at a time; what concerns the change as a whole (the
/// PR body's cite, deleted docs) is still reported once.
#[test]
fn change_wide_findings_are_made_once_for_many_docs() {
    let text = include_str!(
        "../crates/gatehouse-core/fixtures/rules/voting/format-cite/pass/head/dark-factory/guidelines/smoke-spec-path@v1.md"
    );
    let mut changes = changes(None, text, None);
    for name in ["a-rule", "b-rule"] {
        changes.head.insert(format!("dark-factory/guidelines/{name}@v1.md"), FileContent::Text(text.into()));
    }
    changes.base.insert("dark-factory/guidelines/gone@v1.md".into(), FileContent::Text(text.into()));
    let report = evaluate(&changes);
    let all: Vec<&Finding> = report.findings().collect();
    let cite: Vec<&&Finding> = all.iter().filter(|f| f.rule == "voting/format-cite").collect();
    assert_eq!(cite.len(), 1, "{all:#?}");
    assert_eq!(cite[0].path, "dark-factory/guidelines/a-rule@v1.md");
    assert!(cite[0].message.contains("touches 3 voting docs"), "{}", cite[0].message);
    let deleted: Vec<(&str, u32)> = all
        .iter()
        .filter(|f| f.rule == "voting/immutable-version" && f.path.ends_with("gone@v1.md"))
        .map(|f| (f.path.as_str(), f.span.line))
        .collect();
    assert_eq!(deleted, vec![("dark-factory/guidelines/gone@v1.md", 1)]);
    let voting = report.checks.iter().find(|c| c.name == "gatehouse/voting").expect("the voting check");
    assert_eq!(voting.documents, 4);
}

/// The one finding of `rule`, with its line and message.
fn only(findings: &[Finding], rule: &str) -> (u32, String) {
    let hits: Vec<&Finding> = findings.iter().filter(|f| f.rule == rule).collect();
    assert_eq!(hits.len(), 1, "{rule}: {findings:#?}");
    (hits[0].span.line, hits[0].message.clone())
}

#[test]
fn empty_blank_and_numeric_values_are_found_on_their_keys_lines() {
    let text = base_doc()
        .render()
        .replacen("evidence_pr_refs: []", "evidence_pr_refs:", 1)
        .replace("section: section-1", "section: 12")
        .replace("section: section-0", "section: \"  \"");
    let all = findings(None, &text);
    let lines = fired(&all, "voting/field-type");
    assert_eq!(
        lines,
        vec![line_of(&text, "section: \""), line_of(&text, "evidence_pr_refs:"), line_of(&text, "section: 12")]
    );
    let messages: Vec<&str> =
        all.iter().filter(|f| f.rule == "voting/field-type").map(|f| f.message.as_str()).collect();
    assert!(messages[0].contains("found a blank string") && messages[2].contains("found an integer"), "{messages:?}");
}

#[test]
fn quoted_numbers_and_huge_weights_are_told_apart_in_messages() {
    let mut doc = base_doc();
    doc.sections[0][0].votes[0].weight = "1e300".into();
    let text = doc.render().replacen("vote: +1", "vote: \"+1\"", 2).replacen("vote: \"+1\"", "vote: +1", 1);
    let all = findings(None, &text);
    let messages: Vec<(u32, &str)> =
        all.iter().filter(|f| f.rule == "voting/vote-entry").map(|f| (f.span.line, f.message.as_str())).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert_eq!(messages[0].0, line_of(&text, "weight: 1e300"));
    assert!(messages[0].1.contains("`1e300`; a weight is at most 1e12"), "{}", messages[0].1);
    assert_eq!(messages[1].0, line_of(&text, "vote: \"+1\""));
    assert!(messages[1].1.contains("`\"+1\"` (a string); a vote is +1 or -1"), "{}", messages[1].1);
}

#[test]
fn an_edit_to_a_published_doc_is_shown_where_it_differs() {
    let base = base_doc().render();
    let renamed = base.replace("section: section-1", "section: section-one");
    let all = findings(Some(&base), &renamed);
    let (line, message) = only(&all, "voting/append-only");
    assert_eq!(line, line_of(&renamed, "section: section-one"));
    assert!(message.contains("`section-1`") && message.contains("changed to `section-one`"), "{message}");

    let edited = base.replacen("every review.\"", "most reviews.\"", 1);
    let (line, message) = only(&findings(Some(&base), &edited), "voting/append-only");
    assert_eq!(line, line_of(&edited, "most reviews."));
    assert!(message.contains("in every review.` → `") && message.contains("in most reviews.`"), "{message}");

    let example = base.replacen("explanation: The login smoke spec.", "explanation: The login spec.", 1);
    let (line, message) = only(&findings(Some(&base), &example), "voting/append-only");
    assert_eq!(line, line_of(&example, "explanation: The login spec."));
    assert!(message.contains("`explanation` `The login smoke spec.` → `The login spec.`"), "{message}");

    let refs = base.replacen("[gyrum-labs/ai-frontend#430]", "[gyrum-labs/ai-frontend#430, a/b#1]", 1);
    let (_, message) = only(&findings(Some(&base), &refs), "voting/append-only");
    assert!(message.ends_with("`[gyrum-labs/ai-frontend#430]` → `[gyrum-labs/ai-frontend#430, a/b#1]`"), "{message}");
}

#[test]
fn module_guidelines_and_readmes_beside_voting_docs_are_not_voting_docs() {
    let guideline = "---\nmodule_type: go-handler\nversion: 1\n---\n# Go handlers\n\nReturn errors wrapped.\n";
    let no_format = base_doc().render().replace("format: voting/v1\n", "");
    let mut changes = changes(None, &base_doc().render(), Some("Voting-format: v1"));
    for (path, text) in [
        ("dark-factory/guidelines/go-handler@v1.md", guideline),
        ("dark-factory/guidelines/README.md", "# Guidelines\n\nModule guidelines and voting docs.\n"),
        ("dark-factory/guidelines/no-format@v1.md", no_format.as_str()),
    ] {
        changes.head.insert(path.into(), FileContent::Text(text.into()));
    }
    changes.base.insert("dark-factory/guidelines/old-handler@v1.md".into(), FileContent::Text(guideline.into()));
    let report = evaluate(&changes);
    let all: Vec<&Finding> = report.findings().collect();
    assert!(
        all.iter().all(|f| !f.path.contains("go-handler") && !f.path.contains("README") && !f.path.contains("old-")),
        "{all:#?}"
    );
    // A `voting` block makes a voting doc even without the `format` line.
    let frontmatter: Vec<(&str, &str)> =
        all.iter().filter(|f| f.rule == "voting/frontmatter").map(|f| (f.path.as_str(), f.message.as_str())).collect();
    assert!(frontmatter.iter().any(|(_, m)| m.contains("format")), "{frontmatter:#?}");
    assert!(frontmatter.iter().all(|(p, _)| *p == "dark-factory/guidelines/no-format@v1.md"), "{frontmatter:#?}");
    let voting = report.checks.iter().find(|c| c.name == "gatehouse/voting").expect("the voting check");
    assert_eq!(voting.documents, 2);
    let passed_over = voting.details.iter().find(|d| d.starts_with("Not voting docs")).expect("listed");
    assert!(passed_over.contains("`dark-factory/guidelines/README.md`, `dark-factory/guidelines/go-handler@v1.md`"));
}

#[test]
fn a_cite_with_more_on_its_line_says_so() {
    let report = evaluate(&changes(None, &base_doc().render(), Some("Adds a rule.\n\nVoting-format: v1 (ADR-140)\n")));
    let all: Vec<Finding> = report.findings().cloned().collect();
    let (line, message) = only(&all, "voting/format-cite");
    assert_eq!(line, 3);
    assert!(message.contains("reads `v1 (ADR-140)`") && message.contains("the version alone"), "{message}");
    let report = evaluate(&changes(None, &base_doc().render(), Some("Voting-format: v2\n")));
    let all: Vec<Finding> = report.findings().cloned().collect();
    assert!(only(&all, "voting/format-cite").1.contains("cites `Voting-format: v2`, but"));
}

#[test]
fn two_spellings_of_one_new_version_are_one_file_too_many() {
    let text = base_doc().render();
    let mut changes = changes(None, &text, Some("Voting-format: v1"));
    changes
        .head
        .insert("dark-factory/guidelines/smoke-spec-path.md@v1".into(), FileContent::Text(text.as_str().into()));
    let all: Vec<Finding> = evaluate(&changes).findings().cloned().collect();
    let twice: Vec<(&str, &str)> = all
        .iter()
        .filter(|f| f.rule == "voting/immutable-version")
        .map(|f| (f.path.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        twice,
        vec![(
            PATH,
            "`smoke-spec-path@v1` is also the file `dark-factory/guidelines/smoke-spec-path.md@v1`: a version is one file"
        )]
    );
}

#[test]
fn ids_sort_lexicographically_in_submission_order() {
    let arguments = |ids: &[&str]| -> Vec<Argument> {
        ids.iter()
            .enumerate()
            .map(|(n, id)| Argument { id: id.to_string(), original: n == 0, votes: Vec::new() })
            .collect()
    };
    let mut doc = base_doc();
    doc.sections[1] = arguments(&["A", "B", "AA"]);
    let text = doc.render();
    let all = findings(None, &text);
    let (line, message) = only(&all, "voting/argument-id");
    assert_eq!(line, line_of(&text, "- id: AA"));
    assert!(message.contains("`AA` comes after `B` but sorts before it"), "{message}");
    doc.sections[1] = arguments(&["A", "Y", "Z", "ZA", "ZB"]);
    assert!(fired(&findings(None, &doc.render()), "voting/argument-id").is_empty());
}

#[test]
fn an_argument_dated_before_one_above_it_is_out_of_submission_order() {
    let text = base_doc().render();
    // Section 0's B, the second argument, dated before A.
    let at = text.match_indices("proposed_at: 2026-05-06").nth(1).unwrap().0;
    let text = format!("{}proposed_at: 2026-05-01{}", &text[..at], &text[at + "proposed_at: 2026-05-06".len()..]);
    let all = findings(None, &text);
    let (line, message) = only(&all, "voting/date");
    assert_eq!(line, line_of(&text, "proposed_at: 2026-05-01"));
    assert!(message.contains("`B` is dated 2026-05-01, before argument `A` above it (2026-05-06)"), "{message}");
}

#[test]
fn a_list_or_mapping_of_the_wrong_kind_is_found_at_its_key() {
    let text = base_doc().render().replacen("evidence_pr_refs: []", "evidence_pr_refs:\n      a: b", 1);
    let all = findings(None, &text);
    let (line, message) = only(&all, "voting/field-type");
    assert_eq!(line, line_of(&text, "evidence_pr_refs:"));
    assert!(message.contains("must be a list (`[]` when empty), found a mapping"), "{message}");
}

#[test]
fn a_doc_without_frontmatter_takes_its_name_and_version_from_the_file_name() {
    let with = base_doc().render();
    let without = with.split_once("---\n# ").map(|(_, rest)| format!("# {rest}")).unwrap();
    assert!(without.starts_with("# Smoke spec path\n"));
    let all = findings(None, &without);
    assert!(all.iter().all(|f| f.severity != gatehouse::model::Severity::Error), "{all:#?}");
    let tally = gatehouse::docs::voting::tally::tally_document(PATH, &without).unwrap();
    assert_eq!((tally.doc.as_deref(), tally.version), (Some("smoke-spec-path"), Some(1)));
    // A frontmatter with only scope tags: doc and version from the name too.
    let scoped = format!("---\nscope: [e2e]\n---\n{without}");
    let all = findings(None, &scoped);
    assert!(all.iter().all(|f| f.severity != gatehouse::model::Severity::Error), "{all:#?}");
    // A frontmatter that contradicts the file name is an error at its line.
    let contradicts = format!("---\ndoc: smoke-spec-path\nversion: 2\n---\n{without}");
    assert_eq!(fired(&findings(None, &contradicts), "voting/frontmatter"), vec![3]);
}
