//! The in-process write lock of the SQLite store: SQLite has one writer,
//! and waiting here is cheaper than SQLITE_BUSY retries. The group
//! committer of accepted deliveries and the workers' writes take it; how
//! long each waits and holds it is counted in [`Stats`].

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{Mutex, MutexGuard};

use super::stats::Stats;

#[derive(Clone, Debug)]
pub(crate) struct WriteLock {
    lock: Arc<Mutex<()>>,
    /// Workers queue here first, so at most one of them is queued on `lock`
    /// ahead of the group committer: an acknowledgement waits for at most
    /// one worker's write, not for every worker's.
    workers: Arc<Mutex<()>>,
    pub stats: Arc<Stats>,
}

/// A worker's place in line for the write lock: at most one worker holds
/// its turn at a time, and only that one waits on the lock itself.
pub(crate) struct Turn<'a> {
    guard: MutexGuard<'a, ()>,
    asked: Instant,
}

/// A worker's hold on the write lock; its length is counted when dropped.
pub(crate) struct WorkerWrite<'a> {
    _guard: MutexGuard<'a, ()>,
    _turn: MutexGuard<'a, ()>,
    since: Instant,
    stats: &'a Stats,
}

impl Drop for WorkerWrite<'_> {
    fn drop(&mut self) {
        self.stats.worker_write_held(self.since.elapsed());
    }
}

impl WriteLock {
    pub(crate) fn new() -> WriteLock {
        WriteLock {
            lock: Arc::new(Mutex::new(())),
            workers: Arc::new(Mutex::new(())),
            stats: Arc::new(Stats::default()),
        }
    }

    /// The lock for a group commit of accepted deliveries, taken by the
    /// committing thread (it blocks: never call it on the runtime).
    pub(crate) fn ack(&self) -> MutexGuard<'_, ()> {
        let asked = Instant::now();
        let guard = self.lock.blocking_lock();
        self.stats.ack_lock_wait(asked.elapsed());
        guard
    }

    /// A worker's turn to write (a claim, a lease, a result) or a
    /// migration's: the lock follows with [`WriteLock::worker`]. A writer
    /// takes its database connection between the two, so a wait for a
    /// pooled connection is never spent holding the lock that the group
    /// commit waits on.
    pub(crate) async fn turn(&self) -> Turn<'_> {
        let asked = Instant::now();
        Turn { guard: self.workers.lock().await, asked }
    }

    /// The lock for the write whose turn it is.
    pub(crate) async fn worker<'a>(&'a self, turn: Turn<'a>) -> WorkerWrite<'a> {
        let guard = self.lock.lock().await;
        self.stats.worker_lock_wait(turn.asked.elapsed());
        WorkerWrite { _guard: guard, _turn: turn.guard, since: Instant::now(), stats: &self.stats }
    }
}
