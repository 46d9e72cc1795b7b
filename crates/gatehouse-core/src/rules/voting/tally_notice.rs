use super::VotingView;
use crate::docs::voting::tally::describe;
use crate::model::{Sink, Span};

declare_rule! {
    id: "voting/tally",
    view: VotingView,
    severity: Notice,
    summary: "per section: weighted totals, quorum, margin and state",
    why: "ADR-140 \"Retirement margin and quorum\": the curator \"retires losing arguments when both \
conditions hold for a section: Quorum: ≥10 weighted-vote total across all arguments in the section … Margin: \
≥+5 between the top-1 and top-2 arguments by weighted total.\" and \"Sections with only one argument that hits \
≥10 weighted votes ≥+5 enter 'consensus-locked' state\". For every section of a changed doc this notice \
reports, from the stored weights, each argument's total (Σ vote × weight), the section's weighted-vote total \
(Σ weight), the margin and the state: open, retirement-eligible (naming the losers) or consensus-locked. \
Retirement itself stays gated until the bootstrap unlock (ADR-140 \"Hybrid bootstrap\"): gatehouse reports \
eligibility, it never retires. `gatehouse tally FILE` prints the same for one document. ADR-140's curator \
recomputes totals with current power scores at run time; gatehouse sees only the weights the ledger stored, so \
its tally is the snapshot view of the ledger as written. A vote with a `voting/vote-entry` error (`vote: 2`, a \
`ts` without a zone, a short rationale) is left out of every tally: this notice says how many and at which \
lines, and the check summary, `gatehouse tally` and the site list each with its reason.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, tallies) in view.docs.iter().zip(&view.tallies) {
        for tally in tallies {
            // No help: the check's summary says once that retirement stays
            // gated until ADR-140's bootstrap unlock.
            sink.emit(doc.path, Span::line(tally.line), format!("{}/tally", tally.section), describe(tally));
        }
    }
}
