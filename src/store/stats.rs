//! Where the SQLite store spends the acknowledgement path's time: group
//! commits (each one fsync of the WAL, `synchronous=FULL`), the WAL
//! checkpoints the committer runs after answering a commit that left 1,000
//! frames or more in the WAL, waits for the in-process write lock, and the
//! workers' time holding it. Read by the loadgen to explain its latency
//! tail.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A count, a total and a maximum of durations, in microseconds.
#[derive(Debug, Default)]
struct Timer {
    count: AtomicU64,
    total: AtomicU64,
    max: AtomicU64,
    /// Of them, how many took 10 ms or more.
    slow: AtomicU64,
}

impl Timer {
    fn record(&self, took: Duration) {
        let micros = took.as_micros().min(u64::MAX as u128) as u64;
        self.count.fetch_add(1, Ordering::Relaxed);
        self.total.fetch_add(micros, Ordering::Relaxed);
        self.max.fetch_max(micros, Ordering::Relaxed);
        if took >= Duration::from_millis(10) {
            self.slow.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn take(&self) -> Timing {
        Timing {
            count: self.count.swap(0, Ordering::Relaxed),
            total: Duration::from_micros(self.total.swap(0, Ordering::Relaxed)),
            max: Duration::from_micros(self.max.swap(0, Ordering::Relaxed)),
            slow: self.slow.swap(0, Ordering::Relaxed),
        }
    }
}

/// The store's counters, shared by its clones.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    ack_commit: Timer,
    ack_deliveries: AtomicU64,
    ack_checkpoint: Timer,
    ack_lock_wait: Timer,
    worker_lock_wait: Timer,
    worker_lock_held: Timer,
}

impl Stats {
    /// A group commit of `deliveries` deliveries took `took` (statements,
    /// commit and its fsync).
    pub(crate) fn ack_commit(&self, deliveries: usize, took: Duration) {
        self.ack_commit.record(took);
        self.ack_deliveries.fetch_add(deliveries as u64, Ordering::Relaxed);
    }

    /// A checkpoint of the WAL by the group committer took `took`.
    pub(crate) fn ack_checkpoint(&self, took: Duration) {
        self.ack_checkpoint.record(took);
    }

    /// The group committer waited `took` for the write lock.
    pub(crate) fn ack_lock_wait(&self, took: Duration) {
        self.ack_lock_wait.record(took);
    }

    /// A worker's write waited `took` for the write lock.
    pub(crate) fn worker_lock_wait(&self, took: Duration) {
        self.worker_lock_wait.record(took);
    }

    /// A worker's write held the write lock for `took`.
    pub(crate) fn worker_write_held(&self, took: Duration) {
        self.worker_lock_held.record(took);
    }

    /// The counts since the last call; they start again from zero.
    pub(crate) fn take(&self) -> StoreStats {
        StoreStats {
            ack_commits: self.ack_commit.take(),
            ack_deliveries: self.ack_deliveries.swap(0, Ordering::Relaxed),
            checkpoints: self.ack_checkpoint.take(),
            ack_lock_waits: self.ack_lock_wait.take(),
            worker_lock_waits: self.worker_lock_wait.take(),
            worker_lock_holds: self.worker_lock_held.take(),
        }
    }
}

/// Durations of one kind of event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    pub count: u64,
    pub total: Duration,
    pub max: Duration,
    /// Of them, how many took 10 ms or more.
    pub slow: u64,
}

impl Timing {
    pub(crate) fn mean(&self) -> Duration {
        match self.count {
            0 => Duration::ZERO,
            n => Duration::from_secs_f64(self.total.as_secs_f64() / n as f64),
        }
    }
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:>7} × mean {:>7.3} ms, max {:>8.2} ms, {:>5} ≥ 10 ms",
            self.count,
            self.mean().as_secs_f64() * 1e3,
            self.max.as_secs_f64() * 1e3,
            self.slow
        )
    }
}

/// What the SQLite store counted over a period (zero on PostgreSQL).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Group commits of accepted deliveries: one WAL fsync each.
    pub ack_commits: Timing,
    pub ack_deliveries: u64,
    /// The group committer's checkpoints of the WAL, each after it answered
    /// the commit that left 1,000 frames or more in it.
    pub checkpoints: Timing,
    /// The group committer's waits for the write lock.
    pub ack_lock_waits: Timing,
    /// The workers' waits for the write lock, and how long they held it.
    pub worker_lock_waits: Timing,
    pub worker_lock_holds: Timing,
}
