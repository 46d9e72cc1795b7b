//! Whom the App asks for a review: the reviewers the gate still needs,
//! less anyone who reviewed already or is asked already.

use super::{Missing, Outcome, Review, ReviewState, same_login};

/// The core reviewers who could still approve (recused reviewers never
/// are) and the advisory reviewers who have not reviewed, in the policy's
/// order, without those who left any review or are requested already.
pub fn reviewers_to_request(outcome: &Outcome, reviews: &[Review], requested: &[String]) -> Vec<String> {
    let reviewed = |login: &str| reviews.iter().any(|r| r.state != ReviewState::Pending && same_login(&r.login, login));
    let asked = |login: &str| requested.iter().any(|r| same_login(r, login));
    let mut out: Vec<String> = Vec::new();
    for missing in &outcome.missing {
        let logins: Vec<&String> = match missing {
            Missing::Approvals { from, .. } => from.iter().collect(),
            Missing::Advisory { login } => vec![login],
            Missing::ChangesRequested { .. } | Missing::TooManyRecusals { .. } => Vec::new(),
        };
        for login in logins {
            if !reviewed(login) && !asked(login) && !out.iter().any(|o| same_login(o, login)) {
                out.push(login.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::evaluate;

    const HEAD: &str = "abc1234def5678";

    fn review(login: &str, state: ReviewState, commit: &str) -> Review {
        Review { login: login.into(), state, commit: Some(commit.into()), submitted_at: None }
    }

    fn policy() -> crate::config::ReviewConfig {
        crate::config::ReviewConfig {
            core_reviewers: vec!["gyrum-marcus".into(), "gyrum-priya".into(), "gyrum-lin".into()],
            advisory: vec!["gyrum-dana".into()],
            ..Default::default()
        }
    }

    #[test]
    fn nobody_reviewed_asks_every_core_and_advisory_reviewer() {
        let outcome = evaluate(&policy(), &[], &["author".into()], HEAD);
        assert_eq!(
            reviewers_to_request(&outcome, &[], &[]),
            ["gyrum-marcus", "gyrum-priya", "gyrum-lin", "gyrum-dana"]
        );
    }

    #[test]
    fn recused_reviewed_and_requested_reviewers_are_not_asked() {
        let reviews = vec![
            review("gyrum-priya", ReviewState::Approved, "0011223344"),
            review("Gyrum-Dana", ReviewState::Commented, HEAD),
        ];
        let outcome = evaluate(&policy(), &reviews, &["gyrum-marcus".into()], HEAD);
        assert_eq!(outcome.recused, ["gyrum-marcus"]);
        assert_eq!(reviewers_to_request(&outcome, &reviews, &[]), ["gyrum-lin"]);
        assert!(reviewers_to_request(&outcome, &reviews, &["gyrum-lin[bot]".into()]).is_empty());
    }

    #[test]
    fn a_passed_gate_asks_nobody() {
        let reviews = vec![
            review("gyrum-priya", ReviewState::Approved, HEAD),
            review("gyrum-lin", ReviewState::Approved, HEAD),
            review("gyrum-dana", ReviewState::Commented, HEAD),
        ];
        let outcome = evaluate(&policy(), &reviews, &[], HEAD);
        assert!(outcome.passed);
        assert!(reviewers_to_request(&outcome, &reviews, &[]).is_empty());
    }

    #[test]
    fn two_recusals_ask_only_the_advisory_reviewer() {
        let outcome = evaluate(&policy(), &[], &["gyrum-marcus".into(), "gyrum-priya".into()], HEAD);
        assert_eq!(reviewers_to_request(&outcome, &[], &[]), ["gyrum-dana"]);
    }
}
