//! `push`: a push to the repository's default branch asks for the open pull
//! requests whose documents depend on what changed (`app::push`). Pushes
//! to other branches, tags and a deleted branch ask for nothing: a pull
//! request's own pushes come as `pull_request.synchronize`.

use super::{Origin, Work};
use crate::github::HeadSha;
use crate::store::{Scope, Target};
use crate::webhook::payloads::PushEvent;

pub(super) fn handle(event: &PushEvent) -> Work {
    let Some(default) = event.repository.default_branch.as_deref() else {
        return Work::default();
    };
    let pushed_default = event.git_ref.strip_prefix("refs/heads/") == Some(default);
    if !pushed_default || event.deleted {
        return Work::default();
    }
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), "push") else {
        return Work::default();
    };
    Work::of(vec![origin.job(Target::BaseTip(HeadSha(event.after.clone())), Scope::All, false)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::envelope::parse;

    /// A push payload in the shape "Webhook events and payloads" gives
    /// (`ref`, `before`, `after`, `created`, `deleted`, `forced`, `commits`
    /// with `added`/`removed`/`modified`, `head_commit`, `pusher`).
    fn push(git_ref: &str, deleted: bool) -> String {
        format!(
            r#"{{"ref":"{git_ref}","before":"aa01","after":"bb02","created":false,"deleted":{deleted},"forced":false,
            "base_ref":null,"compare":"https://github.com/acme/docs/compare/aa01...bb02",
            "commits":[{{"id":"bb02","tree_id":"cc03","distinct":true,"message":"Supersede ADR-095",
              "timestamp":"2026-12-01T10:00:00Z","url":"https://github.com/acme/docs/commit/bb02",
              "author":{{"name":"Lin","email":"lin@example.com","username":"gyrum-lin"}},
              "committer":{{"name":"GitHub","email":"noreply@github.com","username":"web-flow"}},
              "added":[],"removed":[],"modified":["docs/adr/ADR-095-backups.md"]}}],
            "head_commit":null,"pusher":{{"name":"gyrum-lin","email":"lin@example.com"}},
            "repository":{{"full_name":"acme/docs","default_branch":"main"}},"installation":{{"id":5}},
            "sender":{{"login":"gyrum-lin"}}}}"#
        )
    }

    #[test]
    fn a_push_to_the_default_branch_asks_for_a_recheck() {
        let work = parse("push", push("refs/heads/main", false).as_bytes()).unwrap();
        assert_eq!(work.jobs.len(), 1);
        let job = &work.jobs[0];
        assert_eq!((&job.target, job.reason.as_str()), (&Target::BaseTip(HeadSha("bb02".into())), "push"));
        assert_eq!((job.repo.as_str(), job.installation, job.scope), ("acme/docs", 5, Scope::All));
        for (git_ref, deleted) in [("refs/heads/feature", false), ("refs/tags/v1", false), ("refs/heads/main", true)] {
            assert!(parse("push", push(git_ref, deleted).as_bytes()).unwrap().jobs.is_empty(), "{git_ref} {deleted}");
        }
    }
}
