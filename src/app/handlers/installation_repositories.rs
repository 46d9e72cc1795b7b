//! `installation_repositories`: repositories added to an install ask for
//! their open pull requests.

use super::Work;
use super::installation::open_prs;
use crate::webhook::payloads::{InstallationRepositoriesAction, InstallationRepositoriesEvent};

pub(super) fn handle(event: &InstallationRepositoriesEvent) -> Work {
    match event.action {
        InstallationRepositoriesAction::Added => {
            Work::of(open_prs(&event.repositories_added, event.installation.id, "installation_repositories.added"))
        }
        InstallationRepositoriesAction::Other => Work::default(),
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Target;
    use crate::webhook::envelope::parse;

    #[test]
    fn added_repositories_ask_for_their_open_prs() {
        let added = r#"{"action":"added","installation":{"id":9},"repositories_added":[{"full_name":"acme/ops"}],
            "repositories_removed":[]}"#;
        let work = parse("installation_repositories", added.as_bytes()).unwrap();
        assert_eq!((work.jobs.len(), work.jobs[0].reason.as_str()), (1, "installation_repositories.added"));
        assert_eq!(work.jobs[0].target, Target::OpenPrs);
        let removed = added.replace("\"added\"", "\"removed\"");
        assert!(parse("installation_repositories", removed.as_bytes()).unwrap().jobs.is_empty());
    }
}
