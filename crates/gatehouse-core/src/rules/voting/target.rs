use std::cell::OnceCell;
use std::collections::HashMap;

use super::{VotingView, anchor, at};
use crate::docs::voting::{Argument, Block, KINDS, VotingDoc};
use crate::model::Sink;

declare_rule! {
    id: "voting/target",
    view: VotingView,
    severity: Error,
    summary: "a modification names an original sibling in `target`; an original names none",
    why: "ADR-140: `target` is a \"Sibling argument id (e.g. A) — Required when modification_kind != original. \
Names the argument being modified.\" and each modification kind \"Targets: one original\". So an \
example-patch, counter-example or counter-argument names an existing argument of kind `original` in the same \
section (not itself), and an `original` argument has no target.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, _, block) in view.blocks() {
        // Kinds by id, built once: a target is looked up per argument.
        let mut kinds: HashMap<&str, Option<&str>> = HashMap::new();
        for argument in block.arguments() {
            if let Some(id) = argument.id() {
                kinds.entry(id).or_insert(argument.kind());
            }
        }
        // The section's ids, for messages: listed once, when first needed.
        let ids = OnceCell::new();
        for argument in block.arguments() {
            check_argument(sink, doc, block, &argument, &kinds, &ids);
        }
    }
}

fn check_argument(
    sink: &mut Sink,
    doc: &VotingDoc,
    block: &Block,
    argument: &Argument,
    kinds: &HashMap<&str, Option<&str>>,
    ids: &OnceCell<String>,
) {
    let Some(kind) = argument.kind().filter(|k| KINDS.contains(k)) else { return };
    // Built only for a finding.
    let key = || anchor(block, argument, "target");
    let name = || argument.name();
    let target = argument.field("target").filter(|t| !t.is_null());
    if kind == "original" {
        if let Some(node) = target {
            sink.emit(
                doc.path,
                at(doc.text, node),
                key(),
                format!("argument `{}` is an original, so it has no `target`", name()),
            )
            .help("remove `target`, or set `modification_kind` to the kind of modification this argument is");
        }
        return;
    }
    let Some(node) = target else {
        let line_node = argument.field("modification_kind").unwrap_or(argument.node);
        sink.emit(
            doc.path,
            at(doc.text, line_node),
            key(),
            format!("argument `{}` is a {kind} but names no `target`", name()),
        )
        .help("add `target: <id>` naming the original argument this one modifies, e.g. `target: A`");
        return;
    };
    let Some(id) = node.scalar_text() else { return };
    if Some(id) == argument.id() {
        sink.emit(doc.path, at(doc.text, node), key(), format!("argument `{}` targets itself", name()))
            .help("name the original argument this one modifies");
        return;
    }
    match kinds.get(id) {
        None => {
            let ids = ids.get_or_init(|| super::listed(block.arguments().map(|a| a.name())));
            sink.emit(
                doc.path,
                at(doc.text, node),
                key(),
                format!(
                    "target `{id}` of argument `{}` is not an argument of section `{}` (it has {})",
                    name(),
                    block.name(),
                    ids
                ),
            )
            .help("name an existing original argument of the same section");
        }
        Some(kind) if *kind != Some("original") => {
            sink.emit(
                doc.path,
                at(doc.text, node),
                key(),
                format!(
                    "target `{id}` of argument `{}` is a {}, not an original",
                    name(),
                    kind.unwrap_or("argument of unknown kind")
                ),
            )
            .help("modifications target the original argument they modify, not another modification");
        }
        Some(_) => {}
    }
}
