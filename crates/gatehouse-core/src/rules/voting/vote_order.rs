use super::{VotingView, at};
use crate::docs::voting::Vote;
use crate::model::Sink;

declare_rule! {
    id: "voting/vote-order",
    view: VotingView,
    severity: Error,
    summary: "within a vote ledger, timestamps never go backwards",
    why: "ADR-140: \"The ledger is append-only. Phase 2 writes\" — each vote is appended when it is cast, so a \
ledger reads in time order. A vote whose `ts` is earlier than a vote above it was inserted or back-dated; the \
finding names both votes. Equal timestamps are fine; timestamps compare as instants, whatever their zones.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let mut latest: Option<(i64, Vote)> = None;
        for vote in argument.votes() {
            let Some(instant) = vote.instant() else { continue };
            match latest {
                Some((before, earlier)) if instant < before => {
                    let ts = |v: &Vote| v.field("ts").and_then(|t| t.scalar_text()).unwrap_or("").to_string();
                    let node = vote.field("ts").unwrap_or(vote.node);
                    sink.emit(
                        doc.path,
                        at(doc.text, node),
                        format!("{}/{}/vote{}/ts", block.name(), argument.name(), vote.index + 1),
                        format!(
                            "{} on argument `{}` at {} is earlier than {} at {}",
                            vote.name(),
                            argument.name(),
                            ts(&vote),
                            earlier.name(),
                            ts(&earlier)
                        ),
                    )
                    .help("append votes in the order they are cast, each with the time it was cast");
                }
                _ => latest = Some((instant, vote)),
            }
        }
    }
}
