//! GitHub's secondary rate limits on content, as "Rate limits for the REST
//! API" (section "About secondary rate limits") documents them, and the
//! latency of a GitHub further away than loopback.
//!
//! Content-generating requests are counted as GitHub's page leaves the
//! client to assume: every REST `POST`, `PATCH`, `PUT` and `DELETE` of an
//! installation and every GraphQL mutation.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{Logged, Sim};

/// The limits the simulated GitHub enforces; `None` lifts one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecondaryLimits {
    /// "No more than 80 content-generating requests per minute" ("Rate
    /// limits for the REST API", "About secondary rate limits").
    pub content_per_minute: Option<u32>,
    /// "No more than 500 content-generating requests per hour" (same).
    pub content_per_hour: Option<u32>,
    /// A write arriving while another of the installation's is unanswered
    /// is limited: "make requests for a single user or client ID serially.
    /// Do not make requests for a single user or client ID concurrently"
    /// ("Best practices for using the REST API").
    pub one_write_at_a_time: bool,
}

impl SecondaryLimits {
    /// GitHub.com's.
    pub const GITHUB_COM: SecondaryLimits =
        SecondaryLimits { content_per_minute: Some(80), content_per_hour: Some(500), one_write_at_a_time: true };

    /// None: GitHub Enterprise Server, where "rate limits are disabled by
    /// default" (its "Rate limits for the REST API").
    pub const NONE: SecondaryLimits =
        SecondaryLimits { content_per_minute: None, content_per_hour: None, one_write_at_a_time: false };
}

impl Default for SecondaryLimits {
    fn default() -> Self {
        SecondaryLimits::GITHUB_COM
    }
}

impl Sim {
    /// Enforces `limits` from now on (GitHub.com's by default), counting
    /// writes from now on.
    pub fn set_secondary_limits(&self, limits: SecondaryLimits) {
        let mut s = self.lock();
        s.secondary = limits;
        s.content.restart();
    }

    /// Writes answered with a secondary limit of content (per minute, per
    /// hour, or one at a time).
    pub fn secondary_limit_answers(&self) -> u32 {
        self.lock().content.limited
    }

    /// Content-generating requests (REST writes and GraphQL mutations)
    /// accepted since the limits were last set.
    pub fn content_writes(&self) -> u64 {
        self.lock().content.accepted_total
    }

    /// Every request waits `latency` before it is answered.
    pub fn set_latency(&self, latency: Duration) {
        self.lock().latency = latency;
    }

    /// Each request from now on, as it is answered.
    pub fn watch(&self) -> tokio::sync::mpsc::UnboundedReceiver<Logged> {
        let (send, receive) = tokio::sync::mpsc::unbounded_channel();
        self.lock().watch = Some(send);
        receive
    }
}

/// The writes the simulated GitHub accepted, for its limits.
#[derive(Debug, Default)]
pub(crate) struct ContentLog {
    /// When each accepted write arrived, oldest first, for an hour.
    accepted: VecDeque<Instant>,
    /// Writes unanswered now.
    pub in_flight: u32,
    /// Writes answered with a secondary limit.
    pub limited: u32,
    /// Writes accepted since the limits were set.
    pub accepted_total: u64,
}

impl ContentLog {
    /// Forgets what was counted, but for the writes still unanswered.
    pub(crate) fn restart(&mut self) {
        *self = ContentLog { in_flight: self.in_flight, ..ContentLog::default() };
    }

    /// Admits a write arriving at `now`, or says how many seconds to wait
    /// (the `retry-after` of the secondary limit's answer).
    pub(crate) fn admit(&mut self, limits: &SecondaryLimits, now: Instant) -> Result<(), u64> {
        const MINUTE: Duration = Duration::from_secs(60);
        const HOUR: Duration = Duration::from_secs(3600);
        while self.accepted.front().is_some_and(|at| now.duration_since(*at) >= HOUR) {
            self.accepted.pop_front();
        }
        if limits.one_write_at_a_time && self.in_flight > 0 {
            self.limited += 1;
            return Err(1);
        }
        let mut wait = Duration::ZERO;
        for (limit, window) in [(limits.content_per_minute, MINUTE), (limits.content_per_hour, HOUR)] {
            let Some(limit) = limit.map(|l| l as usize) else { continue };
            let within: Vec<&Instant> = self.accepted.iter().filter(|at| now.duration_since(**at) < window).collect();
            if within.len() >= limit {
                let leaves = *within[within.len() - limit] + window;
                wait = wait.max(leaves.saturating_duration_since(now));
            }
        }
        if !wait.is_zero() {
            self.limited += 1;
            return Err(wait.as_secs().max(1));
        }
        self.accepted.push_back(now);
        self.accepted_total += 1;
        self.in_flight += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eighty_first_write_of_a_minute_is_limited() {
        let mut log = ContentLog::default();
        let start = Instant::now();
        for i in 0..80 {
            assert_eq!(log.admit(&SecondaryLimits::GITHUB_COM, start + Duration::from_millis(i)), Ok(()));
            log.in_flight -= 1;
        }
        let wait = log.admit(&SecondaryLimits::GITHUB_COM, start + Duration::from_secs(1)).unwrap_err();
        assert_eq!(wait, 59);
        assert_eq!(log.admit(&SecondaryLimits::GITHUB_COM, start + Duration::from_secs(61)), Ok(()));
    }

    #[test]
    fn a_second_concurrent_write_is_limited() {
        let mut log = ContentLog::default();
        let now = Instant::now();
        assert_eq!(log.admit(&SecondaryLimits::GITHUB_COM, now), Ok(()));
        assert!(log.admit(&SecondaryLimits::GITHUB_COM, now).is_err());
        assert_eq!(log.admit(&SecondaryLimits::NONE, now), Ok(()));
        assert_eq!(log.limited, 1);
    }
}
