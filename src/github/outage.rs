//! GitHub as a whole being down. When a call has failed through all its
//! retries for want of an answer, the App stops sending: workers wait, and
//! one job at a time is let through per probe interval (doubled while the
//! outage lasts, up to a cap). The first answer from GitHub ends the outage.
//! Deliveries keep being acknowledged meanwhile; their jobs wait and
//! coalesce, so after recovery each PR is evaluated once at its newest head.

use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug)]
struct State {
    down: bool,
    next_probe: Instant,
    interval: Duration,
}

#[derive(Debug)]
pub(super) struct Outage {
    state: Mutex<State>,
    first: Duration,
    max: Duration,
}

impl Outage {
    pub(super) fn new(first: Duration, max: Duration) -> Outage {
        Outage { state: Mutex::new(State { down: false, next_probe: Instant::now(), interval: first }), first, max }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn is_down(&self) -> bool {
        self.lock().down
    }

    /// While GitHub is down: how long until the next probe is due. `None`:
    /// go ahead (GitHub is up, or the caller is the probe).
    pub(super) fn wait(&self) -> Option<Duration> {
        let mut state = self.lock();
        if !state.down {
            return None;
        }
        let now = Instant::now();
        if now >= state.next_probe {
            state.next_probe = now + state.interval;
            return None;
        }
        Some(state.next_probe - now)
    }

    /// A call got no answer through all its retries. True when this starts
    /// an outage.
    pub(super) fn failed(&self) -> bool {
        let mut state = self.lock();
        let started = !state.down;
        state.interval = if started { self.first } else { (state.interval * 2).min(self.max) };
        state.down = true;
        state.next_probe = Instant::now() + state.interval;
        started
    }

    /// GitHub answered. True when this ends an outage.
    pub(super) fn answered(&self) -> bool {
        let mut state = self.lock();
        std::mem::replace(&mut state.down, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_probe_per_interval_while_down() {
        let outage = Outage::new(Duration::from_secs(60), Duration::from_secs(300));
        assert_eq!(outage.wait(), None, "up: everyone goes");
        assert!(outage.failed());
        assert!(outage.wait().is_some_and(|w| w > Duration::from_secs(59)), "down: wait for the probe");
        assert!(!outage.failed(), "already down: the interval doubles");
        assert!(outage.wait().is_some_and(|w| w > Duration::from_secs(119)));
        assert!(outage.answered());
        assert!(!outage.answered());
        assert_eq!(outage.wait(), None);
        let quick = Outage::new(Duration::ZERO, Duration::ZERO);
        quick.failed();
        assert_eq!(quick.wait(), None, "the probe is due");
        assert!(quick.is_down());
    }
}
