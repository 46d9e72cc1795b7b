//! WAL checkpoints off the commit path. SQLite's automatic checkpoint runs
//! inside the commit that crosses 1,000 WAL pages: that commit (a group
//! commit of deliveries waiting for their 202, or a worker's write holding
//! the write lock) copies the pages into the database file and fsyncs it
//! first. The store turns it off on every connection and checkpoints here
//! instead, on a connection of its own, without the write lock: a PASSIVE
//! checkpoint copies what no reader still needs while commits go on
//! appending to the WAL.

use std::sync::Weak;
use std::time::{Duration, Instant};

use sqlx::{Row, SqlitePool};

use super::stats::Stats;

/// How often the WAL is copied into the database: often enough that each
/// checkpoint has little to copy, and the WAL file stays small.
pub(crate) const INTERVAL: Duration = Duration::from_millis(250);

/// Checkpoints every [`INTERVAL`] until the store is dropped (its counters
/// with it).
pub(crate) fn start(pool: SqlitePool, stats: Weak<Stats>) {
    tokio::spawn(async move {
        let mut copied_before = 0i64;
        loop {
            tokio::time::sleep(INTERVAL).await;
            let Some(stats) = stats.upgrade() else { break };
            let started = Instant::now();
            let row = match sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(&pool).await {
                Ok(row) => row,
                Err(err) => {
                    tracing::warn!(error = %err, "cannot checkpoint the WAL");
                    continue;
                }
            };
            // (busy, frames in the WAL, frames copied into the database):
            // a WAL restarted since the last checkpoint counts from zero.
            let copied: i64 = row.try_get(2).unwrap_or(0);
            let new = if copied >= copied_before { copied - copied_before } else { copied };
            copied_before = copied;
            if new > 0 {
                stats.checkpoint(new as u64, started.elapsed());
            }
        }
    });
}
