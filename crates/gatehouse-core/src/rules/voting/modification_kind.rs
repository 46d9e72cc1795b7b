use super::{VotingView, anchor, at};
use crate::docs::voting::KINDS;
use crate::model::{Fix, Sink};
use crate::rules::fixes::scalar_range;

declare_rule! {
    id: "voting/modification-kind",
    view: VotingView,
    severity: Error,
    summary: "`modification_kind` is original, example-patch, counter-example or counter-argument",
    why: "ADR-140 declares four modification kinds: `original` (the seed argument, the rule as first stated), \
`example-patch` (the rule is right, the bound example is wrong or stale), `counter-example` (the rule is \
right, this example applies it differently) and `counter-argument` (the rule itself is contested). \"The kind \
shapes vote routing because it shapes what the vote means\"; a three- or five-kind taxonomy was considered and \
rejected, so any other value is an error.",
    fix: "rewrites a kind written in another case or with `_` or a space for `-` (`Counter_Argument` \
becomes `counter-argument`)",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(node) = argument.field("modification_kind") else { continue };
        let Some(kind) = node.as_str() else { continue };
        if !KINDS.contains(&kind) {
            sink.emit(doc.path, at(doc.text, node), anchor(block, &argument, "modification_kind"), format!("`modification_kind` of argument `{}` is `{kind}`, not one of {}", argument.name(), KINDS.join(", ")))
                .help("original: the rule as first stated; example-patch: swap the example; counter-example: another way to apply it; counter-argument: the rule is wrong")
                .fix(respelled(kind).and_then(|kind| {
                    let range = scalar_range(doc.text, node.line(), node.col(), false)?;
                    Some(Fix::replace(format!("write `modification_kind: {kind}`"), doc.path, range, kind))
                }));
        }
    }
}

/// The kind `kind` spells another way: in another case, with `_` or a space
/// for `-`.
fn respelled(kind: &str) -> Option<&'static str> {
    let folded = kind.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    KINDS.iter().copied().find(|k| *k == folded)
}
