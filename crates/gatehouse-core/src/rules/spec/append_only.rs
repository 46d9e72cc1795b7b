use super::SpecView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/append-only",
    view: SpecView,
    severity: Error,
    summary: "99-user.md, stats.md, landed.md and audit/findings.md are only appended to",
    why: "fondue `spec` v9 (with the engine): `99-user.md` holds the User's rulings and `stats.md` one row per \
reply, both appended; `landed.md` is \"appended when the implementation of an attempt starts and whenever a \
phase or an audit topic closes\", recording where each phase's code ends, so a reopened spec can tell which \
commits belong to which phase; an auditor \"appends to `audit/findings.md`\" and \"ids continue from the \
highest one in the file\". Rewriting any of them rewrites the record later sessions rely on.",
    bad: "fondue/specs/retry-queue/stats.md",
    good: "fondue/specs/retry-queue/stats.md",
}

const LEDGERS: [&str; 4] = ["99-user.md", "stats.md", "landed.md", "audit/findings.md"];

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.specs.iter().filter(|s| !s.deleted) {
        for rel in LEDGERS {
            let Some(base) = spec.base_text(rel) else { continue };
            let path = spec.path(rel);
            let Some(head) = spec.text(rel) else {
                // A reopen moves audit/findings.md into attempts/NN/.
                let moved = rel == "audit/findings.md" && spec.reopened;
                if !spec.has(rel) && !moved {
                    sink.emit(&path, Span::line(1), rel, format!("`{rel}` is deleted"))
                        .help("keep it: it is only ever appended to");
                }
                continue;
            };
            if let Some(line) = rewritten(base, head) {
                sink.emit(
                    &path,
                    Span::line(line),
                    rel,
                    format!("`{rel}` is changed above its end: line {line} differs from the base"),
                )
                .help("restore the lines already there and add new entries at the end only");
            }
        }
    }
}

/// The first head line that differs from a base line, when the head is not
/// the base with lines added after it. Blank lines (an HTML comment is
/// blanked when read) separate blocks and are no entry.
fn rewritten(base: &str, head: &str) -> Option<u32> {
    let mut head_lines = head.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    // The head's last line matched so far: where a shortened head ends.
    let mut matched = 1;
    for line in base.lines().filter(|l| !l.trim().is_empty()) {
        match head_lines.next() {
            Some((i, h)) if crate::docs::seen::same_line(h, line) => matched = i as u32 + 1,
            Some((i, _)) => return Some(i as u32 + 1),
            None => return Some(matched),
        }
    }
    None
}
