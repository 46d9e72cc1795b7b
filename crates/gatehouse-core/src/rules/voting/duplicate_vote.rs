use std::collections::HashMap;
use std::collections::hash_map::Entry;

use foldhash::fast::RandomState;

use super::{VotingView, at};
use crate::model::Sink;

declare_rule! {
    id: "voting/duplicate-vote",
    view: VotingView,
    severity: Warning,
    summary: "a voter votes at most once on one argument",
    why: "ADR-140 weights each vote by the voter's power for the section's scope; a voter that votes twice on \
one argument counts twice. The curator (Phase 3) recomputes totals, but the ledger should not need \
deduplicating: the second vote by the same `voter` on the same argument is a warning naming both votes.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    // foldhash: several times faster than SipHash on short voter names,
    // and seeded per map, so crafted names cannot force collisions. One map,
    // emptied for each ledger, keeps its room from ledger to ledger.
    let mut first: HashMap<&str, usize, RandomState> = HashMap::with_hasher(RandomState::default());
    for (doc, block, argument) in view.arguments() {
        first.clear();
        for vote in argument.votes() {
            let Some(voter) = vote.voter() else { continue };
            // One hash and probe per vote: the entry is looked up once.
            match first.entry(voter) {
                Entry::Occupied(seen) => {
                    let index = *seen.get();
                    let node = vote.field("voter").unwrap_or(vote.node);
                    sink.emit(
                        doc.path,
                        at(doc.text, node),
                        format!("{}/{}/vote{}/duplicate", block.name(), argument.name(), vote.index + 1),
                        format!(
                            "{voter} already voted on argument `{}` (vote {}); this is vote {}",
                            argument.name(),
                            index + 1,
                            vote.index + 1
                        ),
                    )
                    .help("one vote per voter per argument; a changed mind is a new argument, not a second vote");
                }
                Entry::Vacant(new) => {
                    new.insert(vote.index);
                }
            }
        }
    }
}
