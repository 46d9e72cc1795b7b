use super::{VotingView, at};
use crate::model::Sink;

declare_rule! {
    id: "voting/self-vote",
    view: VotingView,
    severity: Warning,
    summary: "a proposer does not vote on its own argument",
    why: "ADR-140 grounds vote weight in a persona's track record (\"vote_aligned_with_outcome events … \
accumulate per (persona, model_pin, scope) tuple\"); a proposer voting for its own argument adds weight \
without adding evidence, the recusal concern of warp#1392's Phase 6. The vote is a warning at its `voter` line \
(raise it to an error with `rules: { voting/self-vote: error }`).",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(proposer) = argument.proposer() else { continue };
        for vote in argument.votes().filter(|v| v.voter() == Some(proposer)) {
            let node = vote.field("voter").unwrap_or(vote.node);
            sink.emit(
                doc.path,
                at(doc.text, node),
                format!("{}/{}/vote{}/self", block.name(), argument.name(), vote.index + 1),
                format!("{proposer} proposed argument `{}` and votes on it (vote {})", argument.name(), vote.index + 1),
            )
            .help("leave the vote to other personas; the proposer's case is the rationale");
        }
    }
}
