use super::CiteView;
use crate::docs::pathref::{SpanKind, classify};
use crate::model::{PR_BODY, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "cite/brief-scope",
    view: CiteView,
    severity: Warning,
    summary: "a PR citing a brief changes no path its `out_of_scope` rules out",
    why: "ADR-099's `out_of_scope` lists \"things the agent must not do\". When an entry is a path (a file or \
a folder, written as in the body), a change to that path in a PR implementing the brief is the scope \
creep the brief's reviewers ruled out.",
    bad: Example {
        path: PR_BODY,
        text: "Brief: SWARM-AR-pg-backup\n(out_of_scope: [\"ui/\"]; the PR changes ui/restore-button.tsx)\n",
    },
    good: Example {
        path: PR_BODY,
        text: "Brief: SWARM-AR-pg-backup\n(out_of_scope: [\"ui/\"]; the PR changes scripts/backup.sh)\n",
    },
}

fn check(view: &CiteView, sink: &mut Sink) {
    let Some(files) = &view.changes.pr.files else { return };
    for (cite, brief) in view.briefs.iter().zip(&view.resolved) {
        let Some(brief) = brief else { continue };
        for (entry, _) in brief.strings("out_of_scope") {
            let SpanKind::Path(scope) = classify(entry.trim_matches('`'), &[]) else { continue };
            if scope.repo.is_some() {
                continue;
            }
            let dir = scope.path.trim_end_matches('/');
            let Some(hit) = files.iter().find(|f| f.path == dir || f.path.starts_with(&format!("{dir}/"))) else {
                continue;
            };
            sink.emit(
                PR_BODY,
                Span::at(cite.line, cite.col, cite.value.chars().count() as u32),
                format!("scope:{}:{entry}", cite.value),
                format!("this PR changes `{}`, which `{}` puts out of scope (`{entry}`)", hit.path, brief.path),
            )
            .help("leave that path to another brief, or amend this brief's scope through review");
        }
    }
}
