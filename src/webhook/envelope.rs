//! What a verified delivery is: the [`Event`] its `X-GitHub-Event` header
//! and body name, parsed only after the signature verified. What each event
//! asks for is its handler's (`app::handlers`).

use serde::de::DeserializeOwned;

pub(crate) use crate::app::handlers::Work;
use crate::webhook::payloads::{
    CheckRunEvent, CheckSuiteEvent, InstallationEvent, InstallationRepositoriesEvent, IssueCommentEvent,
    MembershipEvent, MergeGroupEvent, PullRequestEvent, PullRequestReviewEvent, PushEvent, TeamEvent,
};

/// The events the App subscribes to (app-manifest.yml) or GitHub sends every
/// App: the only `X-GitHub-Event` values `/metrics` labels by name.
pub(crate) const KNOWN_EVENTS: [&str; 12] = [
    "check_run",
    "check_suite",
    "installation",
    "installation_repositories",
    "issue_comment",
    "membership",
    "merge_group",
    "ping",
    "pull_request",
    "pull_request_review",
    "push",
    "team",
];

/// A verified delivery, by `X-GitHub-Event`.
#[derive(Debug)]
pub(crate) enum Event {
    PullRequest(PullRequestEvent),
    PullRequestReview(PullRequestReviewEvent),
    CheckSuite(CheckSuiteEvent),
    CheckRun(CheckRunEvent),
    MergeGroup(MergeGroupEvent),
    Push(PushEvent),
    Installation(InstallationEvent),
    InstallationRepositories(InstallationRepositoriesEvent),
    IssueComment(IssueCommentEvent),
    Membership(MembershipEvent),
    Team(TeamEvent),
    /// `ping`, an event the App does not act on, or a JSON body without the
    /// fields gatehouse reads of its event: answered, never acted on.
    Unhandled,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("the body is not a JSON webhook payload: {0}")]
    NotJson(String),
}

impl Event {
    /// Reads a verified delivery of `event`. A body that is not JSON is an
    /// error; unknown events and JSON without what gatehouse reads are
    /// [`Event::Unhandled`] (GitHub expects a 2xx).
    pub(crate) fn parse(event: &str, body: &[u8]) -> Result<Event, EnvelopeError> {
        match event {
            "pull_request" => read(body, Event::PullRequest),
            "pull_request_review" => read(body, Event::PullRequestReview),
            "check_suite" => read(body, Event::CheckSuite),
            "check_run" => read(body, Event::CheckRun),
            "merge_group" => read(body, Event::MergeGroup),
            "push" => read(body, Event::Push),
            "installation" => read(body, Event::Installation),
            "installation_repositories" => read(body, Event::InstallationRepositories),
            "issue_comment" => read(body, Event::IssueComment),
            "membership" => read(body, Event::Membership),
            "team" => read(body, Event::Team),
            _ => read(body, |_: serde::de::IgnoredAny| Event::Unhandled),
        }
    }

    /// The login of who caused the event, to tell the App's own events
    /// from others'.
    pub(crate) fn sender(&self) -> Option<&str> {
        let sender = match self {
            Event::PullRequest(e) => e.sender.as_ref(),
            Event::PullRequestReview(e) => e.sender.as_ref(),
            Event::CheckSuite(e) => e.sender.as_ref(),
            Event::CheckRun(e) => e.sender.as_ref(),
            Event::MergeGroup(e) => e.sender.as_ref(),
            Event::Push(e) => e.sender.as_ref(),
            Event::Installation(e) => e.sender.as_ref(),
            Event::InstallationRepositories(e) => e.sender.as_ref(),
            Event::IssueComment(e) => e.sender.as_ref(),
            Event::Membership(e) => e.sender.as_ref(),
            Event::Team(e) => e.sender.as_ref(),
            Event::Unhandled => None,
        };
        sender.map(|s| s.login.as_str())
    }
}

fn read<P: DeserializeOwned>(body: &[u8], event: impl FnOnce(P) -> Event) -> Result<Event, EnvelopeError> {
    match serde_json::from_slice(body) {
        Ok(payload) => Ok(event(payload)),
        Err(err) if err.is_data() => Ok(Event::Unhandled),
        Err(err) => Err(EnvelopeError::NotJson(err.to_string())),
    }
}

/// Reads a verified delivery of `event` and what its handler asks for.
pub fn parse(event: &str, body: &[u8]) -> Result<Work, EnvelopeError> {
    Ok(crate::app::handlers::handle(&Event::parse(event, body)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPO: &str = r#""repository":{"full_name":"acme/docs","default_branch":"main"},"installation":{"id":3},"sender":{"login":"lin"}"#;

    fn event(name: &str, fields: &str) -> Event {
        Event::parse(name, format!("{{{fields},{REPO}}}").as_bytes()).unwrap()
    }

    #[test]
    fn each_event_reads_its_payload() {
        let pr = event(
            "pull_request",
            r#""action":"synchronize","number":2,"pull_request":{"number":2,"head":{"sha":"a1"}}"#,
        );
        assert!(
            matches!(&pr, Event::PullRequest(e) if e.action == crate::webhook::payloads::PullRequestAction::Synchronize
            && e.pull_request.head.as_ref().map(|h| h.sha.as_str()) == Some("a1"))
        );
        let review =
            event("pull_request_review", r#""action":"dismissed","review":{"id":1},"pull_request":{"number":2}"#);
        assert!(matches!(&review, Event::PullRequestReview(e) if e.pull_request.number == 2));
        let suite =
            event("check_suite", r#""action":"rerequested","check_suite":{"head_sha":"a1","head_branch":null}"#);
        assert!(matches!(&suite, Event::CheckSuite(e) if e.check_suite.pull_requests.is_empty()));
        let run = event(
            "check_run",
            r#""action":"requested_action","check_run":{"head_sha":"a1","name":"gatehouse/specs"},"requested_action":{"identifier":"rerun"}"#,
        );
        assert!(
            matches!(&run, Event::CheckRun(e) if e.requested_action.as_ref().is_some_and(|a| a.identifier == "rerun"))
        );
        let group = event(
            "merge_group",
            r#""action":"destroyed","merge_group":{"head_sha":"f1","head_ref":"refs/heads/gh-readonly-queue/main/pr-2-e1","base_sha":"e1","base_ref":"refs/heads/main"}"#,
        );
        assert!(
            matches!(&group, Event::MergeGroup(e) if e.action == crate::webhook::payloads::MergeGroupAction::Destroyed)
        );
        let push = event("push", r#""ref":"refs/heads/main","after":"b2""#);
        assert!(matches!(&push, Event::Push(e) if e.git_ref == "refs/heads/main" && !e.deleted));
        let install = event("installation", r#""action":"created","repositories":[{"full_name":"acme/docs"}]"#);
        assert!(matches!(&install, Event::Installation(e) if e.installation.id == 3));
        let added = event("installation_repositories", r#""action":"added","repositories_added":[]"#);
        assert!(matches!(&added, Event::InstallationRepositories(e) if e.repositories_added.is_empty()));
        for e in [pr, review, suite, run, group, push, install, added] {
            assert_eq!(e.sender(), Some("lin"), "{e:?}");
        }
    }

    #[test]
    fn unknown_actions_are_read_as_other() {
        let labeled = event("pull_request", r#""action":"labeled","pull_request":{"number":2}"#);
        assert!(
            matches!(labeled, Event::PullRequest(e) if e.action == crate::webhook::payloads::PullRequestAction::Other)
        );
    }

    #[test]
    fn json_without_what_gatehouse_reads_is_unhandled_and_other_bytes_are_refused() {
        assert!(matches!(event("pull_request", r#""action":"opened""#), Event::Unhandled));
        assert!(matches!(event("check_run", r#""action":"rerequested","check_run":{"name":7}"#), Event::Unhandled));
        assert!(matches!(event("ping", r#""zen":"Keep it logically awesome.""#), Event::Unhandled));
        assert!(matches!(Event::parse("star", b"{}"), Ok(Event::Unhandled)));
        for body in [&b"not json"[..], b"", b"{\"action\":"] {
            assert!(matches!(Event::parse("pull_request", body), Err(EnvelopeError::NotJson(_))), "{body:?}");
            assert!(Event::parse("star", body).is_err(), "{body:?}");
        }
    }
}
