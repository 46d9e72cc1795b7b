use super::{VotingView, anchor, at};
use crate::docs::voting::{MIN_RATIONALE, short_rationale};
use crate::model::Sink;

declare_rule! {
    id: "voting/rationale-length",
    view: VotingView,
    severity: Error,
    summary: "an argument's `rationale` has at least 50 characters",
    why: "ADR-140: \"Argument submission carries a non-trivial cost: rationale ≥50 chars, bound example … This \
is intentional — bluffed arguments are the failure mode.\" The rationale is the why: it cites evidence (PR \
refs, ADR refs, repo state). Fewer than 50 characters (surrounding whitespace not counted) is an error.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(node) = argument.field("rationale") else { continue };
        let Some(text) = node.as_str() else { continue };
        if let Some(length) = short_rationale(text) {
            sink.emit(
                doc.path,
                at(doc.text, node),
                anchor(block, &argument, "rationale"),
                format!(
                    "the rationale of argument `{}` has {length} characters; ADR-140 asks for at least {MIN_RATIONALE}",
                    argument.name()
                ),
            )
            .help("say why the rule holds and cite the evidence: PR refs, ADR refs, repo state");
        }
    }
}
