use super::BriefView;
use crate::docs::frontmatter;
use crate::docs::seen::seen;
use crate::docs::tree::{Node, same_value};
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/edited-after-merge",
    view: BriefView,
    severity: Warning,
    summary: "a merged brief is not changed or deleted",
    why: "ADR-099: \"Once the brief PR merges, the brief slug is what the sub-agent receives… The brief in \
the repo is the contract\", and the briefs folder is \"the canonical record of what each sub-agent was \
asked to do\". Editing or deleting a merged brief rewrites a contract an agent may already be running \
from; write a new brief instead. The frontmatter is compared as data and the body as a reader sees it, so the \
same brief spelled otherwise (line endings, quoting, escapes) is no edit.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AS-pg-backup-v2.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for &path in &view.merged_changed {
        let base = view.changes.base.get(path).and_then(|c| c.text()).unwrap_or("");
        match view.changes.head.get(path) {
            None => {
                sink.emit(path, Span::line(1), "deleted", "this merged brief is deleted")
                    .help("keep merged briefs: they are the record of what an agent was asked to do");
            }
            Some(head) => {
                let Some(line) = first_edit(base, head.text().unwrap_or("")) else { continue };
                sink.emit(
                    path,
                    Span::line(line),
                    "edited",
                    "this brief is already merged, and the change edits it",
                )
                .help(
                    "leave the merged brief as it is and write a new brief (new agent id or slug) for the changed work",
                );
            }
        }
    }
}

/// The line of the first edit of a brief, or `None` when the head is the
/// base spelled otherwise: the frontmatter compared as data (the first key
/// whose value changed), the body as a reader sees it (the first line that
/// differs).
fn first_edit(base: &str, head: &str) -> Option<u32> {
    let (before, after) = (frontmatter::split(base), frontmatter::split(head));
    let same_frontmatter = match (&before.frontmatter, &after.frontmatter) {
        (Ok(b), Ok(h)) => {
            if let Some(line) = first_difference(b.root(), h.root()) {
                return Some(line);
            }
            true
        }
        (b, h) => b.as_ref().err() == h.as_ref().err() && before.body_line == after.body_line,
    };
    if same_frontmatter && seen(before.body) == seen(after.body) {
        return None;
    }
    // The lines compared from each side's body when only the body differs.
    let (skip_base, skip_head) =
        if same_frontmatter { (before.body_line as usize - 1, after.body_line as usize - 1) } else { (0, 0) };
    let (base_lines, head_lines) = (base.lines().skip(skip_base), head.lines().skip(skip_head));
    let common = base_lines.clone().count().min(head_lines.clone().count());
    let at = base_lines.zip(head_lines).position(|(a, b)| a != b).unwrap_or(common);
    Some((skip_head + at + 1) as u32)
}

/// The line of the first value of `now` that `was` does not hold, or where
/// one of `was`'s is missing; `None` when they are the same value.
fn first_difference(was: Node, now: Node) -> Option<u32> {
    match (was.as_map(), now.as_map(), was.as_seq(), now.as_seq()) {
        (Some(before), Some(after), ..) => {
            for (key, node) in after.iter() {
                match before.get(key.name) {
                    Some(old) => {
                        if let Some(line) = first_difference(old, node) {
                            return Some(line);
                        }
                    }
                    None => return Some(key.line),
                }
            }
            (before.len() != after.len()).then(|| now.line())
        }
        (_, _, Some(before), Some(after)) => {
            for (old, node) in before.iter().zip(after.iter()) {
                if let Some(line) = first_difference(old, node) {
                    return Some(line);
                }
            }
            (before.len() != after.len()).then(|| after.get(before.len()).map_or(now.line(), |n| n.line()))
        }
        _ => (!same_value(was, now)).then(|| now.line()),
    }
}
