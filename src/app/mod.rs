//! The App service: the webhook receiver and the workers, sharing one store.
//! `serve` runs it until SIGINT/SIGTERM (`serve_async` on the caller's
//! runtime); `start` runs it in the background (tests, the demo).

mod attest;
mod clock;
pub(crate) mod commands;
mod dashboard;
pub mod env_file;
mod failure;
pub(crate) mod handlers;
pub mod kept;
pub(crate) mod logs;
mod merge_group;
pub(crate) mod probe;
mod progress;
mod push;
pub(crate) mod redeliver;
mod reminders;
mod server;
pub(crate) mod settings;
mod stops;
mod team;
mod worker;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use tokio::sync::{Notify, watch};

use crate::github::ApiError;
use crate::github::{AppCredentials, Budget, GitHub, RetryPolicy, Token};
use crate::metrics::Metrics;
use crate::source::contents::ReadCache;
use crate::store::{Store, redact_url};
use crate::webhook::{BodyLimits, Readiness, Receiver, Secrets};
pub use clock::Clock;
pub use handlers::Work;
pub use logs::LogFormat;
pub use redeliver::RedeliverPolicy;
pub use reminders::ReminderPolicy;
pub use server::ServerLimits;
pub(crate) use settings::Settings;
pub use stops::{StopPoint, StopPoints};

/// App configuration, from flags or the environment.
#[derive(Clone)]
pub struct AppConfig {
    pub app_id: u64,
    /// The App's private key, PEM.
    pub private_key: Token,
    pub secrets: Secrets,
    /// `sqlite://PATH` or `postgres://…`.
    pub database_url: String,
    /// PostgreSQL schema for the tables (tests); `None`: the default.
    pub database_schema: Option<String>,
    pub bind: SocketAddr,
    pub api_url: String,
    pub workers: usize,
    /// How long a claimed job is held before another worker may take it.
    pub lease: Duration,
    pub retry: RetryPolicy,
    pub limits: ServerLimits,
    pub log_format: LogFormat,
    /// The sweep that has GitHub redeliver failed deliveries.
    pub redeliver: RedeliverPolicy,
    /// The sweep that sends review reminders.
    pub reminders: ReminderPolicy,
    /// The clock reminders are scheduled by (the system's; tests move it).
    pub clock: Clock,
    /// The secondary limits each installation's writes keep to.
    pub budget: Budget,
    /// How long an evaluation may take before its check runs are shown in
    /// progress; a quicker one posts each run with its conclusion at once.
    pub progress_after: Duration,
    /// Where a test stops a job as a crash would (none in `gatehouse serve`).
    pub stop_points: StopPoints,
    /// The key gate attestations are signed with and the public keys served.
    pub attestation: crate::attestation::AttestationKeys,
    /// Where repositories find their organisation's policy.
    pub org_policy: crate::source::policy::OrgPolicy,
}

impl std::fmt::Debug for AppConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppConfig")
            .field("app_id", &self.app_id)
            .field("private_key", &self.private_key)
            .field("secrets", &self.secrets)
            .field("database_url", &redact_url(&self.database_url))
            .field("bind", &self.bind)
            .field("api_url", &self.api_url)
            .field("workers", &self.workers)
            .field("limits", &self.limits)
            .field("log_format", &self.log_format)
            .field("redeliver", &self.redeliver)
            .field("budget", &self.budget)
            .field("attestation", &self.attestation)
            .field("org_policy", &self.org_policy)
            .finish_non_exhaustive()
    }
}

pub(crate) const DEFAULT_DATABASE_URL: &str = "sqlite://gatehouse.db";
pub(crate) const DEFAULT_BIND: &str = "0.0.0.0:3000";
pub(crate) const DEFAULT_API_URL: &str = "https://api.github.com";

impl AppConfig {
    /// A configuration with defaults for everything but identity.
    pub fn new(app_id: u64, private_key: Token, secrets: Secrets) -> AppConfig {
        AppConfig {
            app_id,
            private_key,
            secrets,
            database_url: DEFAULT_DATABASE_URL.into(),
            database_schema: None,
            bind: DEFAULT_BIND.parse().expect("a valid default address"),
            api_url: DEFAULT_API_URL.into(),
            workers: 4,
            lease: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            limits: ServerLimits::default(),
            log_format: LogFormat::Text,
            redeliver: RedeliverPolicy::default(),
            reminders: ReminderPolicy::default(),
            clock: Clock::system(),
            budget: Budget::default(),
            progress_after: Duration::from_secs(2),
            stop_points: StopPoints::default(),
            attestation: Default::default(),
            org_policy: crate::source::policy::OrgPolicy::GithubRepository,
        }
    }
}

/// The App's private key: the PEM when given, else the file `path` names.
pub(crate) fn private_key(pem: Option<String>, path: Option<PathBuf>) -> Result<Token> {
    let pem = match (pem, path) {
        (Some(pem), _) => pem,
        (None, Some(path)) => std::fs::read_to_string(&path).context("cannot read it")?,
        (None, None) => bail!("set GATEHOUSE_PRIVATE_KEY (PEM) or GATEHOUSE_PRIVATE_KEY_PATH"),
    };
    Ok(Token::new(pem))
}

/// The webhook secrets, comma-separated; at least one.
pub(crate) fn webhook_secrets(value: Option<String>) -> Result<Secrets> {
    let secrets = Secrets::parse(&value.unwrap_or_default());
    if secrets.is_empty() {
        bail!("GATEHOUSE_WEBHOOK_SECRET is not set (comma-separated to rotate)");
    }
    Ok(secrets)
}

/// A running App.
pub struct Running {
    pub addr: SocketAddr,
    pub store: Store,
    pub metrics: Arc<Metrics>,
    stop: watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
    workers: Vec<tokio::task::JoinHandle<()>>,
    sweeper: tokio::task::JoinHandle<()>,
    reminders: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stops taking deliveries, lets workers finish their current job,
    /// then closes the store.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.server.await;
        for worker in self.workers {
            let _ = worker.await;
        }
        let _ = self.sweeper.await;
        let _ = self.reminders.await;
        if let Err(err) = self.store.close().await {
            tracing::warn!(error = %format!("{err:#}"), "cannot close the store");
        }
    }

    /// Stops everything at once, mid-job: what a crash looks like.
    pub fn kill(self) {
        self.server.abort();
        for worker in &self.workers {
            worker.abort();
        }
        self.sweeper.abort();
        self.reminders.abort();
    }
}

/// Starts the receiver and the workers; migrations run first.
pub async fn start(config: AppConfig) -> Result<Running> {
    // The key is checked before anything is created: a bad key leaves no database behind.
    let creds = AppCredentials::new(config.app_id, config.private_key.expose().as_bytes())?;
    let store = Store::connect_in_schema(&config.database_url, config.database_schema.as_deref()).await?;
    let metrics = Arc::new(Metrics::new(&crate::webhook::envelope::KNOWN_EVENTS));
    let github = GitHub::new(&config.api_url, creds, config.retry, metrics.clone())?
        .with_budget(config.budget, store.write_ledger())
        .with_pauses(store.installation_pauses());
    let wake = Arc::new(Notify::new());
    let (stop, stopped) = watch::channel(false);
    let ctx = Arc::new(worker::Ctx {
        store: store.clone(),
        github,
        metrics: metrics.clone(),
        reads: ReadCache::with_kept(kept::KeptInStore(store.clone())).with_org_policy(config.org_policy.clone()),
        lease: config.lease,
        wake: wake.clone(),
        retry: config.retry,
        progress_after: config.progress_after,
        stops: config.stop_points.clone(),
        attestation: Arc::new(config.attestation.clone()),
    });
    let workers = (0..config.workers.max(1))
        .map(|n| tokio::spawn(worker::run(ctx.clone(), worker::worker_id(n), stopped.clone())))
        .collect();
    let bot = Arc::new(std::sync::OnceLock::new());
    let readiness = Arc::new(Readiness::default());
    tokio::spawn(learn_bot_login(ctx.github.clone(), bot.clone(), readiness.clone(), stopped.clone()));
    let receiver = Receiver {
        bot,
        readiness,
        store: store.clone(),
        secrets: Arc::new(config.secrets.clone()),
        metrics: metrics.clone(),
        wake,
        body_limits: BodyLimits::new(config.limits.body_memory, config.limits.body_timeout, config.limits.body_floor),
    };
    let listener = server::listen(config.bind).with_context(|| format!("cannot listen on {}", config.bind))?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(server::serve(
        listener,
        crate::webhook::router(receiver).merge(attest::routes::router(store.clone(), ctx.attestation.clone())),
        config.limits,
        metrics.clone(),
        stopped.clone(),
    ));
    let reminding = reminders::Sweeper {
        store: store.clone(),
        github: ctx.github.clone(),
        policy: config.reminders,
        clock: config.clock.clone(),
    };
    let reminders = tokio::spawn(reminders::run(reminding, stopped.clone()));
    let sweeper =
        tokio::spawn(redeliver::run(store.clone(), ctx.github.clone(), metrics.clone(), config.redeliver, stopped));
    tracing::info!(%addr, store = store.engine_name(), workers = config.workers, "gatehouse is serving");
    Ok(Running { addr, store, metrics, stop, server, workers, sweeper, reminders })
}

/// Asks GitHub for the App's bot login until it answers (the App's own
/// events are told apart by it; until then they make jobs, which change
/// nothing). While GitHub refuses the App's credentials (401: a wrong App
/// id, a key it does not know), the App is not ready: it could answer no
/// delivery.
async fn learn_bot_login(
    github: GitHub,
    bot: Arc<std::sync::OnceLock<String>>,
    readiness: Arc<Readiness>,
    mut stop: watch::Receiver<bool>,
) {
    let mut wait = Duration::from_secs(1);
    loop {
        match github.bot_login().await {
            Ok(login) => {
                tracing::info!(%login, "the App's bot");
                readiness.credentials_accepted();
                let _ = bot.set(login);
                return;
            }
            Err(err @ (ApiError::Status { status: 401, .. } | ApiError::Unauthorized { .. } | ApiError::Auth(_))) => {
                tracing::error!(error = %err, "GitHub refuses the App's credentials; retrying");
                readiness.credentials_refused(format!(
                    "GitHub refuses the App's credentials: check GATEHOUSE_APP_ID and that the private key is this \
                     App's ({err})"
                ));
            }
            Err(err) => tracing::warn!(error = %err, "cannot read the App's slug; retrying"),
        }
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
        wait = (wait * 2).min(Duration::from_secs(300));
    }
}

/// `gatehouse serve`: runs the App on its own runtime until SIGINT or SIGTERM.
pub(crate) fn serve(config: AppConfig) -> Result<()> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(serve_async(config))
}

/// Runs the App on the caller's runtime until SIGINT or SIGTERM. Logs go to
/// stderr in `config.log_format`, filtered by `RUST_LOG` (default
/// `gatehouse=info`), unless the caller set up tracing.
pub(crate) async fn serve_async(config: AppConfig) -> Result<()> {
    logs::init("gatehouse=info", config.log_format);
    tracing::info!(
        app_id = config.app_id,
        listen = %config.bind,
        database = %redact_url(&config.database_url),
        github = %config.api_url,
        workers = config.workers,
        "starting"
    );
    let running = start(config).await?;
    shutdown_signal().await;
    tracing::info!("shutting down: finishing the jobs in hand");
    running.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {}
        _ = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_secrets() {
        let mut config = AppConfig::new(7, Token::new("-----BEGIN PRIVATE KEY-----abc"), Secrets::parse("hook-secret"));
        config.database_url = "postgres://gatehouse:db-password@db:5432/gatehouse".into();
        let shown = format!("{config:?}");
        for secret in ["PRIVATE KEY", "hook-secret", "db-password"] {
            assert!(!shown.contains(secret), "{secret} leaked: {shown}");
        }
        assert!(shown.contains("postgres://gatehouse:***@db:5432/gatehouse"), "{shown}");
    }
}
