use super::CiteView;
use crate::model::{PR_BODY, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "cite/brief-size",
    view: CiteView,
    severity: Warning,
    summary: "a PR citing a brief changes at most twice the brief's `lines_estimate`",
    why: "ADR-099's review threshold is measured against `lines_estimate`: a brief estimated at 80 lines is \
\"operator's call\", one at 400 gets four-persona review. A PR that changes more than twice the estimate \
suggests the brief under-stated the work, and with it the review it needed.",
    bad: Example { path: PR_BODY, text: "Brief: SWARM-AR-pg-backup\n(lines_estimate: 80; the PR changes 400 lines)\n" },
    good: Example {
        path: PR_BODY,
        text: "Brief: SWARM-AR-pg-backup\n(lines_estimate: 80; the PR changes 120 lines)\n",
    },
}

fn check(view: &CiteView, sink: &mut Sink) {
    let Some(files) = &view.changes.pr.files else { return };
    let changed: u64 = files.iter().map(|f| f.additions + f.deletions).sum();
    for (cite, brief) in view.briefs.iter().zip(&view.resolved) {
        let Some(estimate) = brief.as_ref().and_then(|b| b.lines_estimate()).filter(|n| *n > 0) else { continue };
        if changed > 2 * estimate as u64 {
            sink.emit(
                PR_BODY,
                Span::at(cite.line, cite.col, cite.value.chars().count() as u32),
                format!("size:{}", cite.value),
                format!("this PR changes {changed} lines, more than twice the brief's lines_estimate of {estimate}"),
            )
            .help(
                "split the PR, or raise the brief's estimate through a new brief so it gets the review its size needs",
            );
        }
    }
}
