//! `installation`: an install (created) asks for the open pull requests of
//! each repository it was installed on.

use super::Work;
use crate::store::{NewJob, Scope, Target};
use crate::webhook::payloads::{InstallationAction, InstallationEvent, Repository};

/// At most this many repositories of one install are evaluated.
const MAX_INSTALLED_REPOS: usize = 100;

pub(super) fn handle(event: &InstallationEvent) -> Work {
    match (&event.action, &event.repositories) {
        (InstallationAction::Created, Some(repos)) => {
            Work::of(open_prs(repos, event.installation.id, "installation.created"))
        }
        _ => Work::default(),
    }
}

/// A job per installed repository (bounded) for its open pull requests.
pub(super) fn open_prs(repos: &[Repository], installation: u64, reason: &str) -> Vec<NewJob> {
    repos
        .iter()
        .take(MAX_INSTALLED_REPOS)
        .map(|r| NewJob {
            repo: r.full_name.clone(),
            installation,
            target: Target::OpenPrs,
            scope: Scope::All,
            once_per_head: false,
            reason: reason.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::envelope::parse;

    #[test]
    fn an_install_asks_for_each_repositorys_open_prs() {
        let created = r#"{"action":"created","installation":{"id":9},"sender":{"login":"octo"},
            "repositories":[{"full_name":"acme/docs"},{"full_name":"acme/site"}]}"#;
        let work = parse("installation", created.as_bytes()).unwrap();
        let repos: Vec<(&str, &Target)> = work.jobs.iter().map(|j| (j.repo.as_str(), &j.target)).collect();
        assert_eq!(repos, [("acme/docs", &Target::OpenPrs), ("acme/site", &Target::OpenPrs)]);
        assert_eq!(work.sender.as_deref(), Some("octo"));
        let deleted = created.replace("\"created\"", "\"deleted\"");
        assert!(parse("installation", deleted.as_bytes()).unwrap().jobs.is_empty());
    }
}
