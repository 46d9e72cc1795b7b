//! `pull_request_review`: a review submitted, edited or dismissed
//! evaluates the PR's review gate again (only it: the documents did not
//! change).

use super::{Origin, Work};
use crate::github::HeadSha;
use crate::store::{PrNumber, Scope, Target};
use crate::webhook::payloads::{PullRequestReviewAction, PullRequestReviewEvent};

pub(super) fn handle(event: &PullRequestReviewEvent) -> Work {
    let reason = match event.action {
        PullRequestReviewAction::Submitted => "pull_request_review.submitted",
        PullRequestReviewAction::Edited => "pull_request_review.edited",
        PullRequestReviewAction::Dismissed => "pull_request_review.dismissed",
        PullRequestReviewAction::Other => return Work::default(),
    };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), reason) else {
        return Work::default();
    };
    let pr = &event.pull_request;
    let target = Target::Pr { number: PrNumber(pr.number), head: pr.head.as_ref().map(|h| HeadSha(h.sha.clone())) };
    Work::of(vec![origin.job(target, Scope::ReviewGate, false)])
}

#[cfg(test)]
mod tests {
    use crate::webhook::envelope::parse;

    use super::*;

    #[test]
    fn a_review_re_gates_the_pr() {
        let body = r#"{"action":"submitted","review":{"id":9,"user":{"login":"gyrum-lin"},"state":"APPROVED","commit_id":"abc"},
            "pull_request":{"number":4,"head":{"sha":"abc"}},"repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        let work = parse("pull_request_review", body.as_bytes()).unwrap();
        assert_eq!(work.jobs[0].target, Target::Pr { number: PrNumber(4), head: Some(HeadSha("abc".into())) });
        assert_eq!(work.jobs[0].reason, "pull_request_review.submitted");
        assert_eq!(work.jobs[0].scope, Scope::ReviewGate, "only the gate");
    }
}
