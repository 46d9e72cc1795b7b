use std::collections::HashMap;

use super::{VotingView, at};
use crate::model::Sink;

declare_rule! {
    id: "voting/section-duplicate",
    view: VotingView,
    severity: Error,
    summary: "section ids (`section:`) are unique within a doc",
    why: "ADR-140's curator computes weighted totals per section, and Phase 5 promotes a section's bound \
example under `examples/<rule-id>/`: the `section` id is the key every consumer uses to find a section's \
ledger. Two blocks with the same id would merge two rules' votes, so each `section:` value appears once per \
doc.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for doc in &view.docs {
        let mut seen: HashMap<&str, u32> = HashMap::new();
        for (_, block) in doc.blocks() {
            let Some(node) = block.root().get("section") else { continue };
            let Some(id) = node.as_str() else { continue };
            match seen.get(id) {
                Some(first) => {
                    sink.emit(doc.path, at(doc.text, node), format!("section:{id}:duplicate"), format!("section id `{id}` is already used on line {first}"))
                        .help("give each section its own id; if both blocks argue the same rule, merge their arguments into one section");
                }
                None => {
                    seen.insert(id, node.line());
                }
            }
        }
    }
}
