//! `check_suite`: a push's suite (requested) or Re-run all checks
//! (rerequested) evaluates the suite's PRs; a fork's suite lists none and
//! names its head for the worker to resolve.

use super::{Origin, Work};
use crate::store::Scope;
use crate::webhook::payloads::{CheckSuiteAction, CheckSuiteEvent};

pub(super) fn handle(event: &CheckSuiteEvent) -> Work {
    // A suite comes with every push: a head evaluated already is not
    // evaluated again; a re-run evaluates again.
    let (reason, once_per_head) = match event.action {
        CheckSuiteAction::Requested => ("check_suite.requested", true),
        CheckSuiteAction::Rerequested => ("check_suite.rerequested", false),
        CheckSuiteAction::Other => return Work::default(),
    };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), reason) else {
        return Work::default();
    };
    let suite = &event.check_suite;
    // A suite of a named branch with no PR (a push to `main`) has nothing
    // to check; a fork's (`head_branch: null`) is found by head.
    if suite.pull_requests.is_empty() && suite.head_branch.is_some() {
        return Work::default();
    }
    Work::of(origin.for_prs(&suite.pull_requests, &suite.head_sha, Scope::All, once_per_head))
}

#[cfg(test)]
mod tests {
    use crate::github::HeadSha;
    use crate::store::Target;
    use crate::webhook::envelope::parse;

    #[test]
    fn a_fork_check_suite_asks_for_the_prs_of_its_head() {
        let body = r#"{"action":"requested","check_suite":{"head_sha":"f00","pull_requests":[]},
            "repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        let work = parse("check_suite", body.as_bytes()).unwrap();
        assert_eq!(work.jobs[0].target, Target::Head(HeadSha("f00".into())));
        assert!(work.jobs[0].once_per_head);
    }

    #[test]
    fn a_branch_suite_without_prs_makes_no_job() {
        let body = r#"{"action":"requested","check_suite":{"head_sha":"f00","head_branch":"main","pull_requests":[]},
            "repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        assert!(parse("check_suite", body.as_bytes()).unwrap().jobs.is_empty());
    }
}
