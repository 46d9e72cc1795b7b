use super::{VotingView, anchor, at};
use crate::docs::voting::KINDS;
use crate::model::{Severity, Sink};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "voting/target",
    default_severity: Severity::Error,
    summary: "a modification names an original sibling in `target`; an original names none",
    why: "ADR-140: `target` is a \"Sibling argument id (e.g. A) — Required when modification_kind != original. Names the argument being modified.\" and each modification kind \"Targets: one original\". So an example-patch, counter-example or counter-argument names an existing argument of kind `original` in the same section (not itself), and an `original` argument has no target.",
    bad: Example {
        path: "dark-factory/guidelines/smoke-spec-path@v1.md",
        text: include_str!(
            "../../../fixtures/rules/voting/target/fail/head/dark-factory/guidelines/smoke-spec-path@v1.md"
        ),
    },
    good: Example {
        path: "dark-factory/guidelines/smoke-spec-path@v1.md",
        text: include_str!(
            "../../../fixtures/rules/voting/target/pass/head/dark-factory/guidelines/smoke-spec-path@v1.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<VotingView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(kind) = argument.kind().filter(|k| KINDS.contains(k)) else { continue };
        let key = anchor(block, &argument, "target");
        let name = argument.name();
        let target = argument.field("target").filter(|t| !t.is_null());
        if kind == "original" {
            if let Some(node) = target {
                sink.emit(doc.path, at(node), key, format!("argument `{name}` is an original, so it has no `target`"))
                    .help("remove `target`, or set `modification_kind` to the kind of modification this argument is");
            }
            continue;
        }
        let Some(node) = target else {
            let line_node = argument.field("modification_kind").unwrap_or(argument.node);
            sink.emit(doc.path, at(line_node), key, format!("argument `{name}` is a {kind} but names no `target`"))
                .help("add `target: <id>` naming the original argument this one modifies, e.g. `target: A`");
            continue;
        };
        let Some(id) = node.scalar_text() else { continue };
        if Some(id) == argument.id() {
            sink.emit(doc.path, at(node), key, format!("argument `{name}` targets itself"))
                .help("name the original argument this one modifies");
            continue;
        }
        match block.argument(id) {
            None => {
                let ids: Vec<String> = block.arguments().map(|a| a.name()).collect();
                sink.emit(
                    doc.path,
                    at(node),
                    key,
                    format!(
                        "target `{id}` of argument `{name}` is not an argument of section `{}` (it has {})",
                        block.name(),
                        ids.join(", ")
                    ),
                )
                .help("name an existing original argument of the same section");
            }
            Some(other) if other.kind() != Some("original") => {
                sink.emit(
                    doc.path,
                    at(node),
                    key,
                    format!(
                        "target `{id}` of argument `{name}` is a {}, not an original",
                        other.kind().unwrap_or("argument of unknown kind")
                    ),
                )
                .help("modifications target the original argument they modify, not another modification");
            }
            Some(_) => {}
        }
    }
}
