use super::{VotingView, anchor, at};
use crate::docs::voting::{ARGUMENT_FIELDS, BLOCK_FIELDS};
use crate::model::{Sink, Span};

declare_rule! {
    id: "voting/missing-field",
    view: VotingView,
    severity: Error,
    summary: "every block has `section`, `active_argument`, `arguments`; every argument has ADR-140's fields",
    why: "ADR-140: \"Every argument MUST declare these fields. Submission without any of them is gate-rejected \
by the validator\": `id`, `proposer`, `proposed_at`, `proposition`, `rationale`, `evidence_pr_refs`, \
`example`, `modification_kind` and `vote_ledger` (`target` too when the kind is not `original`; see \
`voting/target`). A section's block declares its `section` id, its `active_argument` and its `arguments`. \
Empty lists are written out: `evidence_pr_refs: []`, `vote_ledger: []`.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, section, block) in view.blocks() {
        for field in BLOCK_FIELDS.iter().filter(|f| block.root().get(f).is_none()) {
            sink.emit(
                doc.path,
                Span::line(block.fence_line),
                format!("{}/{field}", block.name()),
                format!("the `voting` block of section `{}` has no `{field}`", section.heading),
            )
            .help("a block declares `section: <id>`, `active_argument: <id>` and `arguments:`");
        }
    }
    for (doc, block, argument) in view.arguments() {
        for field in ARGUMENT_FIELDS.iter().filter(|f| argument.field(f).is_none()) {
            sink.emit(
                doc.path,
                at(doc.text, argument.node),
                anchor(block, &argument, field),
                format!("argument `{}` in section `{}` has no `{field}`", argument.name(), block.name()),
            )
            .help(format!(
                "add `{field}:`; ADR-140 requires {} (write empty lists as `[]`)",
                ARGUMENT_FIELDS.join(", ")
            ));
        }
    }
}
