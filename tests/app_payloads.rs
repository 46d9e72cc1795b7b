//! The project's GitHub-shaped payload fixtures (`fixtures/app/payloads/`)
//! read by the envelope parser as the receiver reads them.

use gatehouse::github::HeadSha;
use gatehouse::model::Check;
use gatehouse::store::{PrNumber, Scope, Target};
use gatehouse::webhook::envelope::parse;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/app/payloads").join(name))
        .expect("fixture")
}

#[test]
fn a_fork_check_suite_names_its_head_for_the_worker_to_resolve() {
    let work = parse("check_suite", &fixture("check_suite.requested.fork.json")).unwrap();
    assert_eq!(work.jobs.len(), 1);
    let job = &work.jobs[0];
    assert_eq!(job.target, Target::Head(HeadSha("7d1c5a0e94b2f3c81e6a2f0d4b9c3e5a7f1d2c3b".into())));
    assert_eq!((job.repo.as_str(), job.installation, job.scope), ("acme/docs", 77, Scope::All));
}

#[test]
fn a_rerequested_check_run_re_runs_that_check_of_its_pr() {
    let work = parse("check_run", &fixture("check_run.rerequested.json")).unwrap();
    assert_eq!(work.jobs.len(), 1);
    assert!(matches!(work.jobs[0].target, Target::Pr { number: PrNumber(12), .. }));
    assert_eq!(work.jobs[0].scope, Scope::Check(Check::Voting));
    assert_eq!(work.jobs[0].reason, "check_run.rerequested");
}

#[test]
fn a_push_evaluates_the_whole_pr() {
    let work = parse("pull_request", &fixture("pull_request.synchronize.json")).unwrap();
    assert_eq!(work.jobs.len(), 1);
    let job = &work.jobs[0];
    let head = Some(HeadSha("3a9f0c2e7b1d4f6a8c0e2b4d6f8a0c2e4b6d8f0a".into()));
    assert_eq!(job.target, Target::Pr { number: PrNumber(12), head });
    assert_eq!((job.scope, job.reason.as_str()), (Scope::All, "pull_request.synchronize"));
}
