//! What GitHub's rate limits ask of a client, per installation ("Rate limits
//! for the REST API", "Rate limits and node limits for the GraphQL API",
//! "Best practices for using the REST API"): once GitHub says to wait (a
//! `retry-after`, or `x-ratelimit-reset` with nothing remaining), no request
//! for that installation goes out before then, as requests during a limit can
//! get an integration banned; writes (POST, PATCH, PUT, DELETE and GraphQL
//! mutations) go out one at a time (the budget of how many may go out is
//! `budget`'s).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

#[derive(Debug, Default)]
pub(super) struct Limits {
    /// Installation → when GitHub lets its requests through again.
    blocked: Mutex<HashMap<u64, Instant>>,
    /// Installation → its write turn (held while a write is in flight).
    writes: Mutex<HashMap<u64, Arc<AsyncMutex<()>>>>,
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
