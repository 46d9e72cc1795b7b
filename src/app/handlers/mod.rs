//! What each webhook event asks for: one module per event, behind the one
//! `match` in [`handle`]. A handler reads its payload and returns the jobs
//! to queue (and a merge group to record); the worker evaluates each job by
//! its [`Target`] (`app::worker`).

mod check_run;
mod check_suite;
mod installation;
mod installation_repositories;
mod issue_comment;
mod merge_group;
mod pull_request;
mod pull_request_review;
mod push;
mod team;

use crate::github::HeadSha;
use crate::store::{MergeGroupRecord, NewJob, PrNumber, Scope, Target};
use crate::webhook::envelope::Event;
use crate::webhook::payloads::{Installation, PullRequestRef, Repository};

/// What to do with a delivery.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub jobs: Vec<NewJob>,
    /// The sender's login, to tell the App's own events from others'.
    pub sender: Option<String>,
    /// A merge group to record before its job is stored.
    pub merge_group: Option<MergeGroupRecord>,
}

/// The work `event` asks for.
pub(crate) fn handle(event: &Event) -> Work {
    let work = match event {
        Event::PullRequest(e) => pull_request::handle(e),
        Event::PullRequestReview(e) => pull_request_review::handle(e),
        Event::CheckSuite(e) => check_suite::handle(e),
        Event::CheckRun(e) => check_run::handle(e),
        Event::MergeGroup(e) => merge_group::handle(e),
        Event::Push(e) => push::handle(e),
        Event::Installation(e) => installation::handle(e),
        Event::InstallationRepositories(e) => installation_repositories::handle(e),
        Event::IssueComment(e) => issue_comment::handle(e),
        Event::Membership(e) => team::handle(&e.team, &e.organization, e.installation.as_ref(), "membership"),
        Event::Team(e) => team::handle(&e.team, &e.organization, e.installation.as_ref(), "team"),
        Event::Unhandled => Work::default(),
    };
    Work { sender: event.sender().map(str::to_string), ..work }
}

impl Work {
    fn of(jobs: Vec<NewJob>) -> Work {
        Work { jobs, ..Work::default() }
    }
}

/// Where the jobs of a repository's event run, and why.
struct Origin<'e> {
    repo: &'e str,
    installation: u64,
    /// `event.action`, for the logs.
    reason: &'static str,
}

impl<'e> Origin<'e> {
    /// `None` for a delivery that is not an App installation's.
    fn of(repository: &'e Repository, installation: Option<&Installation>, reason: &'static str) -> Option<Origin<'e>> {
        Some(Origin { repo: &repository.full_name, installation: installation?.id, reason })
    }

    fn job(&self, target: Target, scope: Scope, once_per_head: bool) -> NewJob {
        NewJob {
            repo: self.repo.to_string(),
            installation: self.installation,
            target,
            scope,
            once_per_head,
            reason: self.reason.to_string(),
        }
    }

    /// One job per listed PR; none listed (a fork's PR: GitHub leaves the
    /// list empty) asks for the open PRs whose head is `sha`.
    fn for_prs(&self, prs: &[PullRequestRef], sha: &str, scope: Scope, once_per_head: bool) -> Vec<NewJob> {
        let head = HeadSha(sha.to_string());
        if prs.is_empty() {
            return vec![self.job(Target::Head(head), scope, once_per_head)];
        }
        prs.iter()
            .map(|pr| {
                let target = Target::Pr { number: PrNumber(pr.number), head: Some(head.clone()) };
                self.job(target, scope, once_per_head)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_events_and_garbage() {
        assert_eq!(crate::webhook::envelope::parse("star", br#"{"action":"created"}"#).unwrap(), Work::default());
        assert!(crate::webhook::envelope::parse("pull_request", b"not json").is_err());
        assert_eq!(crate::webhook::envelope::parse("pull_request", b"{}").unwrap(), Work::default());
    }
}
