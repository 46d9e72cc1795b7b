//! The organisation's policy every repository of an installation inherits:
//! by default `gatehouse.yml` of the owner's `.github` repository, or the
//! file `serve --org-policy` names. Read by default, a policy the App
//! cannot find is no policy (an organisation need not keep one); named, it
//! must be read, and a failure is a `config/extends` finding on every
//! repository.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::inherit::Source;

/// Where an installation's repositories find their organisation's policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrgPolicy {
    /// `gatehouse.yml` of `OWNER/.github`, when the App can see one.
    GithubRepository,
    /// The file `OWNER/REPO[:PATH]` names, `{owner}` standing for the
    /// repository's owner; it must be read.
    Told(String),
    /// No organisation policy: each repository's config, and what it
    /// `extends:`, is all.
    Off,
}

impl OrgPolicy {
    /// The policy for repositories of `owner`.
    pub fn source(&self, owner: &str) -> Option<Source> {
        match self {
            OrgPolicy::GithubRepository => Source::parse(&format!("{owner}/.github")).ok(),
            OrgPolicy::Told(template) => Source::parse(&template.replace("{owner}", owner)).ok(),
            OrgPolicy::Off => None,
        }
    }

    /// Whether a policy that cannot be found is an error.
    pub fn must_exist(&self) -> bool {
        matches!(self, OrgPolicy::Told(_))
    }
}

impl std::str::FromStr for OrgPolicy {
    type Err = String;

    /// `github` (the default), `off`, or `OWNER/REPO[:PATH]` with `{owner}`
    /// allowed for the owner.
    fn from_str(text: &str) -> Result<OrgPolicy, String> {
        match text.trim() {
            "github" => Ok(OrgPolicy::GithubRepository),
            "off" => Ok(OrgPolicy::Off),
            named => {
                Source::parse(&named.replace("{owner}", "owner"))
                    .map_err(|e| format!("--org-policy {e} (or `github`, or `off`)"))?;
                Ok(OrgPolicy::Told(named.to_string()))
            }
        }
    }
}

/// How long the App takes a policy it did not find as absent before it
/// looks again (a push to the policy's repository looks at once).
const ABSENT_FOR: Duration = Duration::from_secs(300);

/// The setting, and the policies found absent lately, by installation:
/// a repository's every evaluation does not ask GitHub again.
#[derive(Debug)]
pub struct PolicyReads {
    pub(crate) policy: OrgPolicy,
    absent: Mutex<HashMap<(u64, Source), (Instant, String)>>,
}

impl Default for PolicyReads {
    fn default() -> PolicyReads {
        PolicyReads::new(OrgPolicy::Off)
    }
}

impl PolicyReads {
    pub fn new(policy: OrgPolicy) -> PolicyReads {
        PolicyReads { policy, absent: Mutex::default() }
    }

    /// Why the policy was found absent, when that was lately.
    pub(crate) fn absent(&self, installation: u64, source: &Source) -> Option<String> {
        let absent = self.absent.lock().unwrap_or_else(|e| e.into_inner());
        let (since, why) = absent.get(&(installation, source.clone()))?;
        (since.elapsed() < ABSENT_FOR).then(|| why.clone())
    }

    pub(crate) fn found_absent(&self, installation: u64, source: &Source, why: &str) {
        let mut absent = self.absent.lock().unwrap_or_else(|e| e.into_inner());
        absent.insert((installation, source.clone()), (Instant::now(), why.to_string()));
    }

    /// A push to `repo` (`owner/name`): a policy there is looked for again.
    pub(crate) fn pushed(&self, repo: &str) {
        let mut absent = self.absent.lock().unwrap_or_else(|e| e.into_inner());
        absent.retain(|(_, source), _| !source.repo.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(repo)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_names_a_file_for_each_owner() {
        let github: OrgPolicy = "github".parse().unwrap();
        assert_eq!(github.source("acme").map(|s| s.to_string()).as_deref(), Some("acme/.github:gatehouse.yml"));
        let told: OrgPolicy = "{owner}/policies:org/gatehouse.yml".parse().unwrap();
        assert_eq!(told.source("acme").map(|s| s.to_string()).as_deref(), Some("acme/policies:org/gatehouse.yml"));
        assert!(told.must_exist() && !github.must_exist());
        assert_eq!("off".parse::<OrgPolicy>().unwrap().source("acme"), None);
        assert!("acme".parse::<OrgPolicy>().unwrap_err().contains("`owner/name`"));
    }

    #[test]
    fn an_absent_policy_is_looked_for_again_after_a_push_to_its_repository() {
        let reads = PolicyReads::new(OrgPolicy::GithubRepository);
        let source = Source::parse("acme/.github").unwrap();
        reads.found_absent(7, &source, "no such file");
        assert_eq!(reads.absent(7, &source).as_deref(), Some("no such file"));
        assert_eq!(reads.absent(8, &source), None, "another installation looks for itself");
        reads.pushed("acme/docs");
        assert!(reads.absent(7, &source).is_some());
        reads.pushed("Acme/.github");
        assert_eq!(reads.absent(7, &source), None);
    }
}
