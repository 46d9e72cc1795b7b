//! How hard the App tries: a call's attempts, backoff and timeout, a rate
//! limit's longest wait, and a job's retries through transient failures.

use std::time::Duration;

/// How hard to try.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    pub attempts: u32,
    /// First backoff; doubled per attempt.
    pub backoff: Duration,
    /// The longest wait a rate limit may impose before the call gives up.
    pub max_wait: Duration,
    pub timeout: Duration,
    /// How long a job is retried through transient failures (GitHub down,
    /// 5xx, rate limits) before it is given up on, from its first delivery.
    pub job_deadline: Duration,
    /// The delay before a failed job runs again, doubled per attempt up to
    /// `job_backoff_max`.
    pub job_backoff: Duration,
    pub job_backoff_max: Duration,
    /// While GitHub is down, one job is let through per probe interval,
    /// doubled while the outage lasts up to `probe_interval_max`.
    pub probe_interval: Duration,
    pub probe_interval_max: Duration,
    /// Attempts of a job that GitHub answers 401 (a token refused, or not
    /// minted: clock skew, a key being rotated) before it is given up on.
    pub unauthorized_attempts: i64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            backoff: Duration::from_millis(250),
            max_wait: Duration::from_secs(120),
            timeout: Duration::from_secs(20),
            job_deadline: Duration::from_secs(6 * 3600),
            job_backoff: Duration::from_secs(2),
            job_backoff_max: Duration::from_secs(300),
            probe_interval: Duration::from_secs(10),
            probe_interval_max: Duration::from_secs(120),
            unauthorized_attempts: 8,
        }
    }
}

impl RetryPolicy {
    /// The delay before a job that failed on attempt `attempts` runs again.
    pub(crate) fn job_backoff(&self, attempts: i64) -> Duration {
        let doublings = attempts.saturating_sub(1).clamp(0, 20) as u32;
        self.job_backoff.saturating_mul(1 << doublings).min(self.job_backoff_max)
    }
}
