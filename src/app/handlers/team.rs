//! `membership` and `team`: a team's members or the team itself changed.
//! The pull requests whose review gate read that team are evaluated again
//! (`app::team`), the team read afresh.

use super::Work;
use crate::store::{NewJob, Scope, Target};
use crate::webhook::payloads::{Installation, Organization, TeamPayload};

/// The job's repository: a team belongs to an organisation, and the job
/// stands for every repository of it (`{org}/*` is no repository's name).
pub(crate) fn organisation_key(org: &str) -> String {
    format!("{org}/*")
}

pub(super) fn handle(
    team: &TeamPayload,
    organization: &Organization,
    installation: Option<&Installation>,
    reason: &str,
) -> Work {
    let Some(installation) = installation else { return Work::default() };
    Work::of(vec![NewJob {
        repo: organisation_key(&organization.login),
        installation: installation.id,
        target: Target::Team(format!("@{}/{}", organization.login, team.slug).to_ascii_lowercase()),
        scope: Scope::All,
        once_per_head: false,
        reason: reason.to_string(),
    }])
}

#[cfg(test)]
mod tests {
    use crate::store::Target;
    use crate::webhook::envelope::parse;

    #[test]
    fn a_membership_change_asks_for_the_team_s_pull_requests() {
        let body = r#"{"action":"added","scope":"team","member":{"login":"gyrum-lin","type":"User"},
            "team":{"id":7,"name":"SRE","slug":"sre"},"organization":{"login":"Acme"},
            "installation":{"id":5},"sender":{"login":"gyrum-marcus"}}"#;
        let work = parse("membership", body.as_bytes()).unwrap();
        assert_eq!(work.jobs.len(), 1);
        assert_eq!(work.jobs[0].target, Target::Team("@acme/sre".into()));
        assert_eq!((work.jobs[0].repo.as_str(), work.jobs[0].installation), ("Acme/*", 5));
        let team = r#"{"action":"deleted","team":{"slug":"sre"},"organization":{"login":"acme"}}"#;
        assert!(parse("team", team.as_bytes()).unwrap().jobs.is_empty(), "no installation: no job");
    }
}
