//! What is wrong with a vote entry, against ADR-140's ledger entry shape:
//! one list that the `voting/vote-entry` rule reports and the tally gives as
//! the reason a vote is left out, so the two never disagree.

use super::{MAX_WEIGHT, MIN_RATIONALE, Vote, is_persona_pin, persona_pin_problem, short_rationale, show};
use crate::docs::tree::Node;

/// One problem of a vote entry.
#[derive(Clone, Debug)]
pub struct VoteProblem<'y> {
    /// The field at fault, or `entry` for the entry itself.
    pub field: &'static str,
    /// Where it is: the field's value, else the entry.
    pub node: Node<'y>,
    pub what: Problem,
    pub help: &'static str,
}

/// What is wrong, without naming the vote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The entry is a scalar or a list, named by its type.
    NotMapping(&'static str),
    /// A required field is absent.
    Missing,
    /// A field is there with a wrong value: what is wrong with it.
    Wrong(String),
}

impl VoteProblem<'_> {
    /// The finding's message, naming the vote as `what` (`vote 2 (lin/opus-4.7)
    /// on argument `A``).
    pub fn message(&self, what: &str) -> String {
        match &self.what {
            Problem::NotMapping(found) => format!("{what} is {found}, not a mapping"),
            Problem::Missing => format!("{what} has no `{}`", self.field),
            Problem::Wrong(message) => format!("`{}` of {what} {message}", self.field),
        }
    }

    /// The problem alone, as the tally gives it: `no `ts``, ``weight` is `0`; …`.
    pub fn reason(&self) -> String {
        match &self.what {
            Problem::NotMapping(found) => format!("the entry is {found}, not a mapping"),
            Problem::Missing => format!("no `{}`", self.field),
            Problem::Wrong(message) => format!("`{}` {message}", self.field),
        }
    }
}

impl<'y> Vote<'y> {
    /// Everything wrong with the entry; empty exactly when it is well formed.
    pub fn problems(&self) -> Vec<VoteProblem<'y>> {
        let mut out = Vec::new();
        if self.is_well_formed() {
            return out;
        }
        if self.node.as_map().is_none() {
            out.push(VoteProblem {
                field: "entry",
                node: self.node,
                what: Problem::NotMapping(self.node.type_name()),
                help: "write each vote as `- voter: …` with `vote`, `weight`, `ts` and `rationale` below it",
            });
            return out;
        }
        for field in self.missing_fields() {
            out.push(VoteProblem {
                field,
                node: self.node,
                what: Problem::Missing,
                help: "a vote has `voter`, `vote`, `weight`, `ts` and `rationale` (ADR-140's ledger entry)",
            });
        }
        let mut wrong = |field: &'static str, node: Node<'y>, message: String, help: &'static str| {
            out.push(VoteProblem { field, node, what: Problem::Wrong(message), help });
        };
        if let Some(node) = self.field("voter")
            && !node.as_str().is_some_and(is_persona_pin)
        {
            let message = match node.as_str().and_then(persona_pin_problem) {
                Some(problem) => format!("is {} and {problem}: it is `<persona>/<model_pin>`", show(node)),
                None => format!("is {}, not `<persona>/<model_pin>`", show(node)),
            };
            wrong("voter", node, message, "write e.g. `voter: lin/opus-4.7`");
        }
        if let Some(node) = self.field("vote")
            && self.value().is_none()
        {
            let message = format!("is {}; a vote is +1 or -1", show(node));
            wrong("vote", node, message, "write `vote: +1` or `vote: -1`");
        }
        if let Some(node) = self.field("weight")
            && self.weight().is_none()
        {
            let limit = match node.as_f64() {
                Some(w) if w > MAX_WEIGHT => format!("at most {MAX_WEIGHT:e}"),
                _ => "a number above 0".to_string(),
            };
            let message = format!("is {}; a weight is {limit}", show(node));
            wrong("weight", node, message, "write the voter's power at vote time, e.g. `weight: 1.4`");
        }
        if let Some(problem) = self.ts_problem() {
            let node = self.field("ts").unwrap_or(self.node);
            let message = format!("is {}: {problem}", show(node));
            wrong("ts", node, message, "write an RFC 3339 timestamp with its zone, e.g. `ts: 2026-05-06T09:42:11Z`");
        }
        if let Some(node) = self.field("rationale") {
            match node.as_str() {
                Some(text) => {
                    if let Some(count) = short_rationale(text) {
                        let message = format!("has {count} characters; ADR-140 asks for at least {MIN_RATIONALE}");
                        wrong("rationale", node, message, "say why this vote: the evidence the voter saw");
                    }
                }
                None => {
                    let message = format!("must be a string, found {}", node.type_name());
                    wrong("rationale", node, message, "quote the rationale");
                }
            }
        }
        if let Some(node) = self.field("scope_match")
            && !node.as_f64().is_some_and(|m| (0.0..=1.0).contains(&m))
        {
            let message = format!("is {}; it is a number from 0 to 1", show(node));
            wrong(
                "scope_match",
                node,
                message,
                "write how well the voter's scope matches, e.g. `scope_match: 0.9`, or leave it out",
            );
        }
        out
    }
}
