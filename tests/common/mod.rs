//! Shared by the App suites: database URLs, the test App key, a running App
//! against the simulated GitHub, signed deliveries.
#![allow(dead_code)]

pub mod proxy;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use gatehouse::app::{self, AppConfig, Running};
use gatehouse::github::{RetryPolicy, Token};
use gatehouse::webhook::Secrets;
use gatehouse_sim::{Sim, Tree};
use serde_json::Value;

pub const APP_ID: u64 = 4242;
pub const INSTALLATION: u64 = 77;
pub const SECRET: &str = "test-webhook-secret";

/// The HMAC of `body` under [`SECRET`], as the receiver hands it to the
/// store once the signature verifies.
pub fn mac_of(body: &[u8]) -> [u8; 32] {
    let header = gatehouse::webhook::signature::sign(SECRET.as_bytes(), body);
    Secrets::parse(SECRET).verify(Some(header.as_bytes()), body).expect("signed with the secret").0
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `command` (`gatehouse serve`, or a wrapper running it) given the test
/// App's identity, a SQLite file at `db`, a loopback port of its own, one
/// worker and a GitHub API nothing listens on (its jobs stay queued), logging
/// at info to a piped stderr.
pub fn serve_env<'c>(command: &'c mut std::process::Command, db: &str) -> &'c mut std::process::Command {
    command
        .env("GATEHOUSE_APP_ID", APP_ID.to_string())
        .env("GATEHOUSE_PRIVATE_KEY_PATH", manifest_dir().join("fixtures/app/test-app-key.pem"))
        .env("GATEHOUSE_WEBHOOK_SECRET", SECRET)
        .env("GATEHOUSE_DATABASE_URL", db)
        .env("GATEHOUSE_BIND", "127.0.0.1:0")
        .env("GATEHOUSE_GITHUB_API_URL", "http://127.0.0.1:9")
        .env("GATEHOUSE_WORKERS", "1")
        .env("RUST_LOG", "gatehouse=info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
}

pub fn private_key() -> String {
    std::fs::read_to_string(manifest_dir().join("fixtures/app/test-app-key.pem")).expect("test key")
}

pub fn public_key() -> Vec<u8> {
    std::fs::read(manifest_dir().join("fixtures/app/test-app-key.pub.pem")).expect("test public key")
}

/// The PostgreSQL URL for storage tests. In CI (CI=true) it must be set;
/// elsewhere its absence skips the PostgreSQL half of the calling test,
/// which says so on stderr (see [`report_skip`]).
#[track_caller]
pub fn postgres_url() -> Option<String> {
    match std::env::var("GATEHOUSE_TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("GATEHOUSE_TEST_DATABASE_URL must be set in CI: the PostgreSQL engine is tested for real")
        }
        _ => {
            report_skip(std::panic::Location::caller());
            None
        }
    }
}

/// The line `SKIPPED (no PostgreSQL): <test> (<file:line>)`, written to the
/// process's stderr itself rather than through `eprintln!`, which the test
/// harness captures and drops for a passing test: a skipped half shows in
/// every `cargo test` run, and `.ci/run` fails on the line.
fn report_skip(at: &std::panic::Location) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().filter(|name| *name != "main").unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED (no PostgreSQL): {test} ({}:{})", at.file(), at.line());
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A schema name no other test run uses.
pub fn unique_schema() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("gh_test_{}_{}_{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Which engine a test runs on.
#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(PathBuf),
    Postgres { url: String, schema: String },
}

impl Db {
    pub fn sqlite(dir: &tempfile::TempDir) -> Db {
        Db::Sqlite(dir.path().join("gatehouse.db"))
    }

    #[track_caller]
    pub fn postgres() -> Option<Db> {
        postgres_url().map(|url| Db::Postgres { url, schema: unique_schema() })
    }

    pub fn url(&self) -> String {
        match self {
            Db::Sqlite(path) => format!("sqlite://{}", path.display()),
            Db::Postgres { url, .. } => url.clone(),
        }
    }

    pub fn schema(&self) -> Option<String> {
        match self {
            Db::Sqlite(_) => None,
            Db::Postgres { schema, .. } => Some(schema.clone()),
        }
    }

    pub async fn store(&self) -> gatehouse::store::Store {
        gatehouse::store::Store::connect_in_schema(&self.url(), self.schema().as_deref()).await.expect("store")
    }
}

pub fn config(db: &Db, api_url: &str) -> AppConfig {
    let mut config = AppConfig::new(APP_ID, Token::new(private_key()), Secrets::parse(SECRET));
    config.database_url = db.url();
    config.database_schema = db.schema();
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.api_url = api_url.to_string();
    config.workers = 2;
    config.lease = Duration::from_secs(30);
    config.retry = RetryPolicy {
        attempts: 5,
        backoff: Duration::from_millis(20),
        max_wait: Duration::from_secs(10),
        timeout: Duration::from_secs(5),
        job_deadline: Duration::from_secs(600),
        job_backoff: Duration::from_millis(50),
        job_backoff_max: Duration::from_secs(1),
        probe_interval: Duration::from_millis(200),
        probe_interval_max: Duration::from_secs(1),
        unauthorized_attempts: 8,
    };
    // These suites deliver by hand, not through the simulated GitHub's
    // history; tests/app_redelivery.rs runs the sweep.
    config.redeliver.interval = Duration::ZERO;
    config
}

/// The App and the simulated GitHub as an instance without secondary
/// limits (GitHub Enterprise Server's default), for suites that send one
/// installation more writes than GitHub.com allows in an hour.
pub fn without_secondary_limits(sim: &Sim, config: &mut AppConfig) {
    sim.set_secondary_limits(gatehouse_sim::SecondaryLimits::NONE);
    config.budget = gatehouse::github::Budget::UNLIMITED;
}

/// The simulated GitHub of an organisation whose ruleset requires every
/// check of gatehouse's on `main`: the App writes them all on each head.
pub async fn sim() -> Sim {
    let sim = bare_sim().await;
    let names = gatehouse::publish::check_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    sim.require_checks_by_ruleset(None, "main", &names, Some(APP_ID));
    sim
}

/// The simulated GitHub with no ruleset and no branch protection: a
/// repository that requires no check.
pub async fn bare_sim() -> Sim {
    Sim::start(APP_ID, &public_key(), INSTALLATION).await.expect("sim")
}

pub async fn start_app(config: AppConfig) -> Running {
    // RUST_LOG=gatehouse=debug shows the App's logs under `--nocapture`.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    app::start(config).await.expect("app starts")
}

/// Posts a delivery signed with `SECRET`; returns the status.
pub async fn deliver(addr: std::net::SocketAddr, event: &str, delivery: &str, payload: &Value) -> u16 {
    let body = serde_json::to_vec(payload).unwrap();
    let signature = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &body);
    post_raw(addr, event, Some(delivery), Some(&signature), body).await
}

pub async fn post_raw(
    addr: std::net::SocketAddr,
    event: &str,
    delivery: Option<&str>,
    signature: Option<&str>,
    body: Vec<u8>,
) -> u16 {
    let mut request =
        reqwest::Client::new().post(format!("http://{addr}/webhook")).header("x-github-event", event).body(body);
    if let Some(delivery) = delivery {
        request = request.header("x-github-delivery", delivery);
    }
    if let Some(signature) = signature {
        request = request.header("x-hub-signature-256", signature);
    }
    request.send().await.expect("webhook reachable").status().as_u16()
}

/// Waits (up to a minute: a hang fails the test, nothing is timed) until `done`.
pub async fn wait_for<F: FnMut() -> bool>(what: &str, mut done: F) {
    for _ in 0..1200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("gave up waiting for {what}");
}

pub fn tree(files: &[(&str, &str)]) -> Tree {
    files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect()
}

/// A valid brief (ADR-099) that cites ADR-095, which `adr()` provides.
pub fn brief(agent: &str, estimate: u32) -> String {
    format!(
        "---\nagent: SWARM-{agent}\nrepos_touched: [acme/docs]\nadrs_referenced: [ADR-095]\nsuccess_criteria:\n  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"\nout_of_scope:\n  - on-host pg_dump storage\nlines_estimate: {estimate}\n---\n\n# Backups\n\nFollows ADR-095 for the bucket layout.\n"
    )
}

pub fn adr() -> (&'static str, &'static str) {
    ("docs/adr/ADR-095-backups.md", "# ADR-095: Backups\n\nStatus: Accepted\n\nBackups go to the bucket.\n")
}

/// Waits until `sha` of `repo` shows a completed run of every check (the
/// suites' repositories require every one: see [`sim`]).
pub async fn head_evaluated(sim: &Sim, repo: &str, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(repo, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

/// Waits until no job is queued or running.
pub async fn jobs_idle(store: &gatehouse::store::Store) {
    for _ in 0..1200 {
        let counts = store.job_counts().await.expect("job counts");
        if counts.queued == 0 && counts.running == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("gave up waiting for the jobs to finish");
}

/// The brief the App suites add to [`base`].
pub const BRIEF: &str = "dark-factory/briefs/SWARM-AR-backups.md";

/// The review policy of the App suites' repositories.
pub const REVIEW_POLICY: &str =
    "review:\n  core: { reviewers: [gyrum-marcus, gyrum-priya, gyrum-lin], required: 2 }\n  advisory: [gyrum-dana]\n";

/// A repository with an ADR, a README and a review policy.
pub fn base() -> Tree {
    let (adr_path, adr_text) = adr();
    tree(&[(adr_path, adr_text), ("README.md", "# docs\n"), (".github/gatehouse.yml", REVIEW_POLICY)])
}

/// [`base`] with `text` at [`BRIEF`].
pub fn with_brief(text: &str) -> Tree {
    let mut head = base();
    head.insert(BRIEF.into(), text.as_bytes().to_vec());
    head
}
