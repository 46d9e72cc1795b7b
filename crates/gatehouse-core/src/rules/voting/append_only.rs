use std::collections::HashMap;

use super::{Published, VotingView, at};
use crate::docs::tree::Node;
use crate::docs::voting::{Argument, Block, VotingDoc, same_value, show};
use crate::model::{Sink, Span};
use crate::rules::spans::{entry_span, line_span};

declare_rule! {
    id: "voting/append-only",
    view: VotingView,
    severity: Error,
    summary: "vs the base: no published argument or vote is edited, removed or reordered",
    why: "ADR-140: each argument carries \"an append-only vote_ledger\"; \"The ledger is append-only. Phase 2 \
writes; Phase 3 reads\", and a published `@v<n>` is immutable: \"Hand-editing @v1 is not a path.\" The one \
legal edit to a published voting doc is appending: new vote entries at the end of a ledger, new arguments at \
the end of a section. Compared with the base, an existing argument whose fields changed, an argument or vote \
that is removed, or a ledger whose published order changed is an error; the finding names the argument or vote \
and shows what changed. `active_argument` may move to follow the votes (ADR-140: \"the highest-weighted at \
read time\"). To change anything else, mint `<doc>@v<n+1>.md`.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

const HELP: &str = "published arguments and votes are never edited, removed or reordered: only append; to change them, mint the next version as a new file";

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, base) in view.docs.iter().zip(&view.bases) {
        let Some(Published::Changed(base)) = base else { continue };
        let head: HashMap<&str, &Block> = doc.blocks().filter_map(|(_, b)| Some((b.section_id()?, b))).collect();
        for (section, published) in base.blocks() {
            let Some(id) = published.section_id() else { continue };
            if let Some(block) = head.get(id) {
                compare_block(sink, doc, published, block);
                continue;
            }
            let count = published.arguments().count();
            // Under the same heading, the block is still there with another id.
            let renamed = doc.blocks().find(|(s, _)| s.heading == section.heading).map(|(_, b)| b);
            let (span, message) = match renamed {
                Some(block) => (
                    block.root().get("section").map_or(Span::line(block.fence_line), |n| at(doc.text, n)),
                    format!(
                        "the `section` id of published section `{id}` ({count} argument(s)) is changed to `{}`",
                        block.name()
                    ),
                ),
                None => (Span::line(1), format!("section `{id}` and its {count} published argument(s) are removed")),
            };
            sink.emit(doc.path, span, format!("{id}/removed"), message).help(HELP);
        }
    }
}

fn compare_block(sink: &mut Sink, doc: &VotingDoc, published: &Block, block: &Block) {
    let head: Vec<Argument> = block.arguments().collect();
    let positions: HashMap<&str, usize> =
        head.iter().enumerate().rev().filter_map(|(at, a)| Some((a.id()?, at))).collect();
    let list_line = block.root().key("arguments").map_or(block.fence_line, |k| k.line);
    for (position, old) in published.arguments().enumerate() {
        let Some(new) = head.get(position) else {
            sink.emit(
                doc.path,
                line_span(doc.text, list_line),
                format!("{}/{}/removed", block.name(), old.name()),
                format!("published argument `{}` of section `{}` is removed", old.name(), block.name()),
            )
            .help(HELP);
            continue;
        };
        if new.id() != old.id() {
            let moved = old.id().and_then(|id| positions.get(id).copied());
            let message = match moved {
                Some(at) => format!(
                    "published argument `{}` of section `{}` moved from position {} to {}",
                    old.name(),
                    block.name(),
                    position + 1,
                    at + 1
                ),
                None => format!(
                    "published argument `{}` of section `{}` is removed (position {} now holds `{}`)",
                    old.name(),
                    block.name(),
                    position + 1,
                    new.name()
                ),
            };
            sink.emit(doc.path, at(doc.text, new.node), format!("{}/{}/removed", block.name(), old.name()), message)
                .help(HELP);
            continue;
        }
        compare_fields(sink, doc, block, &old, new);
        compare_ledgers(sink, doc, block, &old, new);
    }
}

/// Every field but the ledger is compared whole.
fn compare_fields(sink: &mut Sink, doc: &VotingDoc, block: &Block, old: &Argument, new: &Argument) {
    let (Some(before), Some(after)) = (old.node.as_map(), new.node.as_map()) else { return };
    let key = |field: &str| format!("{}/{}/{field}", block.name(), new.name());
    for (name, value) in before.iter().filter(|(k, _)| k.name != "vote_ledger") {
        match new.field(name.name) {
            None => {
                sink.emit(
                    doc.path,
                    at(doc.text, new.node),
                    key(name.name),
                    format!(
                        "field `{}` of published argument `{}` is removed (it was {})",
                        name.name,
                        new.name(),
                        show(value)
                    ),
                )
                .help(HELP);
            }
            Some(now) if !same_value(value, now) => {
                // A mapping (the example) names the keys that changed, at the first of them.
                let (span, what) = match (value.as_map(), now.as_map()) {
                    (Some(_), Some(_)) => {
                        let (span, changes) = differences(doc.text, value, now);
                        (span, changes.join(", "))
                    }
                    _ => (at(doc.text, now), change(value, now)),
                };
                sink.emit(
                    doc.path,
                    span,
                    key(name.name),
                    format!("field `{}` of published argument `{}` is edited: {what}", name.name, new.name()),
                )
                .help(HELP);
            }
            Some(_) => {}
        }
    }
    for (name, value) in after.iter().filter(|(k, _)| k.name != "vote_ledger" && old.field(k.name).is_none()) {
        sink.emit(
            doc.path,
            entry_span(doc.text, name),
            key(name.name),
            format!("field `{}` is added to published argument `{}` ({})", name.name, new.name(), show(value)),
        )
        .help(HELP);
    }
}

/// The published votes must be the head ledger's first entries, unchanged.
/// After the first vote that is gone or out of place the rest would all
/// shift, so one finding per ledger says what happened there.
fn compare_ledgers(sink: &mut Sink, doc: &VotingDoc, block: &Block, old: &Argument, new: &Argument) {
    let head: Vec<_> = new.votes().collect();
    let ledger = new.node.key("vote_ledger").map_or(at(doc.text, new.node), |k| entry_span(doc.text, k));
    let key = |index: usize| format!("{}/{}/vote{}", block.name(), new.name(), index + 1);
    for vote in old.votes() {
        let Some(now) = head.get(vote.index) else {
            sink.emit(
                doc.path,
                ledger,
                key(vote.index),
                format!("published {} on argument `{}` is removed", vote.name(), new.name()),
            )
            .help(HELP);
            return;
        };
        if same_value(vote.node, now.node) {
            continue;
        }
        if identity(vote.node) == identity(now.node) {
            let (span, changes) = differences(doc.text, vote.node, now.node);
            sink.emit(
                doc.path,
                span,
                key(vote.index),
                format!("published {} on argument `{}` is edited: {}", vote.name(), new.name(), changes.join(", ")),
            )
            .help(HELP);
            continue;
        }
        let moved = head.iter().find(|v| identity(v.node) == identity(vote.node));
        let message = match moved {
            Some(other) => format!(
                "published {} on argument `{}` moved to position {}: the ledger's order changed",
                vote.name(),
                new.name(),
                other.index + 1
            ),
            None => format!(
                "published {} on argument `{}` is removed (position {} now holds {})",
                vote.name(),
                new.name(),
                vote.index + 1,
                now.name()
            ),
        };
        sink.emit(doc.path, at(doc.text, now.node), key(vote.index), message).help(HELP);
        return;
    }
}

/// Who voted when: a vote keeps this through any edit of its other fields.
fn identity(vote: Node<'_>) -> (Option<&str>, Option<&str>) {
    let text = |field: &str| vote.get(field).and_then(Node::scalar_text);
    (text("voter"), text("ts"))
}

/// Where the first change is in `text` (the doc's text) and what changed,
/// field by field.
fn differences(text: &str, old: Node, new: Node) -> (Span, Vec<String>) {
    let mut span = None;
    let mut changes = Vec::new();
    for (name, value) in old.entries().iter() {
        match new.get(name.name) {
            Some(now) if same_value(value, now) => {}
            Some(now) => {
                span = span.or(Some(at(text, now)));
                changes.push(format!("`{}` {}", name.name, change(value, now)));
            }
            None => changes.push(format!("`{}` {} removed", name.name, show(value))),
        }
    }
    for (name, value) in new.entries().iter().filter(|(k, _)| old.get(k.name).is_none()) {
        span = span.or(Some(entry_span(text, name)));
        changes.push(format!("`{}` {} added", name.name, show(value)));
    }
    (span.unwrap_or(at(text, new)), changes)
}

/// How a value changed: `old → new`. Long texts are shown from a little
/// before their first difference, so an edit near the end of a rationale
/// shows the edit rather than the shared start twice.
fn change(old: Node, new: Node) -> String {
    const BEFORE: usize = 20;
    const SHOWN: usize = 60;
    let (Some(a), Some(b)) = (old.scalar_text(), new.scalar_text()) else {
        return format!("{} → {}", inline(old), inline(new));
    };
    let differs_at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    if a.chars().count().max(b.chars().count()) <= SHOWN || differs_at < SHOWN - BEFORE {
        return format!("{} → {}", show(old), show(new));
    }
    let from = differs_at - BEFORE;
    let window = |text: &str| {
        let shown: String = text.chars().skip(from).take(SHOWN).collect();
        let cut = if text.chars().count() > from + SHOWN { "…" } else { "" };
        format!("`…{}{cut}`", shown.replace('\n', " "))
    };
    format!("{} → {} (from character {})", window(a), window(b), from + 1)
}

/// [`show`], with a short list of plain values written out (`[a/b#1, c/d#2]`)
/// rather than counted.
fn inline(value: Node) -> String {
    let Some(items) = value.as_seq() else { return show(value) };
    let texts: Option<Vec<&str>> = items.iter().map(Node::scalar_text).collect();
    match texts.map(|t| t.join(", ")) {
        Some(list) if list.chars().count() <= 60 => format!("`[{list}]`"),
        _ => show(value),
    }
}
