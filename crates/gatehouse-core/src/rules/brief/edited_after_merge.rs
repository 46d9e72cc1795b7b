use super::BriefView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/edited-after-merge",
    view: BriefView,
    severity: Warning,
    summary: "a merged brief is not changed or deleted",
    why: "ADR-099: \"Once the brief PR merges, the brief slug is what the sub-agent receives… The brief in \
the repo is the contract\", and the briefs folder is \"the canonical record of what each sub-agent was \
asked to do\". Editing or deleting a merged brief rewrites a contract an agent may already be running \
from; write a new brief instead.",
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
                let head = head.text().unwrap_or("");
                let line = base
                    .lines()
                    .zip(head.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(base.lines().count().min(head.lines().count()))
                    + 1;
                sink.emit(
                    path,
                    Span::line(line as u32),
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
