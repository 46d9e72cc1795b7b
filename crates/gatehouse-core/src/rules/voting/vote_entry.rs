use super::{VotingView, at};
use crate::model::Sink;

declare_rule! {
    id: "voting/vote-entry",
    view: VotingView,
    severity: Error,
    summary: "each vote is `{voter, vote: ±1, weight > 0, ts: RFC 3339, rationale ≥ 50}`",
    why: "ADR-140's vote ledger entry: `voter: <persona>/<model_pin>`, `vote: +1 # or -1`, `weight` (a \
snapshot of the voter's power, above zero; gatehouse caps it at 10^12 so the tally stays exact), `ts` (a \
timestamp: RFC 3339, with its time zone, so ledgers from different machines order), `rationale: \"<≥50 chars; \
mandatory; why this vote>\"`, and optionally `scope_match` between 0 and 1. The tally reads these fields; \
a vote that breaks the shape (`vote: 2`, a timestamp without a zone, a short rationale) is an error at its line \
and is left out of the tally.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        for vote in argument.votes().filter(|vote| !vote.is_well_formed()) {
            let what = format!("{} on argument `{}`", vote.name(), argument.name());
            for problem in vote.problems() {
                let key = format!("{}/{}/vote{}/{}", block.name(), argument.name(), vote.index + 1, problem.field);
                sink.emit(doc.path, at(doc.text, problem.node), key, problem.message(&what)).help(problem.help);
            }
        }
    }
}
