//! The HTTP client: every call authenticated with the installation's token,
//! idempotent calls retried with backoff, creates never repeated blindly (the
//! caller looks a create up before it repeats it), and GitHub's rate limits
//! honoured as its docs describe them ("Rate limits for the REST API", "Rate
//! limits and node limits for the GraphQL API"): a primary limit (403 or 429
//! with `x-ratelimit-remaining: 0`, or GraphQL's HTTP 200 with an error of
//! type `RATE_LIMITED`) waits for `x-ratelimit-reset`, a secondary one (403,
//! 429 or GraphQL's 200) for `retry-after`, else a minute; meanwhile nothing
//! is sent for that installation by any worker or replica (`limits`: the
//! pause is shared through the store), calls a person waits for go first
//! once it is over, and its writes go one at a time and within the
//! installation's write budget (`budget`).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answers::{ErrorBody, GraphQlAnswer, InstallationToken};
use super::auth::{AppCredentials, Token, TokenCache, TokenKey, parse_expiry};
use super::budget::{self, Budget, Ledger, MemoryLedger, Refused, Ticket, Urgency};
use super::limits::{Limits, Pauses};
use super::outage::Outage;
use super::retry::RetryPolicy;
use crate::metrics::Metrics;

mod pause;

/// Whether a call may be repeated when its outcome is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    /// Reads and updates that give the same result twice.
    Idempotent,
    /// A POST that creates something: repeated only when GitHub said it did
    /// not act (rate limited); otherwise `ApiError::Uncertain`.
    Create,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("GitHub answered {status} to {what}: {message}")]
    Status { status: u16, what: String, message: String },
    /// A create whose outcome is unknown (timeout, 5xx): look it up before
    /// repeating it.
    #[error("GitHub did not confirm {what}: {reason}")]
    Uncertain { what: String, reason: String },
    #[error("GitHub unreachable for {what}: {reason}")]
    Transport { what: String, reason: String },
    /// GitHub asked for a wait longer than a call may sleep: the job runs
    /// again once it is over.
    #[error("GitHub rate limit on {what}: GitHub asks to wait {wait_s}s")]
    RateLimited { what: String, wait_s: u64 },
    #[error("GitHub App authentication failed: {0}")]
    Auth(String),
    /// GitHub answered 401: the installation token was refused or could not
    /// be minted. Retried, a bounded number of times.
    #[error("GitHub answered 401 to {what}: {message}")]
    Unauthorized { what: String, message: String },
    /// An answer that does not match GitHub's published schema (a required
    /// field missing, a value of the wrong type): never read as a default.
    #[error("GitHub's answer to {what} does not match its schema: {message}")]
    Malformed { what: String, message: String },
}

impl ApiError {
    /// Worth running the whole job again later.
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            ApiError::Status { status, .. } => *status >= 500 || *status == 429,
            ApiError::Uncertain { .. } | ApiError::Transport { .. } | ApiError::RateLimited { .. } => true,
            ApiError::Auth(_) | ApiError::Malformed { .. } => false,
            ApiError::Unauthorized { .. } => true,
        }
    }

    /// How long GitHub asked to wait before the installation's next request.
    pub(crate) fn wait(&self) -> Option<Duration> {
        match self {
            ApiError::RateLimited { wait_s, .. } => Some(Duration::from_secs(*wait_s)),
            _ => None,
        }
    }
}

/// Whole seconds, rounded up: a wait is never cut short.
fn secs_up(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// A successful answer.
#[derive(Debug)]
pub(crate) struct Response {
    /// The JSON as sent, read into a typed answer by [`Response::typed`]
    /// (straight from the text: a listing of 100,000 files built as a
    /// `serde_json::Value` first took longer than reading it typed).
    pub body: String,
    /// The `Link` header's `rel="next"` URL, for pagination.
    pub next: Option<String>,
}

impl Response {
    /// The answer read as `T`; an empty body reads as JSON `null`.
    pub(crate) fn typed<T: serde::de::DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(if self.body.is_empty() { "null" } else { &self.body })
    }
}

/// A GitHub API client for one App.
#[derive(Clone, Debug)]
pub struct GitHub {
    http: reqwest::Client,
    pub(super) base: String,
    graphql: String,
    pub(super) creds: Arc<AppCredentials>,
    tokens: Arc<TokenCache>,
    policy: RetryPolicy,
    metrics: Arc<Metrics>,
    outage: Arc<Outage>,
    limits: Arc<Limits>,
    /// The secondary limits each installation's writes keep to, and where
    /// its writes are counted (PostgreSQL, shared by every replica; else
    /// this process's memory).
    budget: Budget,
    ledger: Arc<dyn Ledger>,
    /// Where the installations' rate-limit pauses are shared with the other
    /// replicas (the store); `None`: this process's memory alone.
    pauses: Option<Arc<dyn Pauses>>,
    /// The App's permissions (`default_permissions` of its manifest), asked
    /// of every installation token.
    permissions: Option<Value>,
}

enum Outcome {
    Done(Response),
    /// Wait this long (`None`: the backoff), then try again (if allowed).
    Retry {
        wait: Option<Duration>,
        reason: String,
        rate_limited: bool,
    },
    Fail(ApiError),
}

impl GitHub {
    pub fn new(
        base: &str,
        creds: AppCredentials,
        policy: RetryPolicy,
        metrics: Arc<Metrics>,
    ) -> anyhow::Result<GitHub> {
        let base = base.trim_end_matches('/').to_string();
        // github.com: api.github.com/graphql; Enterprise: host/api/v3 → host/api/graphql.
        let graphql = match base.strip_suffix("/v3") {
            Some(api) => format!("{api}/graphql"),
            None => format!("{base}/graphql"),
        };
        let http = reqwest::Client::builder()
            .user_agent(concat!("gatehouse/", env!("CARGO_PKG_VERSION")))
            .timeout(policy.timeout)
            .build()?;
        metrics.write_budget(&Budget::default());
        Ok(GitHub {
            http,
            base,
            graphql,
            creds: Arc::new(creds),
            tokens: Arc::new(TokenCache::default()),
            policy,
            outage: Arc::new(Outage::new(policy.probe_interval, policy.probe_interval_max)),
            limits: Arc::new(Limits::default()),
            budget: Budget::default(),
            ledger: Arc::new(MemoryLedger::default()),
            pauses: None,
            permissions: crate::register::manifest::Manifest::bundled()
                .ok()
                .and_then(|m| serde_json::to_value(m.default_permissions).ok()),
            metrics,
        })
    }

    /// The same client, keeping every installation's writes to `budget`
    /// as counted in `ledger`.
    pub fn with_budget(mut self, budget: Budget, ledger: Arc<dyn Ledger>) -> GitHub {
        self.budget = budget;
        self.ledger = ledger;
        self.metrics.write_budget(&budget);
        self
    }

    /// The same client, sharing the installations' rate-limit pauses
    /// through `pauses`: a refusal to one replica holds them all.
    pub fn with_pauses(mut self, pauses: Arc<dyn Pauses>) -> GitHub {
        self.pauses = Some(pauses);
        self
    }

    pub(crate) fn app_id(&self) -> u64 {
        self.creds.app_id
    }

    /// While GitHub is down, how long until the next probe is due; `None`:
    /// go ahead (GitHub is up, or the caller's job is the probe).
    pub(crate) fn outage_wait(&self) -> Option<Duration> {
        self.outage.wait()
    }

    /// An installation token for `repo` (a repository's name) with the
    /// App's permissions ("Create an installation access token for an app":
    /// `repositories` and `permissions` narrow it), from the cache or
    /// freshly minted; `None`: for every repository of the installation.
    pub(crate) async fn token(&self, installation: u64, repo: Option<&str>) -> Result<Token, ApiError> {
        let key: TokenKey = (installation, repo.map(str::to_ascii_lowercase));
        if let Some(token) = self.tokens.get(&key).await {
            return Ok(token);
        }
        let _minting = self.tokens.minting(&key).await;
        if let Some(token) = self.tokens.get(&key).await {
            return Ok(token);
        }
        let jwt = self.creds.jwt().map_err(|e| ApiError::Auth(e.to_string()))?;
        let url = format!("{}/app/installations/{installation}/access_tokens", self.base);
        let mut scope = serde_json::Map::new();
        if let Some(repo) = repo {
            scope.insert("repositories".into(), serde_json::json!([repo]));
        }
        if let Some(permissions) = &self.permissions {
            scope.insert("permissions".into(), permissions.clone());
        }
        let body = Value::Object(scope);
        // Minting a token twice is harmless: idempotent for our purposes.
        let what = "an installation token";
        let response = match self.send(Method::POST, &url, Some(&body), &jwt, Call::Idempotent, what, None).await {
            Err(ApiError::Status { status: 401, message, .. }) => {
                self.metrics.unauthorized("token");
                tracing::warn!(installation, %message, "GitHub answered 401 to minting an installation token");
                return Err(ApiError::Unauthorized { what: what.into(), message });
            }
            other => other?,
        };
        let answer: InstallationToken = response
            .typed()
            .map_err(|e| ApiError::Auth(format!("the access_tokens answer does not match GitHub's schema: {e}")))?;
        let expires = parse_expiry(&answer.expires_at);
        let token = Token::new(answer.token);
        self.tokens.put(key, token.clone(), expires).await;
        Ok(token)
    }

    /// The App's bot login, `<slug>[bot]`, from `GET /app` with the App JWT
    /// ("Get the authenticated app").
    pub(crate) async fn bot_login(&self) -> Result<String, ApiError> {
        let jwt = self.creds.jwt().map_err(|e| ApiError::Auth(e.to_string()))?;
        let url = format!("{}/app", self.base);
        let response = self.send(Method::GET, &url, None, &jwt, Call::Idempotent, "GET /app", None).await?;
        let app: super::answers::App =
            response.typed().map_err(|e| ApiError::Malformed { what: "GET /app".into(), message: e.to_string() })?;
        Ok(format!("{}[bot]", app.slug))
    }

    /// A REST call on `path` (`/repos/...`) or a full URL (pagination).
    pub(crate) async fn rest(
        &self,
        installation: u64,
        urgency: Urgency,
        method: Method,
        path: &str,
        body: Option<&Value>,
        call: Call,
    ) -> Result<Response, ApiError> {
        let url = if path.starts_with("http") {
            // Pagination links: the token goes to the API host and nowhere else.
            if !path.starts_with(&format!("{}/", self.base)) {
                return Err(ApiError::Status {
                    status: 0,
                    what: "a pagination link".into(),
                    message: "points off the API host".into(),
                });
            }
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        };
        let what = format!("{method} {}", path.split('?').next().unwrap_or(path));
        let repo = repo_of(url.strip_prefix(&self.base).unwrap_or(&url));
        let token = self.token(installation, repo).await?;
        let held = Some(Held { installation, write: method != Method::GET, urgency });
        match self.send(method.clone(), &url, body, &token, call, &what, held).await {
            Err(ApiError::Status { status: 401, .. }) => {
                // The token was revoked or expired early: mint another once.
                self.tokens.drop_token(&(installation, repo.map(str::to_ascii_lowercase))).await;
                let token = self.token(installation, repo).await?;
                match self.send(method, &url, body, &token, call, &what, held).await {
                    Err(ApiError::Status { status: 401, message, what }) => {
                        self.metrics.unauthorized("call");
                        tracing::warn!(installation, %what, %message, "GitHub answered 401 to a fresh token");
                        Err(ApiError::Unauthorized { what, message })
                    }
                    other => other,
                }
            }
            other => other,
        }
    }

    /// A GraphQL query or mutation, its `data` read as `T`; GraphQL errors
    /// become `ApiError::Status`.
    pub(crate) async fn graphql<T: DeserializeOwned>(
        &self,
        installation: u64,
        urgency: Urgency,
        query: &str,
        variables: Value,
    ) -> Result<T, ApiError> {
        let token = self.token(installation, variables.get("name").and_then(Value::as_str)).await?;
        let body = serde_json::json!({ "query": query, "variables": variables });
        let held = Some(Held { installation, write: query.trim_start().starts_with("mutation"), urgency });
        let response =
            self.send(Method::POST, &self.graphql, Some(&body), &token, Call::Idempotent, "GraphQL", held).await?;
        let answer: GraphQlAnswer<T> =
            response.typed().map_err(|e| ApiError::Malformed { what: "GraphQL".into(), message: e.to_string() })?;
        if !answer.errors.is_empty() {
            let messages: Vec<&str> = answer.errors.iter().map(|e| e.message.as_str()).collect();
            return Err(ApiError::Status { status: 200, what: "GraphQL".into(), message: messages.join("; ") });
        }
        answer.data.ok_or_else(|| ApiError::Malformed { what: "GraphQL".into(), message: "no data".into() })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn send(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        token: &Token,
        call: Call,
        what: &str,
        held: Option<Held>,
    ) -> Result<Response, ApiError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (slot, ticket) = match held {
                Some(held) => self.admit(held, &method, url, what).await?,
                None => (None, None),
            };
            let mut request = self
                .http
                .request(method.clone(), url)
                .header("accept", "application/vnd.github+json")
                .header("x-github-api-version", "2022-11-28")
                .bearer_auth(token.expose());
            if let Some(body) = body {
                request = request.json(body);
            }
            let outcome = self.outcome(request.send().await, what).await;
            // The pause is in place before the write turn passes on: the
            // installation's next write finds it.
            if let (Outcome::Retry { wait: Some(wait), rate_limited: true, .. }, Some(held)) = (&outcome, held) {
                self.pause(held.installation, *wait).await;
            }
            if let (Some(ticket), Some(held)) = (ticket, held) {
                budget::release(&self.ledger, held.installation, ticket).await;
            }
            drop(slot);
            let (wait, reason, rate_limited) = match outcome {
                Outcome::Done(response) => return Ok(response),
                Outcome::Fail(err) => return Err(err),
                Outcome::Retry { wait, reason, rate_limited } => {
                    (wait.unwrap_or_else(|| self.backoff(attempt)), reason, rate_limited)
                }
            };
            if call == Call::Create && !rate_limited {
                return Err(ApiError::Uncertain { what: what.into(), reason });
            }
            if wait > self.policy.max_wait {
                return Err(ApiError::RateLimited { what: what.into(), wait_s: secs_up(wait) });
            }
            // While GitHub is down, a call is one probe, not a round of retries.
            if attempt >= self.policy.attempts || (!rate_limited && self.outage.is_down()) {
                if rate_limited {
                    return Err(ApiError::RateLimited { what: what.into(), wait_s: secs_up(wait) });
                }
                if self.outage.failed() {
                    self.metrics.github_down(true);
                    tracing::warn!(what, reason, "GitHub is not answering: pausing, one probe per interval");
                }
                return Err(ApiError::Transport { what: what.into(), reason });
            }
            tracing::debug!(what, attempt, wait_ms = wait.as_millis() as u64, reason, "retrying a GitHub call");
            tokio::time::sleep(wait).await;
        }
    }

    /// Waits until the installation's write budget lets one more write to
    /// `endpoint` through, and records it. A wait longer than a call may
    /// sleep is a rate limit: the job runs again when it is over.
    async fn spend(&self, held: Held, endpoint: &str, what: &str) -> Result<Ticket, ApiError> {
        let ledger = self.ledger.as_ref();
        let max_wait = self.policy.max_wait;
        let (spent, waited) =
            budget::spend_within(ledger, &self.budget, held.installation, endpoint, held.urgency, max_wait).await;
        match spent {
            Ok(ticket) => {
                self.metrics.write_spent(held.urgency, waited);
                Ok(ticket)
            }
            Err(Refused::Wait(wait)) => {
                self.metrics.write_spent(held.urgency, waited);
                Err(ApiError::RateLimited { what: what.into(), wait_s: secs_up(wait) })
            }
            Err(Refused::Ledger(err)) => Err(ApiError::Transport {
                what: what.into(),
                reason: format!("the write budget could not be read: {err:#}"),
            }),
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        // Jitter from the clock's nanoseconds: enough to spread replicas.
        let jitter = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos() % 100);
        self.policy.backoff * 2u32.saturating_pow(attempt.saturating_sub(1).min(6))
            + Duration::from_millis(u64::from(jitter))
    }

    async fn outcome(&self, sent: reqwest::Result<reqwest::Response>, what: &str) -> Outcome {
        let response = match sent {
            Ok(response) => response,
            Err(err) => {
                self.metrics.github_call(0, None);
                // reqwest errors carry the URL, never the Authorization header.
                let reason = if err.is_timeout() { "timed out".to_string() } else { err.without_url().to_string() };
                return Outcome::Retry { wait: None, reason, rate_limited: false };
            }
        };
        let status = response.status();
        if !status.is_server_error() && self.outage.answered() {
            self.metrics.github_down(false);
            tracing::info!("GitHub answers again: resuming");
        }
        let headers = response.headers().clone();
        let num =
            |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<i64>().ok());
        let remaining = num("x-ratelimit-remaining");
        self.metrics.github_call(status.as_u16(), remaining);
        let next = headers.get("link").and_then(|v| v.to_str().ok()).and_then(next_link);
        let text = response.text().await.unwrap_or_default();
        let limit = RateLimit { retry_after: num("retry-after"), remaining, reset: num("x-ratelimit-reset") };
        if status.is_success() {
            if what == "GraphQL"
                && let Some(message) = graphql_rate_limited(&text)
            {
                return Outcome::Retry { wait: Some(limit.wait(true)), reason: message, rate_limited: true };
            }
            return Outcome::Done(Response { body: text, next });
        }
        let message = serde_json::from_str::<ErrorBody>(&text)
            .ok()
            .and_then(|e| e.message)
            .unwrap_or_else(|| text.chars().take(200).collect());
        if status == StatusCode::FORBIDDEN || status == StatusCode::TOO_MANY_REQUESTS {
            let secondary = message.to_ascii_lowercase().contains("secondary rate limit");
            let limited = status == StatusCode::TOO_MANY_REQUESTS || secondary;
            if limit.retry_after.is_some() || remaining == Some(0) || limited {
                return Outcome::Retry { wait: Some(limit.wait(limited)), reason: message, rate_limited: true };
            }
        }
        if status.is_server_error() {
            return Outcome::Retry { wait: None, reason: format!("{status}: {message}"), rate_limited: false };
        }
        Outcome::Fail(ApiError::Status { status: status.as_u16(), what: what.into(), message })
    }
}

/// The repository name of a `/repos/{owner}/{name}/...` path.
fn repo_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/repos/")?;
    let name = rest.split('/').nth(1)?;
    Some(name.split('?').next().unwrap_or(name)).filter(|n| !n.is_empty())
}

/// Which one a call is made for, and whether it writes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    installation: u64,
    write: bool,
    urgency: Urgency,
}

/// The rate-limit headers of an answer.
struct RateLimit {
    retry_after: Option<i64>,
    remaining: Option<i64>,
    reset: Option<i64>,
}

impl RateLimit {
    /// How long GitHub asks to wait: `retry-after` when given, else until
    /// `x-ratelimit-reset` when nothing remains, else (a secondary limit,
    /// `limited`) at least a minute.
    fn wait(&self, limited: bool) -> Duration {
        if let Some(after) = self.retry_after {
            return Duration::from_secs(after.max(0) as u64);
        }
        match (self.remaining, self.reset) {
            (Some(0), Some(reset)) => {
                let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
                Duration::from_millis((reset * 1000 - now).max(1000) as u64)
            }
            _ if limited => Duration::from_secs(60),
            _ => Duration::from_secs(1),
        }
    }
}

/// A GraphQL answer's rate-limit error, if it is one: an error of type
/// `RATE_LIMITED` (a spent primary limit) or a secondary limit's message.
fn graphql_rate_limited(text: &str) -> Option<String> {
    if !text.contains("RATE_LIMITED") && !text.contains("rate limit") {
        return None;
    }
    let answer: GraphQlAnswer<serde::de::IgnoredAny> = serde_json::from_str(text).ok()?;
    answer
        .errors
        .into_iter()
        .find(|e| {
            e.kind.as_deref() == Some("RATE_LIMITED") || e.message.to_ascii_lowercase().contains("secondary rate limit")
        })
        .map(|e| e.message)
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (url, rel) = part.split_once(';')?;
        rel.contains("rel=\"next\"").then(|| url.trim().trim_start_matches('<').trim_end_matches('>').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_are_read_as_github_documents_them() {
        let limit = |retry_after, remaining, reset| RateLimit { retry_after, remaining, reset };
        assert_eq!(limit(Some(7), Some(0), None).wait(true), Duration::from_secs(7), "retry-after first");
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
        let to_reset = limit(None, Some(0), Some(now + 30)).wait(false);
        assert!(to_reset > Duration::from_secs(28) && to_reset <= Duration::from_secs(30), "{to_reset:?}");
        assert_eq!(limit(None, Some(12), None).wait(true), Duration::from_secs(60), "a secondary limit: a minute");
        let spent = r#"{"data": null, "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}"#;
        assert_eq!(graphql_rate_limited(spent).as_deref(), Some("API rate limit exceeded"));
        let secondary = r#"{"errors": [{"message": "You have exceeded a secondary rate limit."}]}"#;
        assert!(graphql_rate_limited(secondary).is_some());
        let other = r#"{"data": null, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve"}]}"#;
        assert_eq!(graphql_rate_limited(other), None);
        assert_eq!(secs_up(Duration::from_millis(1500)), 2);
    }

    #[test]
    fn finds_the_next_page() {
        let link = r#"<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last""#;
        assert_eq!(next_link(link).as_deref(), Some("https://api.github.com/x?page=2"));
        assert_eq!(next_link(r#"<https://a/x?page=1>; rel="prev""#), None);
    }
}
