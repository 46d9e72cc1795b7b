//! `gatehouse register`: GitHub's App manifest flow, served on loopback.
//!
//! The start page posts the manifest (`app-manifest.yml` with the webhook and
//! redirect URLs filled in) to `{github}/settings/apps/new?state=…` (or an
//! organization's). Once the owner confirms, GitHub sends the browser back to
//! `/callback?code=…&state=…`; the `state` must be the one this run made, the
//! one-time `code` is exchanged (`POST {api}/app-manifests/{code}/conversions`)
//! for the App's id, private key and webhook secret, which go to the
//! credentials folder, and the run ends.

pub mod credentials;
pub(crate) mod manifest;
mod page;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use tokio::sync::oneshot;

use credentials::{Credentials, Written};
use manifest::{Conversion, Manifest};

pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:3000";
pub(crate) const DEFAULT_GITHUB_URL: &str = "https://github.com";
pub(crate) const DEFAULT_OUT: &str = "gatehouse-credentials";

/// What `gatehouse register` was asked to do.
#[derive(Clone, Debug)]
pub struct RegisterConfig {
    /// GitHub's web address: `https://github.com`, or GitHub Enterprise's.
    pub github_url: String,
    /// GitHub's API: `https://api.github.com`, or `https://HOST/api/v3`.
    pub api_url: String,
    /// Register under this organization instead of the signed-in account.
    pub org: Option<String>,
    /// Where GitHub will deliver webhooks (`gatehouse serve`'s public address).
    pub webhook_url: String,
    /// The credentials folder; it must not exist.
    pub out: PathBuf,
    /// A loopback address for the pages (port 0: any free port).
    pub bind: SocketAddr,
}

/// A registered App whose credentials are written.
#[derive(Debug)]
pub struct Registered {
    pub app_id: u64,
    pub name: String,
    pub slug: String,
    pub owner: Option<String>,
    pub install_url: String,
    pub written: Written,
}

/// A registration in progress: its pages are served until GitHub's return.
pub struct Registration {
    pub addr: SocketAddr,
    done: oneshot::Receiver<Result<Registered>>,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
}

impl Registration {
    /// The page to open in a browser.
    pub fn page_url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Waits for GitHub's return and its outcome, then stops serving.
    pub async fn finish(self) -> Result<Registered> {
        let outcome = self.done.await.unwrap_or_else(|_| Err(anyhow!("the registration page stopped")));
        let _ = self.stop.send(());
        // The last page is sent before the server stops; a browser holding
        // its connection open does not keep the command waiting long.
        let _ = tokio::time::timeout(Duration::from_secs(5), self.server).await;
        outcome
    }
}

struct Flow {
    config: RegisterConfig,
    /// The random `state` GitHub must send back.
    state: String,
    /// Where the form posts.
    action: String,
    manifest_json: String,
    /// Taken by the first callback whose state matches.
    done: Mutex<Option<oneshot::Sender<Result<Registered>>>>,
    /// `Host` values the pages answer to (a DNS-rebinding page gets 403).
    hosts: Vec<String>,
}

/// Checks the configuration, then serves the start page.
pub async fn start(mut config: RegisterConfig) -> Result<Registration> {
    if !config.bind.ip().is_loopback() {
        bail!("--bind {} is not a loopback address: the page hands out the App's credentials", config.bind);
    }
    config.github_url = web_url("--github-url", &config.github_url)?;
    config.api_url = web_url("--api-url", &config.api_url)?;
    config.webhook_url = webhook_url(&config.webhook_url)?;
    if let Some(org) = &config.org
        && !is_login(org)
    {
        bail!("--org {org:?} is not a GitHub organization name (letters, digits and single hyphens)");
    }
    credentials::ensure_absent(&config.out)?;
    let manifest = Manifest::bundled()?;

    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .with_context(|| format!("cannot listen on {}", config.bind))?;
    let addr = listener.local_addr()?;
    let manifest_json = manifest.with_urls(&config.webhook_url, &format!("http://{addr}/callback")).to_json();
    let state = random_hex(32)?;
    let action = match &config.org {
        Some(org) => format!("{}/organizations/{org}/settings/apps/new?state={state}", config.github_url),
        None => format!("{}/settings/apps/new?state={state}", config.github_url),
    };
    let hosts = vec![addr.to_string(), format!("localhost:{}", addr.port())];
    let (done_tx, done) = oneshot::channel();
    let flow = Arc::new(Flow { config, state, action, manifest_json, done: Mutex::new(Some(done_tx)), hosts });

    let app = Router::new()
        .route("/", get(start_page))
        .route("/callback", get(callback))
        .layer(middleware::from_fn_with_state(flow.clone(), check_host))
        .with_state(flow);
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.await;
        };
        if let Err(err) = axum::serve(listener, app).with_graceful_shutdown(shutdown).await {
            tracing::error!(error = %err, "the registration page stopped");
        }
    });
    Ok(Registration { addr, done, stop, server })
}

async fn check_host(State(flow): State<Arc<Flow>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !flow.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return page::failed(StatusCode::FORBIDDEN, &format!("Open this page as http://{}/.", flow.hosts[0]));
    }
    next.run(request).await
}

async fn start_page(State(flow): State<Arc<Flow>>) -> Response {
    let account = match &flow.config.org {
        Some(org) => format!("the organization {org}"),
        None => "your GitHub account".to_string(),
    };
    page::start(&flow.action, &account, &flow.config.webhook_url, &flow.manifest_json)
}

async fn callback(State(flow): State<Arc<Flow>>, Query(query): Query<HashMap<String, String>>) -> Response {
    let state_ok = query.get("state").is_some_and(|s| constant_time_eq(s.as_bytes(), flow.state.as_bytes()));
    if !state_ok {
        tracing::warn!("refused a callback whose state is not this run's");
        return page::failed(
            StatusCode::BAD_REQUEST,
            "This address did not come from this run of `gatehouse register` (its state does not match). \
             Nothing was written; start from the page this run printed.",
        );
    }
    let Some(code) = query.get("code").filter(|c| is_code(c)) else {
        return page::failed(StatusCode::BAD_REQUEST, "GitHub's return carries no usable code. Nothing was written.");
    };
    let Some(done) = flow.done.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        return page::failed(StatusCode::CONFLICT, "This registration has already finished.");
    };
    let outcome = complete(&flow.config, code).await;
    let response = match &outcome {
        Ok(registered) => {
            page::registered(&registered.name, &registered.install_url, &registered.written.dir.display().to_string())
        }
        Err(err) => page::failed(StatusCode::BAD_GATEWAY, &format!("{err:#}")),
    };
    let _ = done.send(outcome);
    response
}

/// Exchanges the code and writes the credentials.
async fn complete(config: &RegisterConfig, code: &str) -> Result<Registered> {
    let conversion = exchange(&config.api_url, code).await?;
    let settings = match &config.org {
        Some(org) => format!("{}/organizations/{org}/settings/apps/{}", config.github_url, conversion.slug),
        None => format!("{}/settings/apps/{}", config.github_url, conversion.slug),
    };
    let lost = || {
        format!(
            "GitHub registered the App {:?} (id {}) but its credentials were not saved; delete it at {settings} \
             and run `gatehouse register` again",
            conversion.name, conversion.id
        )
    };
    let secret = conversion.require_webhook_secret().with_context(lost)?;
    crate::github::AppCredentials::new(conversion.id, conversion.pem.expose().as_bytes()).with_context(lost)?;
    let api_url = (config.api_url != crate::app::DEFAULT_API_URL).then_some(config.api_url.as_str());
    let credentials =
        Credentials { app_id: conversion.id, private_key: &conversion.pem, webhook_secret: secret, api_url };
    let written = credentials::write(&config.out, &credentials).with_context(lost)?;
    Ok(Registered {
        app_id: conversion.id,
        install_url: conversion.install_url(),
        owner: conversion.owner.as_ref().map(|o| o.login.clone()),
        name: conversion.name,
        slug: conversion.slug,
        written,
    })
}

/// `POST /app-manifests/{code}/conversions`.
pub(crate) async fn exchange(api_url: &str, code: &str) -> Result<Conversion> {
    if !is_code(code) {
        bail!("{code:?} is not a manifest code");
    }
    let url = format!("{}/app-manifests/{code}/conversions", api_url.trim_end_matches('/'));
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .user_agent(concat!("gatehouse/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let response = client
        .post(&url)
        .header("accept", "application/vnd.github+json")
        .header("x-github-api-version", "2022-11-28")
        .send()
        .await
        .with_context(|| format!("cannot reach GitHub's API at {api_url}"))?;
    let status = response.status();
    if status == StatusCode::CREATED {
        return response.json::<Conversion>().await.context("GitHub's answer to the code exchange is not an App");
    }
    let error = response.json::<crate::github::answers::ErrorBody>().await.ok();
    let message = error.and_then(|e| e.message).unwrap_or_else(|| "no message".into());
    match status.as_u16() {
        404 | 422 => bail!(
            "GitHub refused the code ({status}: {message}): it expired (GitHub keeps it an hour) or was already \
             used. Nothing was written. If GitHub created the App, delete it in its settings, then run \
             `gatehouse register` again"
        ),
        _ => bail!("GitHub answered {status} to the code exchange: {message}. Nothing was written"),
    }
}

fn web_url(flag: &str, url: &str) -> Result<String> {
    let url = url.trim().trim_end_matches('/');
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.contains(['?', '#', ' ', '"', '<', '>']) => Ok(url.to_string()),
        _ => bail!("{flag} {url:?} is not an http(s) address"),
    }
}

/// The webhook URL, with `/webhook` added when it names only a host. A
/// loopback host is refused: GitHub delivers from its own servers, which
/// never reach this machine's loopback.
fn webhook_url(url: &str) -> Result<String> {
    let url = web_url("--webhook-url", url)?;
    let authority = url.split_once("://").map_or("", |(_, rest)| rest).split('/').next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(host, _)| host),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.to_ascii_lowercase().ends_with(".localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified());
    if loopback {
        bail!(
            "--webhook-url {url} names this machine's loopback ({host}), which GitHub cannot reach: it delivers \
             webhooks from its own servers. Give the public HTTPS address the App will be served at (a reverse \
             proxy or a tunnel in front of `gatehouse serve`)"
        );
    }
    let host_only = !url.split_once("://").map_or("", |(_, rest)| rest).contains('/');
    Ok(if host_only { format!("{url}/webhook") } else { url })
}

/// A GitHub login: letters, digits and single inner hyphens, at most 39.
fn is_login(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 39
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Manifest codes are short tokens; anything else never reaches a URL.
fn is_code(code: &str) -> bool {
    !code.is_empty() && code.len() <= 200 && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| anyhow!("no randomness from the operating system: {e}"))?;
    Ok(hex::encode(buf))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_a_bare_host_gets_the_webhook_path() {
        assert_eq!(webhook_url("https://gh.example.com").unwrap(), "https://gh.example.com/webhook");
        assert_eq!(webhook_url("https://gh.example.com/").unwrap(), "https://gh.example.com/webhook");
        assert_eq!(webhook_url("https://gh.example.com/hooks/x").unwrap(), "https://gh.example.com/hooks/x");
        assert!(webhook_url("gh.example.com").is_err());
        for loopback in
            ["http://localhost:3000/webhook", "http://127.0.0.1:3000", "http://[::1]:3000/", "http://0.0.0.0"]
        {
            let error = webhook_url(loopback).unwrap_err().to_string();
            assert!(error.contains("cannot reach"), "{loopback}: {error}");
        }
        assert!(webhook_url("http://10.0.0.5:3000").is_ok(), "a private address a GitHub Enterprise Server reaches");
        assert!(web_url("--github-url", "https://x\"><script>").is_err());
    }

    #[test]
    fn logins_and_codes() {
        assert!(is_login("acme-docs") && !is_login("-acme") && !is_login("a--b") && !is_login("a/b"));
        assert!(is_code("abc123_-") && !is_code("..") && !is_code("../x") && !is_code(""));
        assert!(
            constant_time_eq(b"abc", b"abc") && !constant_time_eq(b"abc", b"abd") && !constant_time_eq(b"a", b"ab")
        );
        assert_ne!(random_hex(16).unwrap(), random_hex(16).unwrap());
    }
}
