use super::{VotingView, anchor, at};
use crate::docs::voting::{Argument, is_date, show};
use crate::model::Sink;

declare_rule! {
    id: "voting/date",
    view: VotingView,
    severity: Error,
    summary: "`proposed_at` is a `YYYY-MM-DD` calendar date, never before an argument above it",
    why: "ADR-140: `proposed_at` is an \"ISO date YYYY-MM-DD — Submission date. Decay (Phase 4) reads this.\" \
A date in another shape, with a time, or that does not exist (2026-02-30) would make decay read the wrong age. \
Arguments are listed in submission order (ADR-140: \"Lexicographic order = submission order\" of ids), so an \
argument dated before one above it is an error too.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, _, block) in view.blocks() {
        // The latest date above, and whose it is: `YYYY-MM-DD` sorts by time.
        let mut latest: Option<(&str, Argument)> = None;
        for argument in block.arguments() {
            let Some(node) = argument.field("proposed_at") else { continue };
            let Some(date) = node.scalar_text().filter(|_| !node.is_null()) else { continue };
            // Built only for a finding.
            let key = || anchor(block, &argument, "proposed_at");
            if !is_date(date) {
                sink.emit(
                    doc.path,
                    at(node),
                    key(),
                    format!(
                        "`proposed_at` of argument `{}` is {}, not a `YYYY-MM-DD` date",
                        argument.name(),
                        show(node)
                    ),
                )
                .help("write the submission date as e.g. `proposed_at: 2026-05-06`");
                continue;
            }
            match &latest {
                Some((before, by)) if *before > date => {
                    sink.emit(
                        doc.path,
                        at(node),
                        format!("{}:order", key()),
                        format!(
                            "argument `{}` is dated {date}, before argument `{by}` above it ({before}); arguments are \
                             listed in submission order",
                            argument.name(),
                            by = by.name()
                        ),
                    )
                    .help("`proposed_at` is the submission date: a later argument cannot be submitted earlier");
                }
                _ => latest = Some((date, argument)),
            }
        }
    }
}
