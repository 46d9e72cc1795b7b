//! Publishing a report where PR authors look: one check run per family (and
//! the review gate), and one review with inline comments per evaluated head.

pub(crate) mod checks;
pub mod limits;
pub(crate) mod merge_group;
pub(crate) mod review;
pub(crate) mod review_requests;
pub(crate) mod summary;

use crate::model::{Check, Finding, PR_BODY, Report};
use summary::CheckOutput;

/// The check-run names every job reports: the config's check, the check of
/// each registered family (families sharing a check share its run), then
/// the review gate. New families appear here with no App-side change.
pub fn check_names() -> Vec<String> {
    let mut checks: std::collections::BTreeSet<_> = crate::rules::FAMILIES.iter().map(|f| f.check()).collect();
    checks.insert(Check::Config);
    let mut names: Vec<String> = checks.into_iter().map(|c| c.name().to_string()).collect();
    names.push(summary::REVIEW_CHECK.to_string());
    names
}

/// Each check's output and the findings to annotate on it; `review` is the
/// review gate's. Findings about the pull request body are not annotated
/// (the body is not a file of the commit): the summary lists them.
pub(crate) fn outputs(report: &Report, review: CheckOutput) -> Vec<(CheckOutput, Vec<&Finding>)> {
    let mut out: Vec<(CheckOutput, Vec<&Finding>)> = report
        .checks
        .iter()
        .map(|check| {
            let annotated = check.findings.iter().filter(|f| f.path != PR_BODY).collect();
            (summary::render(check), annotated)
        })
        .collect();
    out.push((review, Vec::new()));
    out
}
