//! One repository as one installation sees it: the calls gatehouse makes
//! on `/repos/{owner}/{name}/…`, each answer read into its typed schema.

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{ApiError, Call, GitHub, RepoName, Response, Urgency};

/// The client, the installation and the repository every call of a job uses.
#[derive(Clone, Debug)]
pub struct RepoClient {
    pub client: GitHub,
    pub installation: u64,
    pub repo: RepoName,
    /// Who waits for this job's writes (the write budget serves a person
    /// first).
    pub urgency: Urgency,
}

/// `what` of a call: its method and path without the query.
fn what(method: &Method, path: &str) -> String {
    format!("{method} {}", path.split('?').next().unwrap_or(path))
}

/// Reads an answer as `T`; a mismatch is `ApiError::Malformed`.
fn typed<T: DeserializeOwned>(response: &Response, what: impl Into<String>) -> Result<T, ApiError> {
    response.typed().map_err(|e| ApiError::Malformed { what: what.into(), message: e.to_string() })
}

impl RepoClient {
    pub fn new(client: GitHub, installation: u64, repo: RepoName) -> RepoClient {
        RepoClient { client, installation, repo, urgency: Urgency::Person }
    }

    /// The same repository, for writes of `urgency`.
    pub fn with_urgency(&self, urgency: Urgency) -> RepoClient {
        RepoClient { urgency, ..self.clone() }
    }

    /// `/repos/{owner}/{name}{rest}`.
    pub(crate) fn path(&self, rest: &str) -> String {
        format!("/repos/{}/{}{rest}", self.repo.owner, self.repo.name)
    }

    /// `GET` of a repository path (`/pulls/5`) or a pagination URL, with
    /// the next page's URL.
    pub(crate) async fn page<T: DeserializeOwned>(&self, url: &str) -> Result<(T, Option<String>), ApiError> {
        let full = if url.starts_with("http") { url.to_string() } else { self.path(url) };
        let response =
            self.client.rest(self.installation, self.urgency, Method::GET, &full, None, Call::Idempotent).await?;
        Ok((typed(&response, what(&Method::GET, &full))?, response.next))
    }

    /// `GET` of a repository path.
    pub(crate) async fn get<T: DeserializeOwned>(&self, rest: &str) -> Result<T, ApiError> {
        Ok(self.page(rest).await?.0)
    }

    /// Every element of a paginated array, at most `max_pages` pages.
    pub(crate) async fn pages<T: DeserializeOwned>(&self, rest: &str, max_pages: usize) -> Result<Vec<T>, ApiError> {
        let mut url = rest.to_string();
        let mut out = Vec::new();
        for _ in 0..max_pages {
            let (items, next) = self.page::<Vec<T>>(&url).await?;
            out.extend(items);
            match next {
                Some(next) => url = next,
                None => break,
            }
        }
        Ok(out)
    }

    /// Every element of a paginated array under `/orgs/{org}{rest}`, with
    /// the installation's token (an organisation's path names no
    /// repository).
    pub(crate) async fn org_pages<T: DeserializeOwned>(
        &self,
        org: &str,
        rest: &str,
        max_pages: usize,
    ) -> Result<Vec<T>, ApiError> {
        let mut url = format!("/orgs/{org}{rest}");
        let mut out = Vec::new();
        for _ in 0..max_pages {
            let response =
                self.client.rest(self.installation, self.urgency, Method::GET, &url, None, Call::Idempotent).await?;
            out.extend(typed::<Vec<T>>(&response, what(&Method::GET, &url))?);
            match response.next {
                Some(next) => url = next,
                None => break,
            }
        }
        Ok(out)
    }

    /// A write on a repository path, its answer read as `T`
    /// (`serde::de::IgnoredAny` when nothing of it is used).
    pub(crate) async fn send<T: DeserializeOwned>(
        &self,
        method: Method,
        rest: &str,
        body: &Value,
        call: Call,
    ) -> Result<T, ApiError> {
        let path = self.path(rest);
        let what = what(&method, &path);
        let response = self.client.rest(self.installation, self.urgency, method, &path, Some(body), call).await?;
        typed(&response, what)
    }

    /// A GraphQL operation, its `data` read as `T`.
    pub(crate) async fn graphql<T: DeserializeOwned>(&self, query: &str, variables: Value) -> Result<T, ApiError> {
        self.client.graphql(self.installation, self.urgency, query, variables).await
    }

    /// The App's id (check runs are listed for it alone).
    pub(crate) fn app_id(&self) -> u64 {
        self.client.app_id()
    }
}
