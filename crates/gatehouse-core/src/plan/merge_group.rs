//! A merge group's checks: the documents of the group's head evaluated
//! against its base, so what no single pull request shows (two queued PRs
//! adding briefs with one agent id) fails the group; and its review gate,
//! which passes when every pull request in the group passed its own gate
//! (or the gate did not apply to it).

use super::summary::{CheckOutput, REVIEW_CHECK, fit};
use super::{CheckPlan, Presence, RequiredChecks, outputs};
use crate::model::ChangeSet;

/// What a merge group's evaluation was read.
#[derive(Clone, Debug)]
pub struct GroupRead {
    pub changes: ChangeSet,
    /// The review gate's last run on each pull request in the group.
    pub pulls: Vec<PullGate>,
}

/// Decides a merge group's checks, every one written: a queue waits for
/// the required ones on the group's head, and a group is evaluated once.
pub fn plan(read: &GroupRead) -> Vec<CheckPlan> {
    let none = RequiredChecks::Read(Default::default());
    let mut checks = outputs(&crate::rules::evaluate(&read.changes), review_gate(&read.pulls), true, &none);
    for check in &mut checks {
        check.presence = Presence::Written;
    }
    checks
}

/// The review gate's last run on one pull request's head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PullGate {
    pub number: u64,
    pub head: String,
    /// The run's status and conclusion; `None`: no gate run on that head.
    pub run: Option<(String, Option<String>)>,
}

impl PullGate {
    fn passed(&self) -> bool {
        matches!(&self.run, Some((status, Some(c))) if status == "completed" && (c == "success" || c == "neutral"))
    }

    fn verdict(&self) -> &'static str {
        match &self.run {
            None => "not evaluated on this head",
            Some((status, _)) if status != "completed" => "still being evaluated",
            Some((_, Some(c))) if c == "success" => "passed",
            Some((_, Some(c))) if c == "neutral" => "does not apply",
            Some(_) => "not passed",
        }
    }
}

/// The gate's output for a group of `pulls`.
pub fn review_gate(pulls: &[PullGate]) -> CheckOutput {
    let failing: Vec<&PullGate> = pulls.iter().filter(|p| !p.passed()).collect();
    let passed = !pulls.is_empty() && failing.is_empty();
    let title = match (pulls.is_empty(), failing.as_slice()) {
        (true, _) => "Review gate: no pull request found in this merge group".to_string(),
        (false, []) => format!("Review gate passed by every pull request ({})", pulls.len()),
        (false, [one]) => format!("Review gate: #{} has not passed it", one.number),
        (false, many) => format!("Review gate: {} pull requests have not passed it", many.len()),
    };
    let mut summary = String::from(
        "The review gate on a merge group passes when every pull request in the group passed it (or it does \
         not apply to that pull request).\n\n",
    );
    if pulls.is_empty() {
        summary.push_str(
            "gatehouse found no open pull request in this group (none whose head commit is in the group, and the \
             queue branch names none), so the gate fails closed.\n",
        );
    } else {
        summary.push_str("| Pull request | Head | Review gate |\n|---|---|---|\n");
        for p in pulls {
            let short: String = p.head.chars().take(7).collect();
            summary.push_str(&format!("| #{} | `{short}` | {} |\n", p.number, p.verdict()));
        }
        if !failing.is_empty() {
            summary.push_str(
                "\nThe `gatehouse/review` check of each pull request above says what it still needs; the group \
                 can merge once they pass.\n",
            );
        }
    }
    CheckOutput {
        name: REVIEW_CHECK.into(),
        conclusion: if passed { "success" } else { "failure" },
        title,
        summary: fit(summary),
    }
}

/// A run of a merge group that left the queue before it was evaluated.
pub fn left_the_queue(name: &str) -> CheckOutput {
    CheckOutput {
        name: name.to_string(),
        conclusion: "cancelled",
        title: "The merge group left the queue".into(),
        summary: "The merge queue removed this merge group (merged, dequeued or invalidated by an earlier entry) \
                  before gatehouse finished evaluating it; a new group gets checks of its own."
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(number: u64, conclusion: Option<&str>) -> PullGate {
        PullGate {
            number,
            head: format!("{number:040}"),
            run: Some(("completed".into(), conclusion.map(str::to_string))),
        }
    }

    #[test]
    fn every_pull_request_must_pass() {
        let both = review_gate(&[gate(1, Some("success")), gate(2, Some("neutral"))]);
        assert_eq!(both.conclusion, "success");
        assert!(both.summary.contains("when every pull request in the group passed it"), "{}", both.summary);
        let one = review_gate(&[gate(1, Some("success")), gate(2, Some("failure"))]);
        assert_eq!((one.conclusion, one.title.as_str()), ("failure", "Review gate: #2 has not passed it"));
        let unevaluated = PullGate { number: 3, head: "abc".into(), run: None };
        assert_eq!(review_gate(&[unevaluated]).conclusion, "failure");
        assert_eq!(review_gate(&[]).conclusion, "failure", "no PR found: fail closed");
    }
}
