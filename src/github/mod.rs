//! Talking to GitHub: App auth (JWT → installation token), an API client
//! with retries, backoff and rate-limit handling, one repository's calls
//! (`RepoClient`) and GitHub's answers as typed structs (`answers`). Works against github.com,
//! GitHub Enterprise (`GATEHOUSE_GITHUB_API_URL`) and the simulated GitHub.

pub(crate) mod answers;
pub(crate) mod auth;
pub mod budget;
pub(crate) mod check_runs;
mod client;
pub(crate) mod comments;
pub(crate) mod deliveries;
pub(crate) mod issues;
mod limits;
mod outage;
mod repo;
mod retry;
pub(crate) mod reviews;
pub(crate) mod threads;

pub use auth::{AppCredentials, Token};
pub use budget::{Budget, Urgency};
pub use client::{ApiError, GitHub};
pub(crate) use client::{Call, Response};
pub(crate) use deliveries::HookDelivery;
pub use limits::Pauses;
pub use repo::RepoClient;
pub use retry::RetryPolicy;

/// A commit id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeadSha(pub String);

impl std::fmt::Display for HeadSha {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `owner/name` of a repository, split.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RepoName {
    pub owner: String,
    pub name: String,
}

impl RepoName {
    pub fn parse(full: &str) -> Option<RepoName> {
        let (owner, name) = full.split_once('/')?;
        let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        (ok(owner) && ok(name) && !name.contains('/')).then(|| RepoName { owner: owner.into(), name: name.into() })
    }

    pub fn full(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}
