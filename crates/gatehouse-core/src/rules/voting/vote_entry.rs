use super::{VotingView, at};
use crate::docs::voting::{MAX_WEIGHT, MIN_RATIONALE, is_persona_pin, short_rationale, show};
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
            let what = || format!("{} on argument `{}`", vote.name(), argument.name());
            let key = |field: &str| format!("{}/{}/vote{}/{field}", block.name(), argument.name(), vote.index + 1);
            if vote.node.as_map().is_none() {
                sink.emit(
                    doc.path,
                    at(vote.node),
                    key("entry"),
                    format!("{} is {}, not a mapping", what(), vote.node.type_name()),
                )
                .help("write each vote as `- voter: …` with `vote`, `weight`, `ts` and `rationale` below it");
                continue;
            }
            for field in vote.missing_fields() {
                sink.emit(doc.path, at(vote.node), key(field), format!("{} has no `{field}`", what()))
                    .help("a vote has `voter`, `vote`, `weight`, `ts` and `rationale` (ADR-140's ledger entry)");
            }
            let mut wrong = |field: &str, message: String, help: &str| {
                let node = vote.field(field).unwrap_or(vote.node);
                sink.emit(doc.path, at(node), key(field), format!("`{field}` of {} {message}", what())).help(help);
            };
            if let Some(node) = vote.field("voter")
                && !node.as_str().is_some_and(is_persona_pin)
            {
                wrong(
                    "voter",
                    format!("is {}, not `<persona>/<model_pin>`", show(node)),
                    "write e.g. `voter: lin/opus-4.7`",
                );
            }
            if let Some(node) = vote.field("vote")
                && vote.value().is_none()
            {
                wrong("vote", format!("is {}; a vote is +1 or -1", show(node)), "write `vote: +1` or `vote: -1`");
            }
            if let Some(node) = vote.field("weight")
                && vote.weight().is_none()
            {
                let limit = match node.as_f64() {
                    Some(w) if w > MAX_WEIGHT => format!("at most {MAX_WEIGHT:e}"),
                    _ => "a number above 0".to_string(),
                };
                wrong(
                    "weight",
                    format!("is {}; a weight is {limit}", show(node)),
                    "write the voter's power at vote time, e.g. `weight: 1.4`",
                );
            }
            if let Some(problem) = vote.ts_problem() {
                let node = vote.field("ts").unwrap_or(vote.node);
                wrong(
                    "ts",
                    format!("is {}: {problem}", show(node)),
                    "write an RFC 3339 timestamp with its zone, e.g. `ts: 2026-05-06T09:42:11Z`",
                );
            }
            if let Some(node) = vote.field("rationale") {
                match node.as_str() {
                    Some(text) => {
                        if let Some(count) = short_rationale(text) {
                            wrong(
                                "rationale",
                                format!("has {count} characters; ADR-140 asks for at least {MIN_RATIONALE}"),
                                "say why this vote: the evidence the voter saw",
                            );
                        }
                    }
                    None => wrong(
                        "rationale",
                        format!("must be a string, found {}", node.type_name()),
                        "quote the rationale",
                    ),
                }
            }
            if let Some(node) = vote.field("scope_match")
                && !node.as_f64().is_some_and(|m| (0.0..=1.0).contains(&m))
            {
                wrong(
                    "scope_match",
                    format!("is {}; it is a number from 0 to 1", show(node)),
                    "write how well the voter's scope matches, e.g. `scope_match: 0.9`, or leave it out",
                );
            }
        }
    }
}
