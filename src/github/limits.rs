//! What GitHub's rate limits ask of a client, per installation ("Rate limits
//! for the REST API", "Rate limits and node limits for the GraphQL API",
//! "Best practices for using the REST API"): once GitHub says to wait (a
//! `retry-after`, or `x-ratelimit-reset` with nothing remaining), no request
//! for that installation goes out before then, as requests during a limit can
//! get an integration banned; writes (POST, PATCH, PUT, DELETE and GraphQL
//! mutations) go out one at a time (the budget of how many may go out is
//! `budget`'s). The wait is the installation's, not the call's: every worker
//! of the process holds it ([`Limits`]), and every replica through the store
//! ([`Pauses`]). When it is over, calls a person waits for go first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use super::budget::LedgerFuture;

/// Where an installation's pause is shared with the other replicas (the
/// App's store): when GitHub lets its requests through again, in Unix ms.
pub trait Pauses: Send + Sync + std::fmt::Debug {
    /// GitHub asked the installation to wait until `until_ms`; a later end
    /// already recorded is kept.
    fn pause(&self, installation: u64, until_ms: i64) -> LedgerFuture<'_, ()>;

    /// The end of the installation's latest pause, if one was recorded.
    fn paused_until(&self, installation: u64) -> LedgerFuture<'_, Option<i64>>;
}

#[derive(Debug, Default)]
pub(super) struct Limits {
    /// Installation → when GitHub lets its requests through again.
    blocked: Mutex<HashMap<u64, Instant>>,
    /// Installation → its write turn (held while a write is in flight).
    writes: Mutex<HashMap<u64, Arc<AsyncMutex<()>>>>,
    /// Installation → its calls a person waits for that are waiting out a
    /// pause: its background calls go after them.
    people_waiting: Arc<Mutex<HashMap<u64, usize>>>,
}

/// A call a person waits for, waiting out its installation's pause: counted
/// until dropped.
pub(super) struct PersonWaiting {
    installation: u64,
    people_waiting: Arc<Mutex<HashMap<u64, usize>>>,
}

impl Drop for PersonWaiting {
    fn drop(&mut self) {
        let mut waiting = self.people_waiting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = waiting.get_mut(&self.installation) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                waiting.remove(&self.installation);
            }
        }
    }
}

/// The right to send one write: held until its answer came.
pub(super) struct WriteSlot {
    _turn: OwnedMutexGuard<()>,
}

impl Limits {
    /// How long the installation must still wait; `None`: go ahead.
    pub(super) fn blocked_for(&self, installation: u64) -> Option<Duration> {
        let blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        let until = *blocked.get(&installation)?;
        let now = Instant::now();
        (until > now).then(|| until - now)
    }

    /// GitHub said to wait `wait` before the installation's next request.
    pub(super) fn block(&self, installation: u64, wait: Duration) {
        let until = Instant::now() + wait;
        let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        let entry = blocked.entry(installation).or_insert(until);
        *entry = (*entry).max(until);
    }

    /// Counts a call a person waits for as waiting out the installation's
    /// pause, until the returned guard is dropped.
    pub(super) fn person_waiting(&self, installation: u64) -> PersonWaiting {
        let mut waiting = self.people_waiting.lock().unwrap_or_else(|e| e.into_inner());
        *waiting.entry(installation).or_default() += 1;
        PersonWaiting { installation, people_waiting: self.people_waiting.clone() }
    }

    /// Whether a call a person waits for is still waiting out the
    /// installation's pause.
    pub(super) fn people_waiting(&self, installation: u64) -> bool {
        let waiting = self.people_waiting.lock().unwrap_or_else(|e| e.into_inner());
        waiting.get(&installation).is_some_and(|n| *n > 0)
    }

    /// Waits for the installation's other writes in this process, then
    /// hands out the slot for this one.
    pub(super) async fn write_slot(&self, installation: u64) -> WriteSlot {
        let lock = {
            let mut writes = self.writes.lock().unwrap_or_else(|e| e.into_inner());
            writes.entry(installation).or_default().clone()
        };
        WriteSlot { _turn: lock.lock_owned().await }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_lasts_until_the_latest_wait_given() {
        let limits = Limits::default();
        assert_eq!(limits.blocked_for(1), None);
        limits.block(1, Duration::from_secs(60));
        limits.block(1, Duration::from_secs(5));
        assert!(limits.blocked_for(1).is_some_and(|w| w > Duration::from_secs(59)), "the longer wait holds");
        assert_eq!(limits.blocked_for(2), None, "another installation is not held");
    }

    #[test]
    fn people_waiting_are_counted_until_their_guards_drop() {
        let limits = Limits::default();
        let (first, second) = (limits.person_waiting(1), limits.person_waiting(1));
        assert!(limits.people_waiting(1));
        assert!(!limits.people_waiting(2), "another installation's background calls do not wait");
        drop(first);
        assert!(limits.people_waiting(1), "one is still waiting");
        drop(second);
        assert!(!limits.people_waiting(1));
    }

    #[tokio::test]
    async fn writes_are_one_at_a_time() {
        let limits = Arc::new(Limits::default());
        let first = limits.write_slot(1).await;
        let waiting = tokio::spawn({
            let limits = limits.clone();
            async move {
                let _slot = limits.write_slot(1).await;
                Instant::now()
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "a second write waits for the first");
        let _other = limits.write_slot(2).await;
        let released = Instant::now();
        drop(first);
        let started = waiting.await.unwrap();
        assert!(started >= released, "and goes once it is answered");
    }
}
