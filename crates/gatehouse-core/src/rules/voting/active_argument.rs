use super::{VotingView, at};
use crate::docs::voting::tally::signed;
use crate::model::{Fix, Severity, Sink};
use crate::rules::fixes::scalar_range;

declare_rule! {
    id: "voting/active-argument",
    view: VotingView,
    severity: Error,
    summary: "`active_argument` names an argument of the section (warning when it is not the top one)",
    why: "ADR-140: \"Each section declares one active_argument (the highest-weighted at read time)\" and \
\"Brief generators read active_argument\". It must name an argument of its section (error). When it names one \
that does not have the highest weighted total (Σ vote × weight from the ledger), agents are handed a rule the \
votes do not back: a warning naming the top argument. Ties at the top accept any of the tied arguments.",
    fix: "sets `active_argument` to the argument with the highest weighted total, when one argument alone has it",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, tallies) in view.docs.iter().zip(&view.tallies) {
        for ((_, block), tally) in doc.blocks().zip(tallies) {
            let Some(node) = block.active_argument() else { continue };
            let Some(id) = node.scalar_text().filter(|_| !node.is_null()) else { continue };
            let key = format!("{}/active_argument", block.name());
            let fix = match tally.leaders.as_slice() {
                [top] => scalar_range(doc.text, node.line(), node.col(), false)
                    .map(|range| Fix::replace(format!("set `active_argument: {top}`"), doc.path, range, top.as_str())),
                _ => None,
            };
            if block.argument(id).is_none() {
                let ids = super::listed(block.arguments().map(|a| a.name()));
                sink.emit(
                    doc.path,
                    at(doc.text, node),
                    key,
                    format!("active_argument `{id}` is not an argument of section `{}` (it has {})", block.name(), ids),
                )
                .help("name the argument with the highest weighted total")
                .fix(fix);
                continue;
            }
            if !tally.leaders.iter().any(|l| l == id) {
                let total = |name: &str| tally.arguments.iter().find(|a| a.id == name).map_or(0.0, |a| a.total);
                let top = tally.leaders.join(" or ");
                sink.emit(
                    doc.path,
                    at(doc.text, node),
                    key,
                    format!(
                        "active_argument is `{id}` ({}) but `{top}` has the highest weighted total ({})",
                        signed(total(id)),
                        signed(tally.leaders.first().map_or(0.0, |l| total(l)))
                    ),
                )
                .help(format!(
                    "set `active_argument: {}`: ADR-140 makes the active argument the highest-weighted",
                    tally.leaders.first().map_or("", String::as_str)
                ))
                .severity(Severity::Warning)
                .fix(fix);
            }
        }
    }
}
