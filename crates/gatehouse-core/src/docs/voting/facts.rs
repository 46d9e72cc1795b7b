//! What the rules read of every argument and vote, found once when a block
//! is parsed: several rules and the tally look at each vote, and at each
//! argument's fields by name.

use super::{ARGUMENT_FIELDS, MAX_WEIGHT, VOTE_FIELDS, is_persona_pin, parse_timestamp, short_rationale};
use crate::docs::tree::{Node, NodeId};

/// Where an argument's fields are: rules look them up by name, many times.
#[derive(Clone, Debug)]
pub(super) struct ArgumentFacts {
    /// The values of [`ARGUMENT_FIELDS`] and `target` (the first entry of
    /// each name).
    pub(super) fields: [Option<NodeId>; ARGUMENT_FIELDS.len() + 1],
    pub(super) votes: std::ops::Range<usize>,
}

impl ArgumentFacts {
    pub(super) fn read(node: Node, votes: &mut Vec<VoteFacts>) -> ArgumentFacts {
        let mut fields = [None; ARGUMENT_FIELDS.len() + 1];
        for (key, value) in node.entries().iter() {
            if let Some(at) = argument_field(key.name) {
                fields[at].get_or_insert(value.id());
            }
        }
        let start = votes.len();
        if let Some(ledger) = fields[LEDGER] {
            votes.extend(node.sibling(ledger).items().iter().map(VoteFacts::read));
        }
        ArgumentFacts { fields, votes: start..votes.len() }
    }
}

/// What the rules read of a vote entry, found in one pass over it.
#[derive(Clone, Debug)]
pub(super) struct VoteFacts {
    /// The values of [`VOTE_FIELDS`] and `scope_match` (the first entry of
    /// each name).
    pub(super) fields: [Option<NodeId>; VOTE_FIELDS.len() + 1],
    /// `voter` when it is a string: several rules read it of every vote.
    pub(super) voter: Option<NodeId>,
    pub(super) value: Option<i64>,
    pub(super) weight: Option<f64>,
    /// `ts` read as an instant, or what is wrong with it; `None` without `ts`.
    pub(super) instant: Option<Result<i64, &'static str>>,
    /// Whether the entry is all ADR-140 asks of a vote: most are, and the
    /// rules that check entries pass those by at once.
    pub(super) well_formed: bool,
}

impl VoteFacts {
    pub(super) fn read(node: Node) -> VoteFacts {
        let mut fields = [None; VOTE_FIELDS.len() + 1];
        for (key, value) in node.entries().iter() {
            if let Some(at) = vote_field(key.name) {
                fields[at].get_or_insert(value.id());
            }
        }
        let field = |at: usize| fields[at].map(|id| node.sibling(id));
        let voter = field(0).and_then(|voter| Some((voter.id(), voter.as_str()?)));
        let value = field(1).and_then(Node::as_i64).filter(|v| *v == 1 || *v == -1);
        let weight = field(2).and_then(Node::as_f64).filter(|w| *w > 0.0 && *w <= MAX_WEIGHT);
        let instant = field(3).map(|ts| match ts.scalar_text() {
            Some(text) => parse_timestamp(text),
            None => Err("not an RFC 3339 timestamp like `2026-05-06T09:42:11Z`"),
        });
        let well_formed = value.is_some()
            && weight.is_some()
            && matches!(instant, Some(Ok(_)))
            && voter.is_some_and(|(_, name)| is_persona_pin(name))
            && field(4).and_then(Node::as_str).is_some_and(|text| short_rationale(text).is_none())
            && field(5).is_none_or(|m| m.as_f64().is_some_and(|m| (0.0..=1.0).contains(&m)));
        VoteFacts { voter: voter.map(|(id, _)| id), value, weight, instant, well_formed, fields }
    }
}

/// Where `vote_ledger` is in [`ARGUMENT_FIELDS`].
pub(super) const LEDGER: usize = 8;

/// The position of a name in [`ARGUMENT_FIELDS`], then `target`.
pub(super) fn argument_field(name: &str) -> Option<usize> {
    let at = match name {
        "id" => 0,
        "proposer" => 1,
        "proposed_at" => 2,
        "proposition" => 3,
        "rationale" => 4,
        "evidence_pr_refs" => 5,
        "example" => 6,
        "modification_kind" => 7,
        "vote_ledger" => LEDGER,
        "target" => 9,
        _ => return None,
    };
    debug_assert!(ARGUMENT_FIELDS.get(at).is_none_or(|f| *f == name));
    Some(at)
}

/// The position of a name in [`VOTE_FIELDS`], then `scope_match` (a
/// `match`: compared as constants, not searched).
pub(super) fn vote_field(name: &str) -> Option<usize> {
    let at = match name {
        "voter" => 0,
        "vote" => 1,
        "weight" => 2,
        "ts" => 3,
        "rationale" => 4,
        "scope_match" => 5,
        _ => return None,
    };
    debug_assert!(VOTE_FIELDS.get(at).is_none_or(|f| *f == name));
    Some(at)
}
