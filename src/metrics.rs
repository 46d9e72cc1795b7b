//! Counters for `GET /metrics`, in Prometheus' text format (0.0.4), each
//! family's series sorted by label.
//!
//! Written here rather than with prometheus-client (0.24), whose encoder
//! writes OpenMetrics only: a counter's `# HELP`/`# TYPE` lines name it
//! without `_total`, a histogram's `_sum` and `_count` come before its
//! buckets and its bounds read `1.0`, the text ends in `# EOF`, and a
//! family's series come in hash order, a different one each run. Encoding
//! these same metrics both ways, 51 of the 52 lines differed.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use crate::github::{Budget, Urgency};

/// Job latency buckets, seconds.
const BUCKETS: [f64; 8] = [0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0];

#[derive(Debug, Default)]
pub struct Metrics {
    /// The event names deliveries are labelled by; any other is "other".
    event_labels: &'static [&'static str],
    deliveries: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
    job_buckets: [AtomicU64; BUCKETS.len()],
    job_count: AtomicU64,
    job_micros: AtomicU64,
    /// Jobs that failed: to be run again, and for good.
    job_failures: [AtomicU64; 2],
    github_calls: Mutex<BTreeMap<u16, u64>>,
    /// -1 until GitHub tells us.
    rate_limit_remaining: AtomicI64,
    connections_shed: AtomicU64,
    connections_refused: AtomicU64,
    /// 401s that failed a token mint, and calls refused with a fresh token.
    unauthorized_token: AtomicU64,
    unauthorized_call: AtomicU64,
    /// 1 while GitHub is not answering (the App sends one probe per interval).
    github_down: AtomicI64,
    /// The redelivery sweep: failed deliveries found (neither stored nor
    /// delivered since), redeliveries asked of GitHub, and asks that failed.
    redelivery_found: AtomicU64,
    redelivery_requested: AtomicU64,
    redelivery_failed: AtomicU64,
    /// The write budget's limits (-1: none), set once at start.
    budget_limits: Mutex<Vec<(&'static str, i64)>>,
    /// Writes sent, writes that waited for the budget, and the time they
    /// waited, by urgency (person, background).
    writes: [AtomicU64; 2],
    writes_delayed: [AtomicU64; 2],
    write_wait_micros: [AtomicU64; 2],
}

fn urgency_index(urgency: Urgency) -> usize {
    match urgency {
        Urgency::Person => 0,
        Urgency::Background => 1,
    }
}

impl Metrics {
    /// Counters that label deliveries by the events in `event_labels`.
    pub fn new(event_labels: &'static [&'static str]) -> Metrics {
        let metrics = Metrics { event_labels, ..Metrics::default() };
        metrics.rate_limit_remaining.store(-1, Ordering::Relaxed);
        metrics
    }

    /// One delivery of `event` answered with `outcome` (accepted, duplicate,
    /// unauthorized, too_large, length_required, busy, timeout, bad_request,
    /// error).
    pub(crate) fn delivery(&self, event: &str, outcome: &'static str) {
        // Event names come from an unauthenticated header: only the events
        // the App knows become labels, so the series stay few.
        let event = self.event_labels.iter().copied().find(|known| *known == event).unwrap_or("other");
        let mut map = self.deliveries.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry((event, outcome)).or_default() += 1;
    }

    /// An idle connection, or the one with the slowest unverified body,
    /// closed to make room for a new one.
    pub(crate) fn connection_shed(&self) {
        self.connections_shed.fetch_add(1, Ordering::Relaxed);
    }

    /// A new connection turned away: every open one had a request in flight.
    pub(crate) fn connection_refused(&self) {
        self.connections_refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn job_finished(&self, seconds: f64) {
        for (bucket, le) in self.job_buckets.iter().zip(BUCKETS) {
            if seconds <= le {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.job_count.fetch_add(1, Ordering::Relaxed);
        self.job_micros.fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
    }

    /// A job that failed; `retried` when it will be run again.
    pub(crate) fn job_failed(&self, retried: bool) {
        self.job_failures[usize::from(!retried)].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn github_call(&self, status: u16, rate_limit_remaining: Option<i64>) {
        *self.github_calls.lock().unwrap_or_else(|e| e.into_inner()).entry(status).or_default() += 1;
        if let Some(remaining) = rate_limit_remaining {
            self.rate_limit_remaining.store(remaining, Ordering::Relaxed);
        }
    }

    /// A 401 from GitHub that a fresh token did not cure: at `stage` "token"
    /// (minting it) or "call".
    pub(crate) fn unauthorized(&self, stage: &'static str) {
        let counter = if stage == "token" { &self.unauthorized_token } else { &self.unauthorized_call };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn github_down(&self, down: bool) {
        self.github_down.store(i64::from(down), Ordering::Relaxed);
    }

    /// A failed delivery the sweep found neither stored nor since delivered,
    /// counted once per delivery id.
    pub(crate) fn redelivery_found(&self) {
        self.redelivery_found.fetch_add(1, Ordering::Relaxed);
    }

    /// A redelivery GitHub accepted (`ok`) or that could not be asked for.
    pub(crate) fn redelivery_requested(&self, ok: bool) {
        let counter = if ok { &self.redelivery_requested } else { &self.redelivery_failed };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The write budget the GitHub client keeps to.
    pub(crate) fn write_budget(&self, budget: &Budget) {
        let limit = |l: Option<u32>| l.map_or(-1, i64::from);
        *self.budget_limits.lock().unwrap_or_else(|e| e.into_inner()) = vec![
            ("content_per_minute", limit(budget.content_per_minute)),
            ("content_per_hour", limit(budget.content_per_hour)),
            ("endpoint_points_per_minute", limit(budget.endpoint_points_per_minute)),
            ("reserve_percent", i64::from(budget.reserve_percent)),
            ("one_at_a_time", i64::from(budget.one_at_a_time)),
        ];
    }

    /// One write let through by the budget after waiting `waited`.
    pub(crate) fn write_spent(&self, urgency: Urgency, waited: Duration) {
        let i = urgency_index(urgency);
        self.writes[i].fetch_add(1, Ordering::Relaxed);
        if !waited.is_zero() {
            self.writes_delayed[i].fetch_add(1, Ordering::Relaxed);
            self.write_wait_micros[i].fetch_add(waited.as_micros() as u64, Ordering::Relaxed);
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP gatehouse_deliveries_total Webhook deliveries by event and outcome.\n");
        out.push_str("# TYPE gatehouse_deliveries_total counter\n");
        for ((event, outcome), n) in self.deliveries.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "gatehouse_deliveries_total{{event=\"{event}\",outcome=\"{outcome}\"}} {n}");
        }
        out.push_str("# HELP gatehouse_job_duration_seconds Time from claim to completion of a job.\n");
        out.push_str("# TYPE gatehouse_job_duration_seconds histogram\n");
        for (bucket, le) in self.job_buckets.iter().zip(BUCKETS) {
            let _ = writeln!(
                out,
                "gatehouse_job_duration_seconds_bucket{{le=\"{le}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = self.job_count.load(Ordering::Relaxed);
        let _ = writeln!(out, "gatehouse_job_duration_seconds_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(
            out,
            "gatehouse_job_duration_seconds_sum {}",
            self.job_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "gatehouse_job_duration_seconds_count {count}");
        out.push_str("# HELP gatehouse_job_failures_total Jobs that failed, by whether they will be run again (retry) or not (final).\n");
        out.push_str("# TYPE gatehouse_job_failures_total counter\n");
        for (outcome, n) in ["retry", "final"].into_iter().zip(&self.job_failures) {
            let _ =
                writeln!(out, "gatehouse_job_failures_total{{outcome=\"{outcome}\"}} {}", n.load(Ordering::Relaxed));
        }
        out.push_str("# HELP gatehouse_github_calls_total GitHub API calls by HTTP status.\n");
        out.push_str("# TYPE gatehouse_github_calls_total counter\n");
        for (status, n) in self.github_calls.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "gatehouse_github_calls_total{{status=\"{status}\"}} {n}");
        }
        out.push_str("# HELP gatehouse_connections_closed_total Connections closed at the connection cap: shed (idle or sending the slowest unverified body, for a newer one) or refused (every one busy).\n");
        out.push_str("# TYPE gatehouse_connections_closed_total counter\n");
        for (reason, n) in [("shed", &self.connections_shed), ("refused", &self.connections_refused)] {
            let _ = writeln!(
                out,
                "gatehouse_connections_closed_total{{reason=\"{reason}\"}} {}",
                n.load(Ordering::Relaxed)
            );
        }
        out.push_str("# HELP gatehouse_github_rate_limit_remaining Last x-ratelimit-remaining seen (-1: none yet).\n");
        out.push_str("# TYPE gatehouse_github_rate_limit_remaining gauge\n");
        let _ = writeln!(
            out,
            "gatehouse_github_rate_limit_remaining {}",
            self.rate_limit_remaining.load(Ordering::Relaxed)
        );
        out.push_str("# HELP gatehouse_github_unauthorized_total GitHub 401s a fresh token did not cure, by stage.\n");
        out.push_str("# TYPE gatehouse_github_unauthorized_total counter\n");
        for (stage, counter) in [("call", &self.unauthorized_call), ("token", &self.unauthorized_token)] {
            let n = counter.load(Ordering::Relaxed);
            let _ = writeln!(out, "gatehouse_github_unauthorized_total{{stage=\"{stage}\"}} {n}");
        }
        out.push_str("# HELP gatehouse_github_down 1 while GitHub is not answering (one probe per interval).\n");
        out.push_str("# TYPE gatehouse_github_down gauge\n");
        let _ = writeln!(out, "gatehouse_github_down {}", self.github_down.load(Ordering::Relaxed));
        let redelivery = [
            (
                "gatehouse_hook_deliveries_failed_total",
                "Failed webhook deliveries found neither stored nor delivered since, once per delivery id.",
                &self.redelivery_found,
            ),
            (
                "gatehouse_redeliveries_requested_total",
                "Redeliveries GitHub accepted (202).",
                &self.redelivery_requested,
            ),
            (
                "gatehouse_redelivery_requests_failed_total",
                "Redelivery requests GitHub refused or did not answer.",
                &self.redelivery_failed,
            ),
        ];
        for (name, help, counter) in redelivery {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                counter.load(Ordering::Relaxed)
            );
        }
        self.render_budget(&mut out);
        out
    }

    fn render_budget(&self, out: &mut String) {
        out.push_str("# HELP gatehouse_github_write_budget_limit The write budget per installation (-1: no limit).\n");
        out.push_str("# TYPE gatehouse_github_write_budget_limit gauge\n");
        for (limit, n) in self.budget_limits.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "gatehouse_github_write_budget_limit{{limit=\"{limit}\"}} {n}");
        }
        let series = [
            ("gatehouse_github_writes_total", "Writes sent to GitHub, by who waits for them.", &self.writes),
            (
                "gatehouse_github_writes_delayed_total",
                "Writes that waited for the installation's write budget.",
                &self.writes_delayed,
            ),
        ];
        for (name, help, counters) in series {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            for urgency in [Urgency::Person, Urgency::Background] {
                let n = counters[urgency_index(urgency)].load(Ordering::Relaxed);
                let _ = writeln!(out, "{name}{{urgency=\"{}\"}} {n}", urgency.label());
            }
        }
        let name = "gatehouse_github_write_budget_wait_seconds_total";
        let _ = writeln!(out, "# HELP {name} Time writes waited for the write budget.\n# TYPE {name} counter");
        for urgency in [Urgency::Person, Urgency::Background] {
            let micros = self.write_wait_micros[urgency_index(urgency)].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}{{urgency=\"{}\"}} {}", urgency.label(), micros as f64 / 1e6);
        }
    }
}

/// `gatehouse_jobs{state=…}`: the jobs in the store by state, read at scrape
/// time.
pub(crate) fn jobs_gauge(states: &[(&str, i64)]) -> String {
    let mut out = String::from("# HELP gatehouse_jobs Jobs in the store by state.\n# TYPE gatehouse_jobs gauge\n");
    for (state, n) in states {
        let _ = writeln!(out, "gatehouse_jobs{{state=\"{state}\"}} {n}");
    }
    out
}
