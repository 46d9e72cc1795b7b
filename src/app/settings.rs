//! What `gatehouse serve` is told beyond the App's identity and secrets:
//! each setting is a flag, read from its environment variable when not
//! given (clap's `env`). Values are not shown in `--help`: a database URL
//! may carry a password.

use std::net::SocketAddr;
use std::time::Duration;

use super::AppConfig;
use super::logs::LogFormat;

#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct Settings {
    /// `sqlite://PATH` (default `sqlite://gatehouse.db`) or `postgres://…`.
    #[arg(long, value_name = "URL", env = "GATEHOUSE_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Where to listen (default 0.0.0.0:3000).
    #[arg(long, value_name = "HOST:PORT", env = "GATEHOUSE_BIND", hide_env_values = true)]
    pub bind: Option<SocketAddr>,
    /// The GitHub API, for GitHub Enterprise (default https://api.github.com).
    #[arg(long, value_name = "URL", env = "GATEHOUSE_GITHUB_API_URL", hide_env_values = true)]
    pub github_api_url: Option<String>,
    /// Worker tasks (default 4, at most 64).
    #[arg(long, env = "GATEHOUSE_WORKERS", hide_env_values = true)]
    pub workers: Option<usize>,
    /// Open connections at most (default 512); at the cap the oldest idle one
    /// makes room for a new one.
    #[arg(long, value_name = "N", env = "GATEHOUSE_MAX_CONNECTIONS", hide_env_values = true)]
    pub max_connections: Option<u64>,
    /// Seconds a client has to send a request's headers; idle connections are
    /// closed after it too (default 10).
    #[arg(long, value_name = "SECS", env = "GATEHOUSE_HEADER_TIMEOUT_SECS", hide_env_values = true)]
    pub header_timeout_secs: Option<u64>,
    /// Seconds a client has to send a body (default 30).
    #[arg(long, value_name = "SECS", env = "GATEHOUSE_BODY_TIMEOUT_SECS", hide_env_values = true)]
    pub body_timeout_secs: Option<u64>,
    /// Bytes a second a body must arrive at, at least, once it has had
    /// `--body-grace-secs`; slower ones get 408 (default 4096; 0: no floor).
    #[arg(long, value_name = "BYTES", env = "GATEHOUSE_BODY_MIN_RATE", hide_env_values = true)]
    pub body_min_rate: Option<u64>,
    /// Seconds a body may take before the floor applies (default 2).
    #[arg(long, value_name = "SECS", env = "GATEHOUSE_BODY_GRACE_SECS", hide_env_values = true)]
    pub body_grace_secs: Option<u64>,
    /// Megabytes all bodies not yet verified may hold at once; past it
    /// deliveries get 503 (default 64, at least 25).
    #[arg(long, value_name = "MB", env = "GATEHOUSE_BODY_MEMORY_MB", hide_env_values = true)]
    pub body_memory_mb: Option<u64>,
    /// Log lines as `text` (coloured on a terminal only) or `json`, one
    /// object a line for log collectors (default text).
    #[arg(long, value_enum, env = "GATEHOUSE_LOG_FORMAT", hide_env_values = true)]
    pub log_format: Option<LogFormat>,
    /// Seconds between sweeps that have GitHub redeliver the deliveries the
    /// App refused or missed (default 300; the first runs at start; 0: none).
    #[arg(long, value_name = "SECS", env = "GATEHOUSE_REDELIVER_INTERVAL_SECS", hide_env_values = true)]
    pub redeliver_interval_secs: Option<u64>,
    /// Seconds between sweeps that send the review reminders the policies
    /// ask for (`review.remind_after_days`): a reminder goes out at most
    /// this late (default 300; 0: no reminders).
    #[arg(long, value_name = "SECS", env = "GATEHOUSE_REMINDER_INTERVAL_SECS", hide_env_values = true)]
    pub reminder_interval_secs: Option<u64>,
    /// Content-generating requests (writes) an installation may make a
    /// minute; `none` lifts the limit (default 80, GitHub.com's secondary
    /// limit; GitHub Enterprise Server sets none unless its administrator
    /// does).
    #[arg(long, value_name = "N|none", env = "GATEHOUSE_GITHUB_WRITES_PER_MINUTE", hide_env_values = true)]
    pub github_writes_per_minute: Option<Limit>,
    /// Writes an installation may make an hour; `none` lifts the limit
    /// (default 500, GitHub.com's).
    #[arg(long, value_name = "N|none", env = "GATEHOUSE_GITHUB_WRITES_PER_HOUR", hide_env_values = true)]
    pub github_writes_per_hour: Option<Limit>,
    /// Points a minute an installation may spend on one endpoint, a write
    /// costing 5; `none` lifts the limit (default 900, GitHub.com's).
    #[arg(long, value_name = "N|none", env = "GATEHOUSE_GITHUB_ENDPOINT_POINTS_PER_MINUTE", hide_env_values = true)]
    pub github_endpoint_points_per_minute: Option<Limit>,
    /// Whether an installation's writes may go out several at once (default
    /// false: one at a time, as GitHub's "Best practices for using the REST
    /// API" asks; an instance without limits may allow it).
    #[arg(long, value_name = "BOOL", env = "GATEHOUSE_GITHUB_CONCURRENT_WRITES", hide_env_values = true)]
    pub github_concurrent_writes: Option<bool>,
    /// A file holding the Ed25519 private key (PKCS#8 PEM) gate attestations
    /// are signed with; none: merged pull requests are not attested.
    #[arg(long, value_name = "FILE", env = "GATEHOUSE_ATTESTATION_KEY_PATH", hide_env_values = true)]
    pub attestation_key_path: Option<std::path::PathBuf>,
    /// A file of public keys (PEM) served beside the signing key's, for
    /// rotation: the keys of attestations signed before.
    #[arg(long, value_name = "FILE", env = "GATEHOUSE_ATTESTATION_TRUSTED_KEYS", hide_env_values = true)]
    pub attestation_trusted_keys: Option<std::path::PathBuf>,
    /// The organisation's policy every repository's config ends at:
    /// `github` (default: `gatehouse.yml` of the owner's `.github`
    /// repository, none if the App cannot see one), `OWNER/REPO[:PATH]`
    /// (`{owner}` for the repository's owner; it must be read, or every
    /// repository's `gatehouse/config` fails), or `off`.
    #[arg(long, value_name = "github|off|OWNER/REPO[:PATH]", env = "GATEHOUSE_ORG_POLICY", hide_env_values = true)]
    pub org_policy: Option<crate::source::policy::OrgPolicy>,
}

/// A limit of the write budget: a number, or `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limit(pub Option<u32>);

impl std::str::FromStr for Limit {
    type Err = String;

    fn from_str(s: &str) -> Result<Limit, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(Limit(None));
        }
        match s.parse::<u32>() {
            Ok(n) if n > 0 => Ok(Limit(Some(n))),
            _ => Err(format!("{s:?} is not a limit: give a whole number above 0, or `none` for no limit")),
        }
    }
}

impl Settings {
    /// The attestation keys the settings name; each problem with its variable.
    pub(crate) fn attestation_keys(&self) -> Result<crate::attestation::AttestationKeys, String> {
        use crate::attestation::{AttestationKeys, SigningKey, TrustedKey};
        let read = |path: &std::path::Path, variable: &str| {
            std::fs::read_to_string(path)
                .map_err(|e| format!("{variable}, the file {}: cannot read it: {e}", path.display()))
        };
        let mut keys = AttestationKeys::default();
        if let Some(path) = &self.attestation_key_path {
            const VARIABLE: &str = "GATEHOUSE_ATTESTATION_KEY_PATH (or --attestation-key-path)";
            let pem = read(path, VARIABLE)?;
            let key =
                SigningKey::from_pem(&pem).map_err(|e| format!("{VARIABLE}, the file {}: {e}", path.display()))?;
            keys.key = Some(key);
        }
        if let Some(path) = &self.attestation_trusted_keys {
            const VARIABLE: &str = "GATEHOUSE_ATTESTATION_TRUSTED_KEYS (or --attestation-trusted-keys)";
            let pem = read(path, VARIABLE)?;
            keys.trusted =
                TrustedKey::all_from_pem(&pem).map_err(|e| format!("{VARIABLE}, the file {}: {e}", path.display()))?;
        }
        Ok(keys)
    }

    /// Sets in `config` what was given, within its bounds.
    pub(crate) fn apply(&self, config: &mut AppConfig) {
        if let Some(url) = &self.database_url {
            config.database_url = url.clone();
        }
        if let Some(bind) = self.bind {
            config.bind = bind;
        }
        if let Some(url) = &self.github_api_url {
            config.api_url = url.clone();
        }
        if let Some(n) = self.workers {
            config.workers = n.clamp(1, 64);
        }
        let limits = &mut config.limits;
        if let Some(n) = self.max_connections {
            limits.max_connections = (n as usize).max(1);
        }
        if let Some(secs) = self.header_timeout_secs {
            limits.header_timeout = Duration::from_secs(secs.max(1));
        }
        if let Some(secs) = self.body_timeout_secs {
            limits.body_timeout = Duration::from_secs(secs.max(1));
        }
        if let Some(rate) = self.body_min_rate {
            limits.body_floor.bytes_per_sec = rate;
        }
        if let Some(secs) = self.body_grace_secs {
            limits.body_floor.grace = Duration::from_secs(secs);
        }
        if let Some(mb) = self.body_memory_mb {
            limits.body_memory = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(format) = self.log_format {
            config.log_format = format;
        }
        if let Some(secs) = self.redeliver_interval_secs {
            config.redeliver.interval = Duration::from_secs(secs);
        }
        if let Some(policy) = &self.org_policy {
            config.org_policy = policy.clone();
        }
        if let Some(secs) = self.reminder_interval_secs {
            config.reminders.interval = Duration::from_secs(secs);
        }
        if let Some(Limit(n)) = self.github_writes_per_minute {
            config.budget.content_per_minute = n;
        }
        if let Some(Limit(n)) = self.github_writes_per_hour {
            config.budget.content_per_hour = n;
        }
        if let Some(Limit(n)) = self.github_endpoint_points_per_minute {
            config.budget.endpoint_points_per_minute = n;
        }
        if let Some(concurrent) = self.github_concurrent_writes {
            config.budget.one_at_a_time = !concurrent;
        }
    }
}
