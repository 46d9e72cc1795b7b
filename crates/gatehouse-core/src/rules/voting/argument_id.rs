use std::collections::HashMap;

use super::{VotingView, anchor, at};
use crate::model::Sink;

declare_rule! {
    id: "voting/argument-id",
    view: VotingView,
    severity: Error,
    summary: "argument ids are capital letters, unique in their section, in submission order",
    why: "ADR-140: `id` is \"A/B/C/... Unique within the section. Lexicographic order = submission order.\" \
Modifications name their `target` by id and `active_argument` names the winner by id, so an id must be unique \
in its section and, since lexicographic order is submission order, each id must sort after the one above \
it: A, B, C, …, Z, then ZA, ZB, … (`AA` would sort before `B`, so a reader sorting ids would misplace it). An \
id that is not capital letters, repeats, or does not sort after the one above it is an error at the id.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, _, block) in view.blocks() {
        let mut seen: HashMap<&str, u32> = HashMap::new();
        let mut previous: Option<&str> = None;
        for argument in block.arguments() {
            let Some(node) = argument.field("id") else { continue };
            let Some(id) = node.scalar_text().filter(|_| !node.is_null()) else { continue };
            // Built only for a finding.
            let key = || anchor(block, &argument, "id");
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_uppercase()) {
                sink.emit(
                    doc.path,
                    at(doc.text, node),
                    key(),
                    format!("argument id `{id}` is not capital letters (A, B, C, …)"),
                )
                .help("ADR-140: ids are A/B/C/…, in submission order");
                continue;
            }
            if let Some(first) = seen.get(id) {
                sink.emit(
                    doc.path,
                    at(doc.text, node),
                    format!("{}:duplicate", key()),
                    format!("argument id `{id}` is already used in section `{}` on line {first}", block.name()),
                )
                .help("give the new argument the next free id after the last one");
                continue;
            }
            if let Some(before) = previous.filter(|b| *b > id) {
                sink.emit(
                    doc.path,
                    at(doc.text, node),
                    format!("{}:order", key()),
                    format!(
                        "argument `{id}` comes after `{before}` but sorts before it; ADR-140 makes lexicographic \
                         order the submission order"
                    ),
                )
                .help("a new argument takes an id that sorts after the last one: after `C` comes `D`, after `Z` comes `ZA`");
            }
            seen.insert(id, node.line());
            previous = Some(id);
        }
    }
}
