use super::{VotingView, anchor, at};
use crate::docs::tree::Node;
use crate::model::Sink;
use crate::rules::spans::key_span;

declare_rule! {
    id: "voting/field-type",
    view: VotingView,
    severity: Error,
    summary: "block and argument fields have ADR-140's types: strings, lists, the example mapping",
    why: "ADR-140's argument schema fixes each field's shape: `id`, `proposer`, `proposed_at`, `proposition`, \
`rationale`, `modification_kind` and `target` are strings (a null `target` is read as none: an original \
has none); `evidence_pr_refs` and `vote_ledger` are lists; \
`example` is an object with `artefact`, `diff_snapshot_ref` and `explanation`. A block's `section` and \
`active_argument` are strings and its `arguments` a list of argument mappings. \"Phase 1/2 consumers must \
defensive-parse, not assume validity\" only until the validator gates the shape: this rule is that gate.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

/// Argument fields that hold one string.
pub(crate) const STRINGS: [&str; 7] =
    ["id", "proposer", "proposed_at", "proposition", "rationale", "modification_kind", "target"];

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, _, block) in view.blocks() {
        for field in ["section", "active_argument"] {
            // An id names the section or an argument: blank names nothing.
            if let Some(node) = block.root().get(field).filter(|n| n.as_str().is_none_or(|s| s.trim().is_empty())) {
                sink.emit(
                    doc.path,
                    at(doc.text, node),
                    format!("{}/{field}", block.name()),
                    format!("`{field}` must be a non-empty string, found {}", node.type_name()),
                )
                .help(format!("write e.g. `{field}: {}`", if field == "section" { "smoke-spec-path" } else { "A" }));
            }
        }
        let Some(arguments) = block.root().get("arguments") else { continue };
        let Some(items) = arguments.as_seq() else {
            // At the key: a mapping or list value starts on the line below it.
            let key = block.root().key("arguments").map_or(at(doc.text, arguments), key_span);
            sink.emit(
                doc.path,
                key,
                format!("{}/arguments", block.name()),
                format!("`arguments` must be a list of arguments, found {}", arguments.type_name()),
            )
            .help("write `arguments:` then one `- id: A` mapping per argument");
            continue;
        };
        for (index, item) in items.iter().enumerate().filter(|(_, i)| i.as_map().is_none()) {
            sink.emit(
                doc.path,
                at(doc.text, item),
                format!("{}/arguments[{index}]", block.name()),
                format!(
                    "argument {} of section `{}` must be a mapping of fields, found {}",
                    index + 1,
                    block.name(),
                    item.type_name()
                ),
            )
            .help("write each argument as `- id: A` followed by its fields, indented");
        }
    }
    for (doc, block, argument) in view.arguments() {
        let mut wrong = |field: &str, node: Node, expected: &str| {
            // A list or mapping value starts below its key: point at the key.
            let key = argument.node.key(field).filter(|k| k.line != node.line());
            let key = key.map_or(at(doc.text, node), key_span);
            sink.emit(
                doc.path,
                key,
                anchor(block, &argument, field),
                format!("`{field}` of argument `{}` must be {expected}, found {}", argument.name(), node.type_name()),
            )
            .help("quote the value if YAML reads it as a number, boolean or null");
        };
        for field in STRINGS {
            // A null `target` is no target: ADR-140 requires none of an
            // original, and voting/target asks a modification for one.
            let absent = |n: &Node| field == "target" && n.is_null();
            if let Some(node) = argument.field(field).filter(|n| !is_string(*n) && !absent(n)) {
                wrong(field, node, "a string");
            }
        }
        for field in ["evidence_pr_refs", "vote_ledger"] {
            if let Some(node) = argument.field(field).filter(|n| n.as_seq().is_none()) {
                wrong(field, node, "a list (`[]` when empty)");
            }
        }
        if let Some(node) = argument.field("example").filter(|n| n.as_map().is_none()) {
            wrong("example", node, "a mapping with `artefact`, `diff_snapshot_ref` and `explanation`");
        }
    }
}

/// A scalar that is not null: ids such as `A` and dates such as `2026-05-06`
/// are plain scalars, which is fine.
/// Text of some kind: a plain number where a string belongs is left to the
/// rule that checks the field's shape (`id: 1` to argument-id, a bad date to
/// date), which says more than "not a string".
fn is_string(node: Node) -> bool {
    node.scalar_text().is_some() && !node.is_null()
}
