//! Asking for the reviews the gate needs: when the review gate applies and
//! has not passed, the core reviewers who could still approve and the
//! advisory reviewers who have not reviewed are requested, once per head,
//! never one who is recused, reviewed already or is requested already. A
//! login GitHub refuses (not a collaborator, or the PR's author) is named
//! in the gate's summary; the head is not asked again either way. A draft
//! asks nobody (as GitHub leaves code owners unasked until a PR is ready
//! for review, "About code owners"): its `ready_for_review` evaluation
//! asks. A reviewer whose approval a push ended (it changed a document the
//! approval covered, or `review.approvals_end_on: any_push`) is asked again.

use crate::config::ReviewConfig;
use crate::gate::{Outcome, Review, reviewers_to_request, same_login};

/// What asking for reviews on one head came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Made {
    /// Logins GitHub accepted.
    pub requested: Vec<String>,
    /// Logins GitHub refused (not a collaborator, the PR's author...).
    pub refused: Vec<String>,
}

/// What the App recorded of asking on one head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// What asking came to.
    Made(Made),
    /// The logins a job was about to ask when it recorded them: it may have
    /// been killed before or after asking.
    Asking(Vec<String>),
}

/// One pull request head, as the gate saw it.
pub struct GateState<'a> {
    pub policy: &'a ReviewConfig,
    pub outcome: &'a Outcome,
    pub reviews: &'a [Review],
    /// Ask nobody on this head: a draft, or a PR whose commit authors (the
    /// recused) could not all be read.
    pub hold: bool,
    /// What was asked on this head before, when it was.
    pub made: Option<&'a Made>,
    /// Whom a job killed mid-way was about to ask on this head.
    pub asking: Option<&'a [String]>,
}

impl GateState<'_> {
    /// Whether this head is asked for reviews now (then the reviewers
    /// GitHub shows requested already are needed).
    pub fn asks(&self) -> bool {
        self.policy.request_reviewers && !self.outcome.passed && !self.hold && self.made.is_none()
    }
}

/// What to do about review requests on one head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requests {
    /// Nothing is asked, and the gate's summary says nothing of requests.
    None,
    /// Asked before on this head: its summary says what came of it.
    Made(Made),
    /// Ask these logins (none: the head is recorded as asked all the same).
    Ask(Vec<String>),
}

/// Decides the requests of a head; `pending`: the logins GitHub shows
/// requested already.
pub fn decide(gate: &GateState<'_>, pending: &[String]) -> Requests {
    if let Some(made) = gate.made.filter(|_| gate.policy.request_reviewers && !gate.outcome.passed && !gate.hold) {
        return Requests::Made(made.clone());
    }
    if !gate.asks() {
        return Requests::None;
    }
    // The same logins again: GitHub keeps a login requested once, and the
    // gate's summary then names whom the first attempt asked.
    if let Some(asking) = gate.asking {
        return Requests::Ask(asking.to_vec());
    }
    let counting = still_reviewed(gate.reviews, &gate.outcome.stale);
    Requests::Ask(reviewers_to_request(gate.outcome, &counting, pending))
}

/// The reviews that still count as a reviewer having reviewed this head:
/// those of a reviewer whose approval a push ended (`stale`) are left out,
/// so the gate asks them again.
fn still_reviewed(reviews: &[Review], stale: &[String]) -> Vec<Review> {
    reviews.iter().filter(|r| !stale.iter().any(|s| same_login(s, &r.login))).cloned().collect()
}

fn names(logins: &[String]) -> String {
    logins.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
}

/// The gate summary's paragraph on the requests made for this head.
pub fn note(made: &Made) -> Option<String> {
    let mut out = Vec::new();
    if !made.requested.is_empty() {
        out.push(format!("gatehouse requested reviews from {} (the gate still needs them).", names(&made.requested)));
    }
    if !made.refused.is_empty() {
        out.push(format!(
            "GitHub refused to request a review from {}: reviews can only be requested from collaborators of the \
             repository (a team: one with access to it), and not from the pull request's author. Add them as \
             collaborators, or correct `review.core.reviewers`, `review.advisory` or `review.rosters` in \
             `.github/gatehouse.yml`, or the CODEOWNERS line naming them.",
            names(&made.refused)
        ));
    }
    (!out.is_empty()).then(|| out.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::ReviewState;

    fn review(login: &str, state: ReviewState, commit: &str) -> Review {
        Review { login: login.into(), state, commit: Some(commit.into()), submitted_at: None }
    }

    #[test]
    fn an_approval_a_push_ended_is_not_a_review_of_this_head() {
        let reviews = [
            review("gyrum-lin", ReviewState::Approved, "old"),
            review("gyrum-dana", ReviewState::Approved, "new"),
            review("gyrum-priya", ReviewState::Approved, "old"),
            review("gyrum-priya", ReviewState::Commented, "new"),
        ];
        // A push ended gyrum-lin's approval; gyrum-priya's still counts.
        let kept = still_reviewed(&reviews, &["Gyrum-Lin".to_string()]);
        let kept: Vec<&str> = kept.iter().map(|r| r.login.as_str()).collect();
        assert_eq!(kept, ["gyrum-dana", "gyrum-priya", "gyrum-priya"]);
    }

    #[test]
    fn the_note_names_who_was_asked_and_who_github_refused() {
        assert_eq!(note(&Made::default()), None);
        let made = Made { requested: vec!["gyrum-lin".into()], refused: vec!["gyrum-dana".into()] };
        let text = note(&made).unwrap();
        assert!(text.contains("requested reviews from `gyrum-lin`"), "{text}");
        assert!(text.contains("refused to request a review from `gyrum-dana`"), "{text}");
    }

    #[test]
    fn a_head_is_asked_once_never_when_held_or_passed_and_not_who_is_requested_already() {
        let policy = ReviewConfig {
            core_reviewers: vec!["gyrum-marcus".into(), "gyrum-priya".into(), "gyrum-lin".into()],
            advisory: vec!["gyrum-dana".into()],
            request_reviewers: true,
            ..Default::default()
        };
        let head = "abc1234def5678";
        let reviews = [review("gyrum-marcus", ReviewState::Approved, head)];
        let outcome = crate::gate::evaluate(&policy, &reviews, &["author".into()], head);
        assert!(!outcome.passed);
        let state =
            |hold, made| GateState { policy: &policy, outcome: &outcome, reviews: &reviews, hold, made, asking: None };
        let Requests::Ask(wanted) = decide(&state(false, None), &["gyrum-lin".into()]) else {
            panic!("a head whose gate has not passed is asked")
        };
        assert!(!wanted.iter().any(|l| l == "gyrum-marcus" || l == "gyrum-lin"), "{wanted:?}");
        assert!(wanted.iter().any(|l| l == "gyrum-priya"), "{wanted:?}");
        assert!(state(false, None).asks());
        assert_eq!(decide(&state(true, None), &[]), Requests::None, "a draft asks nobody");
        let made = Made { requested: vec!["gyrum-priya".into()], refused: vec![] };
        assert!(!state(false, Some(&made)).asks(), "asked once per head");
        assert_eq!(decide(&state(false, Some(&made)), &[]), Requests::Made(made.clone()));
        let asking = ["gyrum-priya".to_string(), "gyrum-dana".to_string()];
        let again = GateState { asking: Some(&asking), ..state(false, None) };
        assert_eq!(
            decide(&again, &asking),
            Requests::Ask(asking.to_vec()),
            "a killed attempt's logins are asked again, though GitHub shows them requested"
        );
        let passed = crate::gate::Outcome { passed: true, ..outcome.clone() };
        let done = GateState { outcome: &passed, ..state(false, None) };
        assert_eq!(decide(&done, &[]), Requests::None);
    }
}
