use super::CiteView;
use crate::model::{PR_BODY, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "cite/brief-repo",
    view: CiteView,
    severity: Error,
    summary: "a PR citing a brief is in one of the brief's `repos_touched`",
    why: "ADR-099's failures were agents working where the brief never sent them. A brief's `repos_touched` \
is the reviewed list of repositories the work may change; an implementation PR citing the brief from \
any other repository is outside its contract.",
    bad: Example {
        path: PR_BODY,
        text: "(a PR in gyrum-labs/web)\nBrief: SWARM-AR-pg-backup\n(the brief's repos_touched: [gyrum-labs/infra])\n",
    },
    good: Example {
        path: PR_BODY,
        text: "(a PR in gyrum-labs/infra)\nBrief: SWARM-AR-pg-backup\n(the brief's repos_touched: [gyrum-labs/infra])\n",
    },
}

fn check(view: &CiteView, sink: &mut Sink) {
    let Some(repo) = view.changes.repo.as_deref() else { return };
    for (cite, brief) in view.briefs.iter().zip(&view.resolved) {
        let Some(brief) = brief else { continue };
        let repos = brief.repos();
        if repos.is_empty() || repos.iter().any(|r| r.eq_ignore_ascii_case(repo)) {
            continue;
        }
        sink.emit(
            PR_BODY,
            Span::at(cite.line, cite.col, cite.value.chars().count() as u32),
            format!("repo:{}", cite.value),
            format!(
                "this PR is in {repo}, which `{}` does not list in `repos_touched` ({})",
                brief.path,
                repos.join(", ")
            ),
        )
        .help("open the PR in a repository the brief names, or amend the brief through review first");
    }
}
