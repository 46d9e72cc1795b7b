//! Exhaustive tests of the v9 table against an oracle written straight from
//! the seed's rows, over every pair of states.

use super::*;
use crate::docs::spec::state::{Part::*, State::*, Step::*};

/// The seed's table, written as a match (independently of the row data).
fn oracle(a: State, b: State) -> bool {
    if b == Abandoned {
        return !a.is_terminal();
    }
    // Generic rows within one topic.
    if let (Some((ta, sa)), Some((tb, sb))) = (a.topic(), b.topic())
        && ta == tb
        && matches!((sa, sb), (Draft, Review) | (Review, Answer) | (Answer, Review))
    {
        return true;
    }
    let closes = |s: Step| matches!(s, Review | Answer);
    match (a, b) {
        (Brief, PrePlan(Draft)) => true,
        (PrePlan(s), Plan(Draft)) => closes(s),
        (Plan(s), Implementation(1, Draft)) => closes(s),
        (Implementation(n, s), Implementation(m, Draft)) => closes(s) && m == n + 1,
        (Implementation(_, s), Audit(Tests, Draft)) => closes(s),
        (Audit(Tests, _), Audit(Conventions, Draft)) => true,
        (Audit(Conventions, _), Audit(Fixes, Draft) | HandoverUpdate(Draft) | Handover) => true,
        (Audit(Fixes, s), HandoverUpdate(Draft) | Handover) => closes(s),
        (HandoverUpdate(Draft), Handover) => true,
        (HandoverUpdate(s), Handover) => closes(s),
        (Handover, Done) => true,
        (PrePlan(_) | Plan(_) | Implementation(..) | Audit(..), Brief) => true,
        _ => false,
    }
}

#[test]
fn every_row_pattern_is_well_formed() {
    let token = |t: &str| {
        ["<x>", "*", "NN", "NN+1", "<part>", "<Step>"].contains(&t)
            || Step::parse(t).is_some()
            || Part::parse(t).is_some()
            || crate::docs::spec::state::parse_nn(t).is_some()
            || ["brief", "pre-plan", "plan", "implementation", "audit", "handover", "done", "abandoned"].contains(&t)
    };
    for row in V9 {
        for pat in [row.from, row.to] {
            assert!(pat.split(':').all(token), "{pat}");
        }
        assert!(!row.cite.is_empty());
        let concrete = State::parse(row.from).is_ok();
        if concrete {
            assert!(!successors(State::parse(row.from).unwrap()).is_empty());
        }
    }
}

#[test]
fn every_pair_of_states_agrees_with_the_seed() {
    let states = State::all(99);
    let mut legal = 0;
    for &a in &states {
        let next: Vec<State> = successors(a).into_iter().map(|(s, _)| s).collect();
        for &b in &states {
            if a == b {
                continue;
            }
            let expected = oracle(a, b);
            assert_eq!(next.contains(&b), expected, "{a} → {b}: table says {}, seed says {expected}", !expected);
            assert_eq!(step(a, b).is_some(), expected, "{a} → {b}");
            legal += usize::from(expected);
        }
    }
    // Hand count: 3 generic per topic × (2 + 99 + 3 + 1) topics, abandon from
    // every non-terminal state, and the skill's rows.
    assert!(legal > 600, "{legal}");
}

#[test]
fn every_row_is_used_and_its_named_states_are_legal() {
    for (pair, expect) in [
        ((Brief, PrePlan(Draft)), true),
        ((PrePlan(Review), Plan(Draft)), true),
        ((PrePlan(Answer), Plan(Draft)), true),
        ((Plan(Review), Implementation(1, Draft)), true),
        ((Implementation(3, Answer), Implementation(4, Draft)), true),
        ((Implementation(3, Review), Audit(Tests, Draft)), true),
        ((Audit(Tests, Draft), Audit(Conventions, Draft)), true),
        ((Audit(Conventions, Answer), Audit(Fixes, Draft)), true),
        ((Audit(Fixes, Review), HandoverUpdate(Draft)), true),
        ((HandoverUpdate(Draft), Handover), true),
        ((Handover, Done), true),
        ((Implementation(2, Draft), Brief), true),
        ((Audit(Fixes, Answer), Brief), true),
        ((Implementation(99, Review), Implementation(100, Draft)), false),
        ((Audit(Fixes, Draft), Handover), false),
        ((HandoverUpdate(Review), Brief), false),
        ((Done, Abandoned), false),
        ((Abandoned, Brief), false),
    ] {
        assert_eq!(step(pair.0, pair.1).is_some(), expect, "{} → {}", pair.0, pair.1);
    }
}

#[test]
fn a_plan_draft_cannot_skip_its_review() {
    // v9 has no light mode: `plan:Draft` never moves straight to the first phase.
    let (from, to) = (Plan(Draft), Implementation(1, Draft));
    assert!(step(from, to).is_none());
    assert!(V9.iter().all(|r| !r.reply.contains("light")));
    let path = shortest_path(from, to, false).expect("reachable through plan:Review");
    let states: Vec<String> = path.iter().map(|(s, _)| s.to_string()).collect();
    assert_eq!(states, ["plan:Review", "implementation:01:Draft"]);
}

#[test]
fn shortest_path_goes_through_every_gate() {
    let path = shortest_path(PrePlan(Draft), Implementation(2, Draft), false).unwrap();
    let states: Vec<String> = path.iter().map(|(s, _)| s.to_string()).collect();
    assert_eq!(
        states,
        [
            "pre-plan:Review",
            "plan:Draft",
            "plan:Review",
            "implementation:01:Draft",
            "implementation:01:Review",
            "implementation:02:Draft"
        ]
    );
}

#[test]
fn going_back_needs_a_reopen() {
    assert!(shortest_path(Implementation(2, Review), Plan(Draft), false).is_none());
    let path = shortest_path(Implementation(2, Review), Plan(Draft), true).unwrap();
    assert!(path[0].1.reopen);
    assert_eq!(path[0].0, Brief);
}

#[test]
fn terminal_states_go_nowhere() {
    for to in State::all(3) {
        if to != Done {
            assert!(shortest_path(Done, to, true).is_none(), "done → {to}");
        }
    }
    assert!(shortest_path(Handover, Implementation(1, Draft), true).is_none());
}

#[test]
fn same_state_is_the_empty_path() {
    assert_eq!(shortest_path(Plan(Review), Plan(Review), false).map(|p| p.len()), Some(0));
}
