//! `check_run`: GitHub's Re-run on one check (rerequested) evaluates that
//! check again; the run's own Re-run button (requested_action) evaluates
//! the whole PR again.

use super::{Origin, Work};
use crate::plan::REVIEW_CHECK;
use crate::publish::checks::RERUN_ACTION;
use crate::store::{Scope, family_check};
use crate::webhook::payloads::{CheckRunAction, CheckRunEvent};

pub(super) fn handle(event: &CheckRunEvent) -> Work {
    let run = &event.check_run;
    let (reason, scope) = match event.action {
        CheckRunAction::Rerequested => ("check_run.rerequested", run.name.as_deref().map_or(Scope::All, scope_of_run)),
        CheckRunAction::RequestedAction
            if event.requested_action.as_ref().is_some_and(|a| a.identifier == RERUN_ACTION) =>
        {
            ("check_run.requested_action", Scope::All)
        }
        CheckRunAction::RequestedAction | CheckRunAction::Other => return Work::default(),
    };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), reason) else {
        return Work::default();
    };
    Work::of(origin.for_prs(&run.pull_requests, &run.head_sha, scope, false))
}

/// What a re-run of the check run named `name` evaluates: every check for
/// `gatehouse/config` (whether the config is valid decides whether the
/// families are evaluated) and for a run gatehouse does not publish.
fn scope_of_run(name: &str) -> Scope {
    if name == REVIEW_CHECK {
        return Scope::ReviewGate;
    }
    family_check(name).map_or(Scope::All, Scope::Check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Check;
    use crate::store::{PrNumber, Target};
    use crate::webhook::envelope::parse;

    #[test]
    fn only_the_rerun_button_reruns() {
        let body = |identifier: &str| {
            format!(
                r#"{{"action":"requested_action","requested_action":{{"identifier":"{identifier}"}},
                "check_run":{{"head_sha":"abc","pull_requests":[{{"number":3}}]}},
                "repository":{{"full_name":"acme/docs"}},"installation":{{"id":1}}}}"#
            )
        };
        let rerun = parse("check_run", body(RERUN_ACTION).as_bytes()).unwrap();
        assert_eq!(rerun.jobs.len(), 1);
        assert!(matches!(rerun.jobs[0].target, Target::Pr { number: PrNumber(3), .. }));
        assert!(parse("check_run", body("lgtm").as_bytes()).unwrap().jobs.is_empty());
    }

    #[test]
    fn a_rerequested_check_asks_for_that_check_only() {
        let body = |name: &str| {
            format!(
                r#"{{"action":"rerequested","check_run":{{"name":"{name}","head_sha":"abc","pull_requests":[{{"number":3}}]}},
                "repository":{{"full_name":"acme/docs"}},"installation":{{"id":1}}}}"#
            )
        };
        let briefs = parse("check_run", body("gatehouse/briefs").as_bytes()).unwrap();
        assert_eq!(briefs.jobs[0].scope, Scope::Check(Check::Briefs));
        let gate = parse("check_run", body("gatehouse/review").as_bytes()).unwrap();
        assert_eq!(gate.jobs[0].scope, Scope::ReviewGate);
        let config = parse("check_run", body("gatehouse/config").as_bytes()).unwrap();
        assert_eq!(config.jobs[0].scope, Scope::All, "the config decides every family's check");
        let unknown = parse("check_run", body("someone/else").as_bytes()).unwrap();
        assert_eq!(unknown.jobs[0].scope, Scope::All, "a check gatehouse does not know: everything");
    }
}
