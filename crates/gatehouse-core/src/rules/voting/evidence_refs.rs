use super::{VotingView, anchor, at};
use crate::docs::pathref::is_issue_ref;
use crate::docs::voting::{KINDS, show};
use crate::model::Sink;

declare_rule! {
    id: "voting/evidence-refs",
    view: VotingView,
    severity: Error,
    summary: "`evidence_pr_refs` entries are `owner/repo#N`; non-original arguments cite at least one",
    why: "ADR-140: `evidence_pr_refs` is a \"List of <owner>/<repo>#<N> strings — At least zero entries (for \
original arguments seeding from operator authority). Phase 1+ arguments cite real PR evidence.\" and \
\"evidence_pr_refs for non-original kinds\" is part of the intended submission cost. Each entry is \
`owner/repo#N`; an example-patch, counter-example or counter-argument with an empty list is an error.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(node) = argument.field("evidence_pr_refs") else { continue };
        let Some(items) = node.as_seq() else { continue };
        for (index, item) in items.iter().enumerate() {
            if !item.as_str().is_some_and(is_issue_ref) {
                sink.emit(
                    doc.path,
                    at(doc.text, item),
                    anchor(block, &argument, &format!("evidence_pr_refs[{index}]")),
                    format!("evidence ref {} of argument `{}` is not `owner/repo#N`", show(item), argument.name()),
                )
                .help("cite a pull request as `owner/repo#N`, e.g. `gyrum-labs/ai-frontend#412`");
            }
        }
        if let Some(kind) = argument.kind().filter(|k| *k != "original" && KINDS.contains(k))
            && items.is_empty()
        {
            sink.emit(
                doc.path,
                at(doc.text, node),
                anchor(block, &argument, "evidence_pr_refs"),
                format!("argument `{}` is a {kind} and cites no evidence", argument.name()),
            )
            .help("ADR-140: arguments after the original cite real PR evidence; list at least one `owner/repo#N`");
        }
    }
}
