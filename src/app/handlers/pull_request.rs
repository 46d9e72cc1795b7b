//! `pull_request`: a PR opened, pushed to, reopened, marked ready, or its
//! body or base edited evaluates the PR; a PR closed by a merge has its
//! gate attested (or the bypass of its gate said).

use super::{Origin, Work};
use crate::github::HeadSha;
use crate::store::{PrNumber, Scope, Target};
use crate::webhook::payloads::{PullRequestAction, PullRequestEvent};

pub(super) fn handle(event: &PullRequestEvent) -> Work {
    let edited_what_matters = event.changes.as_ref().is_some_and(|c| c.body.is_some() || c.base.is_some());
    // Opened and synchronize come with every push (as its check suite does):
    // a head evaluated already is not evaluated again.
    let (reason, once_per_head) = match event.action {
        PullRequestAction::Opened => ("pull_request.opened", true),
        PullRequestAction::Synchronize => ("pull_request.synchronize", true),
        PullRequestAction::Reopened => ("pull_request.reopened", false),
        PullRequestAction::ReadyForReview => ("pull_request.ready_for_review", false),
        PullRequestAction::Edited if edited_what_matters => ("pull_request.edited", false),
        PullRequestAction::Closed => return merged(event),
        PullRequestAction::Edited | PullRequestAction::Other => return Work::default(),
    };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), reason) else {
        return Work::default();
    };
    let pr = &event.pull_request;
    let number = PrNumber(event.number.unwrap_or(pr.number));
    let head = pr.head.as_ref().map(|h| HeadSha(h.sha.clone()));
    Work::of(vec![origin.job(Target::Pr { number, head }, Scope::All, once_per_head)])
}

/// A merged PR's job: its merge commit is attested or the bypass said. A
/// PR closed without merging asks for nothing.
fn merged(event: &PullRequestEvent) -> Work {
    let pr = &event.pull_request;
    let (Some(true), Some(merge)) = (pr.merged, pr.merge_commit_sha.as_ref()) else { return Work::default() };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), "pull_request.closed") else {
        return Work::default();
    };
    let target = Target::Merged { number: PrNumber(event.number.unwrap_or(pr.number)), merge: HeadSha(merge.clone()) };
    Work::of(vec![origin.job(target, Scope::All, false)])
}

#[cfg(test)]
mod tests {
    use crate::webhook::envelope::parse;

    use super::*;

    const PR_OPENED: &str = r#"{"action":"opened","number":7,"pull_request":{"number":7,"head":{"sha":"abc"}},
        "repository":{"full_name":"acme/docs"},"installation":{"id":42}}"#;

    #[test]
    fn pull_request_events_make_one_job() {
        let work = parse("pull_request", PR_OPENED.as_bytes()).unwrap();
        assert_eq!(work.jobs.len(), 1);
        let head = Some(HeadSha("abc".into()));
        assert_eq!(work.jobs[0].target, Target::Pr { number: PrNumber(7), head });
        assert_eq!(work.jobs[0].installation, 42);
        assert_eq!(work.jobs[0].reason, "pull_request.opened");
        assert!(work.jobs[0].once_per_head);
        let reopened = PR_OPENED.replace("\"opened\"", "\"reopened\"");
        assert!(!parse("pull_request", reopened.as_bytes()).unwrap().jobs[0].once_per_head);
    }

    #[test]
    fn a_merge_asks_for_its_attestation_and_a_close_for_nothing() {
        let merged = PR_OPENED.replace("\"opened\"", "\"closed\"").replace(
            "\"head\":{\"sha\":\"abc\"}",
            "\"head\":{\"sha\":\"abc\"},\"merged\":true,\"merge_commit_sha\":\"m1\"",
        );
        let work = parse("pull_request", merged.as_bytes()).unwrap();
        let merge = HeadSha("m1".into());
        assert_eq!(work.jobs[0].target, Target::Merged { number: PrNumber(7), merge });
        let closed = merged.replace("\"merged\":true", "\"merged\":false");
        assert!(parse("pull_request", closed.as_bytes()).unwrap().jobs.is_empty());
    }

    #[test]
    fn title_edits_are_ignored_and_body_edits_are_not() {
        let title = PR_OPENED.replace("\"opened\"", "\"edited\",\"changes\":{\"title\":{\"from\":\"x\"}}");
        assert!(parse("pull_request", title.as_bytes()).unwrap().jobs.is_empty());
        let body = PR_OPENED.replace("\"opened\"", "\"edited\",\"changes\":{\"body\":{\"from\":\"x\"}}");
        assert_eq!(parse("pull_request", body.as_bytes()).unwrap().jobs.len(), 1);
    }
}
