use super::VotingView;
use crate::docs::tree::Node;
use crate::model::{Sink, Span};

declare_rule! {
    id: "voting/section-original",
    view: VotingView,
    severity: Error,
    summary: "each section has an argument of kind `original`",
    why: "ADR-140: `original` is \"The seed argument — the rule as first stated. One per section at minimum; \
usually operator-authored at v1.\" Every other kind targets an original, so a section without one has nothing \
to modify and no rule to state.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, _, block) in view.blocks() {
        if block.root().get("arguments").and_then(Node::as_seq).is_none() {
            continue;
        }
        if !block.arguments().any(|a| a.kind() == Some("original")) {
            let line = block.root().key("arguments").map_or(block.fence_line, |k| k.line);
            sink.emit(
                doc.path,
                Span::line(line),
                format!("{}/original", block.name()),
                format!("section `{}` has no argument of kind `original`", block.name()),
            )
            .help("state the rule as first proposed in an argument with `modification_kind: original`");
        }
    }
}
