//! The App's clock for what it schedules in days (review reminders). In
//! `serve` it is the system's; a test moves it forward, so a schedule is
//! tested on time that elapsed for the App, not on days made shorter.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use crate::store::now_ms;

/// The system's time, plus however far a test moved it forward.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    ahead_ms: Arc<AtomicI64>,
}

impl Clock {
    /// The system's time.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// Milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> i64 {
        now_ms().saturating_add(self.ahead_ms.load(Ordering::Relaxed))
    }

    /// Moves this clock (and every copy of it) forward by `by`: for the App
    /// that much time has passed.
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.ahead_ms.fetch_add(ms, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_clock_is_ahead_in_every_copy() {
        let clock = Clock::system();
        let copy = clock.clone();
        let before = copy.now_ms();
        clock.advance(Duration::from_secs(36 * 3600));
        let ahead = copy.now_ms() - before;
        assert!((36 * 3600 * 1000..37 * 3600 * 1000).contains(&ahead), "{ahead} ms");
    }
}
