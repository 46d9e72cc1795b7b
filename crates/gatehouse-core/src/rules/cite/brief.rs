use super::CiteView;
use crate::model::{PR_BODY, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "cite/brief",
    view: CiteView,
    severity: Error,
    summary: "a `Brief:` line in the PR body names a brief merged on the base branch",
    why: "ADR-099: \"Once the brief PR merges, the brief slug is what the sub-agent receives… The brief in the \
repo is the contract; the sub-agent reads it from source.\" An implementation PR says which contract it \
fulfils with a `Brief: <path or slug>` line in its body. The brief must already be merged — on the base \
branch, reviewed — not added or rewritten by the same PR.",
    bad: Example {
        path: PR_BODY,
        text: "Implements the backup work.\n\nBrief: dark-factory/briefs/SWARM-AR-pg-bakup.md\n",
    },
    good: Example {
        path: PR_BODY,
        text: "Implements the backup work.\n\nBrief: dark-factory/briefs/SWARM-AR-pg-backup.md\n",
    },
}

fn check(view: &CiteView, sink: &mut Sink) {
    for (cite, resolved) in view.briefs.iter().zip(&view.resolved) {
        if resolved.is_some() {
            continue;
        }
        let span = Span::at(cite.line, cite.col, cite.value.chars().count() as u32);
        let in_this_pr = view
            .changes
            .head
            .keys()
            .any(|p| *p == cite.value || p.trim_end_matches(".md").ends_with(cite.value.trim_end_matches(".md")));
        let (message, help) = if in_this_pr {
            (
                format!("`{}` is added or changed by this PR, not merged on the base branch", cite.value),
                "merge the brief through its own review first; an implementation PR cites a merged brief",
            )
        } else {
            (
                format!("no merged brief matches `{}`", cite.value),
                "cite the brief's path (e.g. `Brief: dark-factory/briefs/SWARM-AR-pg-backup.md`) or its file name as merged on the base branch",
            )
        };
        sink.emit(PR_BODY, span, format!("brief:{}", cite.value), message).help(help);
    }
}
