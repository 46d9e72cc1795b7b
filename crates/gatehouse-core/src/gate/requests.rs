//! Whom the App asks for a review: the reviewers the gate still needs,
//! less anyone who reviewed already or is asked already.

use super::{Enforcer, Missing, Outcome, Review, ReviewState, same_login};
use crate::owners::TeamRef;

/// The core reviewers who could still approve (recused reviewers never
/// are), the advisory reviewers who have not reviewed, and the logins and
/// teams of every group still missing (gatehouse's, then GitHub's), in
/// that order, once each, without those who left any review or are
/// requested already. A team is asked as a team, written `@org/slug`
/// ([`split_teams`] parts the list into GitHub's `reviewers` and
/// `team_reviewers`); an email owner cannot be asked.
pub fn reviewers_to_request(outcome: &Outcome, reviews: &[Review], requested: &[String]) -> Vec<String> {
    let reviewed = |login: &str| reviews.iter().any(|r| r.state != ReviewState::Pending && same_login(&r.login, login));
    let asked = |login: &str| requested.iter().any(|r| same_reviewer(r, login));
    let github = outcome.groups.iter().filter(|g| g.enforced_by == Enforcer::Github && g.missing > 0);
    let mut wanted: Vec<&String> = Vec::new();
    for missing in &outcome.missing {
        match missing {
            Missing::Approvals { from, .. } => wanted.extend(from),
            Missing::Advisory { login } => wanted.push(login),
            Missing::Group { needed, from, advisory, .. } => {
                wanted.extend(from.iter().filter(|_| *needed > 0).chain(advisory))
            }
            Missing::ChangesRequested { .. } | Missing::TooManyRecusals { .. } => {}
        }
    }
    wanted.extend(github.flat_map(|g| &g.from));
    let mut out: Vec<String> = Vec::new();
    for name in wanted {
        let name = match TeamRef::parse(name) {
            Some(team) => team.to_string(),
            None if name.trim_start_matches('@').contains('@') => continue,
            None => name.trim_start_matches('@').to_string(),
        };
        let recused = outcome.recused.iter().any(|r| same_login(r, &name));
        if !recused && !reviewed(&name) && !asked(&name) && !out.iter().any(|o| same_reviewer(o, &name)) {
            out.push(name);
        }
    }
    out
}

/// Logins and `@org/slug` teams compared as GitHub compares them.
fn same_reviewer(a: &str, b: &str) -> bool {
    match (TeamRef::parse(a), TeamRef::parse(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => same_login(a.trim_start_matches('@'), b.trim_start_matches('@')),
        _ => false,
    }
}

/// A list [`reviewers_to_request`] made, parted as GitHub's "Request
/// reviewers for a pull request" takes it: `reviewers` (logins) and
/// `team_reviewers` (team slugs of the repository's organisation).
pub fn split_teams(wanted: &[String]) -> (Vec<String>, Vec<String>) {
    let mut reviewers = Vec::new();
    let mut teams = Vec::new();
    for name in wanted {
        match TeamRef::parse(name) {
            Some(team) => teams.push(team.slug),
            None => reviewers.push(name.clone()),
        }
    }
    (reviewers, teams)
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
