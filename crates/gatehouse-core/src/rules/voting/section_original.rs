use super::VotingView;
use crate::docs::tree::Node;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "voting/section-original",
    default_severity: Severity::Error,
    summary: "each section has an argument of kind `original`",
    why: "ADR-140: `original` is \"The seed argument — the rule as first stated. One per section at minimum; \
usually operator-authored at v1.\" Every other kind targets an original, so a section without one has nothing \
to modify and no rule to state.",
    bad: Example {
        path: "dark-factory/guidelines/smoke-spec-path@v1.md",
        text: include_str!(
            "../../../../../fixtures/rules/voting/section-original/fail/head/dark-factory/guidelines/smoke-spec-path@v1.md"
        ),
    },
    good: Example {
        path: "dark-factory/guidelines/smoke-spec-path@v1.md",
        text: include_str!(
            "../../../../../fixtures/rules/voting/section-original/pass/head/dark-factory/guidelines/smoke-spec-path@v1.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<VotingView<'a>> {
    Rule { info: &INFO, check }
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
