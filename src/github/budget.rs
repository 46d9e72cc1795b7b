//! The write budget of an installation: how many content-generating requests
//! it may still make, kept to GitHub's documented secondary limits ("Rate
//! limits for the REST API", section "About secondary rate limits") and
//! shared by every replica through a [`Ledger`] (the App's store).
//!
//! Every REST `POST`, `PATCH`, `PUT` and `DELETE` and every GraphQL mutation
//! is counted as content-generating: GitHub does not list which requests
//! generate content, and counting all of them cannot overrun the limit.
//!
//! Deciding is pure ([`decide`]): the ledger hands it the writes of the last
//! hour, and it answers "go" or "wait this long". Writes a person waits for
//! ([`Urgency::Person`], the first answer on a pushed head) may use the whole
//! budget; writes that can wait ([`Urgency::Background`]: a re-check after a
//! base push, a review request) leave [`Budget::reserve_percent`] of each
//! window to them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 3_600_000;

/// A write still unanswered this long is taken as lost (the client's timeout
/// is shorter): another replica may write again.
pub(crate) const IN_FLIGHT_MS: i64 = 30_000;

/// How long to look again when another replica's write is in flight.
const IN_FLIGHT_POLL_MS: i64 = 20;

/// "Calculating points for the secondary rate limit" (same page): most REST
/// `POST`, `PATCH`, `PUT` and `DELETE` requests cost 5 points, as does a
/// GraphQL request with a mutation.
pub(crate) const WRITE_POINTS: u32 = 5;

/// The secondary limits an installation's writes are kept within; `None`
/// lifts a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// "No more than 80 content-generating requests per minute" ("Rate
    /// limits for the REST API", "About secondary rate limits").
    pub content_per_minute: Option<u32>,
    /// "No more than 500 content-generating requests per hour" (same).
    pub content_per_hour: Option<u32>,
    /// "No more than 900 points per minute are allowed for REST API
    /// endpoints" (same), per endpoint, a write costing [`WRITE_POINTS`].
    pub endpoint_points_per_minute: Option<u32>,
    /// The share of each window that background writes leave for writes a
    /// person waits for.
    pub reserve_percent: u32,
    /// Writes of an installation go one at a time: "make requests for a
    /// single user or client ID serially" ("Best practices for using the
    /// REST API").
    pub one_at_a_time: bool,
}

impl Default for Budget {
    /// GitHub.com's limits.
    fn default() -> Self {
        Budget::GITHUB_COM
    }
}

impl Budget {
    /// The limits GitHub.com documents (see the fields).
    pub const GITHUB_COM: Budget = Budget {
        content_per_minute: Some(80),
        content_per_hour: Some(500),
        endpoint_points_per_minute: Some(900),
        reserve_percent: 20,
        one_at_a_time: true,
    };

    /// No limit: GitHub Enterprise Server "Rate limits are disabled by
    /// default" ("Rate limits for the REST API" of GitHub Enterprise Server,
    /// and "Configuring rate limits"), until its administrator sets some.
    pub const UNLIMITED: Budget = Budget {
        content_per_minute: None,
        content_per_hour: None,
        endpoint_points_per_minute: None,
        reserve_percent: 0,
        one_at_a_time: false,
    };

    /// Whether any limit is set: with none, writes are not counted at all.
    pub fn limits_anything(&self) -> bool {
        self.one_at_a_time
            || self.content_per_minute.is_some()
            || self.content_per_hour.is_some()
            || self.endpoint_points_per_minute.is_some()
    }

    /// How many of `limit` a write of `urgency` may find spent.
    fn allowed(&self, limit: u32, urgency: Urgency) -> usize {
        let limit = limit as usize;
        match urgency {
            Urgency::Person => limit,
            Urgency::Background => {
                let reserve = (limit * self.reserve_percent.min(100) as usize).div_ceil(100);
                limit.saturating_sub(reserve).max(1)
            }
        }
    }
}

/// Who waits for a write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Urgency {
    /// A person waits for it: the first answer on a head just pushed.
    #[default]
    Person,
    /// It can wait: a re-check after a base push, a review request.
    Background,
}

impl Urgency {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Urgency::Person => "person",
            Urgency::Background => "background",
        }
    }
}

/// One write the ledger recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spent {
    /// When it was sent (Unix ms).
    pub at_ms: i64,
    /// Its method and route (`POST /repos/{owner}/{name}/check-runs` with the
    /// owner and name as sent).
    pub endpoint: String,
    /// Still unanswered.
    pub in_flight: bool,
}

/// What the budget says of one more write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Go,
    /// Look again after this long.
    Wait(Duration),
}

/// Whether one more write to `endpoint` at `now_ms` stays within `budget`,
/// given the installation's writes of the last hour (`spent`, any order).
pub fn decide(budget: &Budget, spent: &[Spent], endpoint: &str, now_ms: i64, urgency: Urgency) -> Verdict {
    // "Make requests serially instead of concurrently" ("Best practices for
    // using the REST API"): one write of an installation at a time.
    if budget.one_at_a_time && spent.iter().any(|s| s.in_flight && s.at_ms > now_ms - IN_FLIGHT_MS) {
        return Verdict::Wait(Duration::from_millis(IN_FLIGHT_POLL_MS as u64));
    }
    let times = |window: i64, same_endpoint: bool| -> Vec<i64> {
        let mut t: Vec<i64> = spent
            .iter()
            .filter(|s| s.at_ms > now_ms - window && (!same_endpoint || s.endpoint == endpoint))
            .map(|s| s.at_ms)
            .collect();
        t.sort_unstable();
        t
    };
    let mut wait_ms: i64 = 0;
    let windows = [
        (budget.content_per_minute, MINUTE_MS, false, 1),
        (budget.content_per_hour, HOUR_MS, false, 1),
        (budget.endpoint_points_per_minute, MINUTE_MS, true, WRITE_POINTS),
    ];
    for (limit, window, same_endpoint, cost) in windows {
        let Some(limit) = limit else { continue };
        let allowed = budget.allowed(limit / cost, urgency);
        if allowed == 0 {
            // A limit below one write's cost lets none through.
            wait_ms = wait_ms.max(window);
            continue;
        }
        let within = times(window, same_endpoint);
        if within.len() >= allowed {
            // The write may go once enough of these have left the window.
            let leaving = within[within.len() - allowed];
            wait_ms = wait_ms.max(leaving + window - now_ms);
        }
    }
    if wait_ms > 0 { Verdict::Wait(Duration::from_millis(wait_ms as u64)) } else { Verdict::Go }
}

/// Why a write was not let through.
pub(crate) enum Refused {
    /// It may go after this long, more than the caller may sleep.
    Wait(Duration),
    /// The ledger could not be read.
    Ledger(anyhow::Error),
}

/// Waits until `ledger` lets one more write of `installation` to `endpoint`
/// through within `budget`, sleeping at most `max_wait` in all; returns the
/// write's ticket (or why not) and how long it waited.
pub(crate) async fn spend_within(
    ledger: &dyn Ledger,
    budget: &Budget,
    installation: u64,
    endpoint: &str,
    urgency: Urgency,
    max_wait: Duration,
) -> (Result<Ticket, Refused>, Duration) {
    let mut waited = Duration::ZERO;
    loop {
        match ledger.spend(installation, endpoint, urgency, budget).await {
            Ok(Ok(ticket)) => return (Ok(ticket), waited),
            Ok(Err(wait)) if waited + wait > max_wait => return (Err(Refused::Wait(wait)), waited),
            Ok(Err(wait)) => {
                tokio::time::sleep(wait).await;
                waited += wait;
            }
            Err(err) => return (Err(Refused::Ledger(err)), waited),
        }
    }
}

/// How often a write's answer the ledger did not take is offered again.
const RELEASE_RETRY: Duration = Duration::from_millis(250);

/// Records that a write was answered. When the ledger does not take it,
/// it is offered again in the background: left in flight, the write would
/// hold the installation's next one until `IN_FLIGHT_MS` passes.
pub(crate) async fn release(ledger: &Arc<dyn Ledger>, installation: u64, ticket: Ticket) {
    let Err(err) = ledger.release(installation, ticket).await else { return };
    tracing::warn!(error = %err, "cannot record a write's answer in the write budget; trying again");
    let ledger = ledger.clone();
    tokio::spawn(async move {
        for _ in 0..IN_FLIGHT_MS / RELEASE_RETRY.as_millis() as i64 {
            tokio::time::sleep(RELEASE_RETRY).await;
            if ledger.release(installation, ticket).await.is_ok() {
                break;
            }
        }
    });
}

/// A write the ledger let through: released when its answer came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(pub i64);

pub type LedgerFuture<'a, T> = Pin<Box<dyn Future<Output = anyhow::Result<T>> + Send + 'a>>;

/// Where an installation's writes are recorded: the process (one replica) or
/// the store (every replica spends one budget).
pub trait Ledger: Send + Sync + std::fmt::Debug {
    /// Records a write to `endpoint` if `budget` allows it now.
    fn spend<'a>(
        &'a self,
        installation: u64,
        endpoint: &'a str,
        urgency: Urgency,
        budget: &'a Budget,
    ) -> LedgerFuture<'a, Result<Ticket, Duration>>;

    /// The write's answer came (or it failed).
    fn release(&self, installation: u64, ticket: Ticket) -> LedgerFuture<'_, ()>;
}

/// A ledger in this process's memory: the budget of one replica.
#[derive(Debug, Default)]
pub struct MemoryLedger {
    spent: Mutex<HashMap<u64, Vec<(i64, Spent)>>>,
    next: std::sync::atomic::AtomicI64,
}

impl Ledger for MemoryLedger {
    fn spend<'a>(
        &'a self,
        installation: u64,
        endpoint: &'a str,
        urgency: Urgency,
        budget: &'a Budget,
    ) -> LedgerFuture<'a, Result<Ticket, Duration>> {
        Box::pin(async move {
            let now = crate::store::now_ms();
            let mut map = self.spent.lock().unwrap_or_else(|e| e.into_inner());
            let rows = map.entry(installation).or_default();
            rows.retain(|(_, s)| s.at_ms > now - HOUR_MS);
            let spent: Vec<Spent> = rows.iter().map(|(_, s)| s.clone()).collect();
            match decide(budget, &spent, endpoint, now, urgency) {
                Verdict::Wait(wait) => Ok(Err(wait)),
                Verdict::Go => {
                    let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    rows.push((id, Spent { at_ms: now, endpoint: endpoint.to_string(), in_flight: true }));
                    Ok(Ok(Ticket(id)))
                }
            }
        })
    }

    fn release(&self, installation: u64, ticket: Ticket) -> LedgerFuture<'_, ()> {
        Box::pin(async move {
            let mut map = self.spent.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, spent)) =
                map.get_mut(&installation).and_then(|rows| rows.iter_mut().find(|(id, _)| *id == ticket.0))
            {
                spent.in_flight = false;
            }
            Ok(())
        })
    }
}

/// The route of a request for the per-endpoint points: its method and path
/// with numbers and commit SHAs as placeholders, as one endpoint serves them
/// all.
pub(crate) fn endpoint(method: &str, path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    let route: Vec<&str> = path
        .split('/')
        .map(|part| {
            if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                "{n}"
            } else if part.len() == 40 && part.bytes().all(|b| b.is_ascii_hexdigit()) {
                "{sha}"
            } else {
                part
            }
        })
        .collect();
    format!("{method} {}", route.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spent(at_ms: i64, endpoint: &str) -> Spent {
        Spent { at_ms, endpoint: endpoint.into(), in_flight: false }
    }

    const NOW: i64 = 10 * HOUR_MS;
    const RUNS: &str = "POST /repos/a/b/check-runs";

    #[test]
    fn eighty_writes_in_a_minute_make_the_next_wait_for_the_oldest_to_leave() {
        let budget = Budget::GITHUB_COM;
        let writes: Vec<Spent> = (0..80).map(|i| spent(NOW - 30_000 + i, RUNS)).collect();
        assert_eq!(decide(&budget, &writes[..79], RUNS, NOW, Urgency::Person), Verdict::Go);
        // The oldest left 30 s ago + 60 s window: it leaves in 30 s.
        assert_eq!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Wait(Duration::from_millis(30_000)));
    }

    #[test]
    fn five_hundred_in_an_hour_hold_writes_until_the_hour_frees_one() {
        let budget = Budget::GITHUB_COM;
        // Spread over the hour, at most 9 per minute: the minute limit holds.
        let writes: Vec<Spent> = (0..500).map(|i| spent(NOW - HOUR_MS + 1_000 + i * 7_000, "PATCH /x")).collect();
        assert_eq!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Wait(Duration::from_millis(1_000)));
        assert_eq!(decide(&budget, &writes[1..], RUNS, NOW, Urgency::Person), Verdict::Go);
    }

    #[test]
    fn background_writes_leave_the_reserve_to_a_person() {
        let budget = Budget::GITHUB_COM;
        // 64 of 80: the 20% reserve is all that is left.
        let writes: Vec<Spent> = (0..64).map(|i| spent(NOW - 1_000 + i, RUNS)).collect();
        assert_eq!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Go);
        assert!(matches!(decide(&budget, &writes, RUNS, NOW, Urgency::Background), Verdict::Wait(_)));
        assert_eq!(decide(&budget, &writes[1..], RUNS, NOW, Urgency::Background), Verdict::Go);
    }

    #[test]
    fn a_write_in_flight_holds_the_next_one() {
        let budget = Budget { one_at_a_time: true, ..Budget::UNLIMITED };
        let mut writes = vec![spent(NOW - 10, RUNS)];
        assert_eq!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Go);
        writes[0].in_flight = true;
        assert!(matches!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Wait(_)));
        // One unanswered for longer than any timeout is taken as lost.
        writes[0].at_ms = NOW - IN_FLIGHT_MS - 1;
        assert_eq!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Go);
    }

    #[test]
    fn endpoint_points_count_one_endpoint_only() {
        let budget = Budget { content_per_minute: None, content_per_hour: None, ..Budget::GITHUB_COM };
        // 900 points at 5 a write: 180 writes to one endpoint in a minute.
        let writes: Vec<Spent> = (0..180).map(|i| spent(NOW - 50_000 + i, RUNS)).collect();
        assert!(matches!(decide(&budget, &writes, RUNS, NOW, Urgency::Person), Verdict::Wait(_)));
        assert_eq!(decide(&budget, &writes, "PATCH /repos/a/b/check-runs/{n}", NOW, Urgency::Person), Verdict::Go);
    }

    #[test]
    fn an_unlimited_budget_never_waits() {
        let mut writes: Vec<Spent> = (0..5_000).map(|i| spent(NOW - 1_000 + i / 10, RUNS)).collect();
        writes[4_999].in_flight = true;
        assert_eq!(decide(&Budget::UNLIMITED, &writes, RUNS, NOW, Urgency::Background), Verdict::Go);
    }

    #[test]
    fn endpoints_are_routes() {
        assert_eq!(endpoint("PATCH", "/repos/a/b/check-runs/123?x=1"), "PATCH /repos/a/b/check-runs/{n}");
        let sha = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            endpoint("GET", &format!("/repos/a/b/commits/{sha}/check-runs")),
            "GET /repos/a/b/commits/{sha}/check-runs"
        );
    }
}
