//! Group commit for SQLite: deliveries arriving together are stored in one
//! transaction (SQLite has one writer; a commit per delivery would make the
//! receiver wait in line). Each caller is answered after the commit.
//!
//! The committer is a thread of its own with a connection of its own,
//! opened with rusqlite, which runs statements on the calling thread. Through
//! sqlx each statement of a commit (begin, two inserts, commit) is a round
//! trip to the connection's worker thread and back to an async task, two
//! thread wake-ups each. On two cores (`chrt -r 10 loadgen --only http`,
//! three runs each, after one another), taking one of them out (the pool's
//! connection check) raised the acknowledgements at 8 connections from
//! 4,797–5,675/s to 5,685–6,075/s; with the commit on this thread they were
//! 8,508–8,972/s against 4,719–6,081/s, and 13,374–13,826/s against
//! 10,443–12,068/s at 64 connections.
//!
//! The committer also checkpoints the WAL, after it has answered the
//! deliveries of the commit that took the WAL past [`CHECKPOINT_FRAMES`]:
//! SQLite's automatic checkpoint runs inside that commit, so the
//! deliveries it stored would wait for the copy too, though their commit
//! was durable before it began.

use std::cell::Cell;
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use rusqlite::{Connection, hooks::Wal, params_from_iter, types::Value};
use tokio::sync::{mpsc, oneshot};

use super::writer::WriteLock;
use super::{Accepted, NewJob, now_ms};

/// Deliveries per transaction at most.
const MAX_BATCH: usize = 256;

/// The committer checkpoints once a commit leaves this many frames in the
/// WAL (SQLite's own threshold for its automatic checkpoint).
pub(super) const CHECKPOINT_FRAMES: i32 = 1000;

/// When the committer checkpoints next: once a commit leaves
/// [`CHECKPOINT_FRAMES`] frames in the WAL, then every [`CHECKPOINT_FRAMES`]
/// frames more until the WAL starts again from its beginning. A checkpoint
/// leaves the WAL growing when a reader kept it from copying every frame,
/// or when a write began before the copy ended; SQLite's own checkpoint
/// then runs again after every commit, each an fsync of the database file.
#[derive(Debug)]
struct CheckpointDue {
    at: i32,
    /// In the WAL after the last commit.
    frames: i32,
}

impl CheckpointDue {
    fn new() -> CheckpointDue {
        CheckpointDue { at: CHECKPOINT_FRAMES, frames: 0 }
    }

    /// Whether a commit that left `frames` frames in the WAL is due a checkpoint.
    fn after_commit(&mut self, frames: i32) -> bool {
        if frames < self.frames {
            // The WAL started again from its beginning.
            self.at = CHECKPOINT_FRAMES;
        }
        self.frames = frames;
        frames >= self.at
    }

    fn checkpointed(&mut self) {
        self.at = self.frames + CHECKPOINT_FRAMES;
    }
}

thread_local! {
    /// The frames in the WAL after the committing thread's last commit, as
    /// SQLite's WAL hook reports them.
    static WAL_FRAMES: Cell<i32> = const { Cell::new(0) };
}

/// The committing connection's WAL hook: notes the frames in the WAL.
/// Registering it turns SQLite's automatic checkpoint off on that
/// connection (the automatic checkpoint is a WAL hook of SQLite's own).
fn note_wal_frames(_: &Wal, frames: std::ffi::c_int) -> rusqlite::Result<()> {
    WAL_FRAMES.set(frames);
    Ok(())
}

/// One delivery to store.
#[derive(Debug)]
pub(crate) struct Delivery {
    pub id: String,
    pub event: String,
    /// Of the signed body, when there was one: a body seen before is a replay.
    pub digest: Option<String>,
    /// Of the body itself, when the database holds digests of that form: a
    /// body one of them names is a replay too.
    pub body_digest: Option<String>,
    pub jobs: Vec<NewJob>,
}

type Reply = oneshot::Sender<Result<Accepted, String>>;

/// The handle callers send deliveries through.
#[derive(Clone, Debug)]
pub(crate) struct Batcher {
    queue: mpsc::Sender<(Delivery, Reply)>,
    /// SQLite's `synchronous` level on the committing connection (2: FULL).
    synchronous: i64,
}

impl Batcher {
    /// Opens the committing connection on the database file at `path` (in
    /// WAL mode, `synchronous=FULL`: the WAL is fsynced at every commit) and
    /// starts its thread.
    pub(crate) fn start(path: &Path, busy_timeout: Duration, writer: WriteLock) -> Result<Batcher> {
        let connection = Connection::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        connection.busy_timeout(busy_timeout)?;
        let mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(anyhow!("{} cannot be put in WAL mode (it stays in {mode} mode)", path.display()));
        }
        connection.pragma_update(None, "synchronous", "FULL")?;
        let synchronous = connection.query_row("PRAGMA synchronous", [], |row| row.get(0))?;
        // A multi-row insert keeps a statement journal, which past 64 KiB
        // spills to a temporary file created and removed in every commit;
        // in memory it costs no file calls (it holds one statement's undo).
        // Three paired runs of `loadgen --only http --deliveries 10000` at
        // 64 connections: 5,575–6,391 deliveries/s on a file, 7,180–7,644
        // in memory (p99 18.7–24.1 ms against 17.3–19.0).
        connection.pragma_update(None, "temp_store", "MEMORY")?;
        // One statement per batch size seen, of each of the two inserts and
        // of the lookup of bodies by a digest of their bytes.
        connection.set_prepared_statement_cache_capacity(3 * 64);
        let (queue, incoming) = mpsc::channel::<(Delivery, Reply)>(4 * MAX_BATCH);
        std::thread::Builder::new()
            .name("gatehouse-commit".into())
            .spawn(move || {
                connection.wal_hook(Some(note_wal_frames));
                run(connection, &writer, incoming)
            })
            .context("cannot start the committing thread")?;
        Ok(Batcher { queue, synchronous })
    }

    /// SQLite's `synchronous` level on the committing connection (2: FULL).
    pub(crate) fn synchronous(&self) -> i64 {
        self.synchronous
    }

    pub(crate) async fn accept(&self, delivery: Delivery) -> Result<Accepted> {
        let (reply, answer) = oneshot::channel();
        self.queue.send((delivery, reply)).await.map_err(|_| anyhow!("the store is shutting down"))?;
        answer.await.map_err(|_| anyhow!("the store is shutting down"))?.map_err(|e| anyhow!(e))
    }
}

/// Commits what arrives until every sender is gone.
fn run(mut connection: Connection, writer: &WriteLock, mut incoming: mpsc::Receiver<(Delivery, Reply)>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut due = CheckpointDue::new();
    while let Some(first) = incoming.blocking_recv() {
        batch.push(first);
        let outcome = {
            let _guard = writer.ack();
            // Deliveries that arrived meanwhile (while the lock was held by
            // a worker, say) join this commit instead of waiting for the next.
            while batch.len() < MAX_BATCH {
                match incoming.try_recv() {
                    Ok(item) => batch.push(item),
                    Err(_) => break,
                }
            }
            let started = Instant::now();
            let outcome = commit(&mut connection, &batch);
            writer.stats.ack_commit(batch.len(), started.elapsed());
            outcome
        };
        match outcome {
            Ok(results) => {
                for ((_, reply), result) in batch.drain(..).zip(results) {
                    let _ = reply.send(Ok(result));
                }
            }
            Err(err) => {
                let message = format!("{err:#}");
                for (_, reply) in batch.drain(..) {
                    let _ = reply.send(Err(message.clone()));
                }
            }
        }
        if due.after_commit(WAL_FRAMES.get()) {
            checkpoint(&connection, writer);
            due.checkpointed();
        }
    }
}

/// Copies the WAL's frames into the database file, so that the next write
/// starts the WAL again from its beginning. Passive: it copies what no
/// reader still needs and waits for nobody; what it leaves is copied by
/// the next one. A failure is logged: the WAL only grows until then.
fn checkpoint(connection: &Connection, writer: &WriteLock) {
    let started = Instant::now();
    let checkpointed = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    writer.stats.ack_checkpoint(started.elapsed());
    if let Err(err) = checkpointed {
        tracing::warn!(error = %err, "cannot checkpoint the WAL");
    }
}

/// Stores a batch in one transaction with two statements: one multi-row
/// insert of the deliveries (a seen id or body inserts nothing) and one of
/// the new deliveries' jobs. Before them, the bodies known by a digest of
/// the body itself are looked up, and those seen are left out.
fn commit(connection: &mut Connection, batch: &[(Delivery, Reply)]) -> Result<Vec<Accepted>> {
    let now = now_ms();
    let tx = connection.transaction()?;
    let seen = seen_bodies(&tx, batch)?;
    let fresh: Vec<&Delivery> = batch
        .iter()
        .map(|(d, _)| d)
        .filter(|d| d.body_digest.as_ref().is_none_or(|digest| !seen.contains(digest)))
        .collect();
    let mut inserted: HashSet<String> =
        if fresh.is_empty() { HashSet::new() } else { insert_deliveries(&tx, &fresh, now)? };
    // A delivery id (or body) twice in one batch: the first is new, the second a replay.
    let results: Vec<Accepted> = batch
        .iter()
        .map(|(d, _)| match inserted.remove(&d.id) {
            true => Accepted::New { jobs: d.jobs.len() },
            false => Accepted::Duplicate,
        })
        .collect();
    let jobs: Vec<(&Delivery, &NewJob)> = batch
        .iter()
        .zip(&results)
        .filter(|(_, r)| matches!(r, Accepted::New { .. }))
        .flat_map(|((d, _), _)| d.jobs.iter().map(move |j| (d, j)))
        .collect();
    for chunk in jobs.chunks(MAX_BATCH) {
        let rows = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)"; chunk.len()].join(", ");
        let sql = format!(
            "INSERT INTO gh_jobs ({}, state, attempts, not_before, created_at) VALUES {rows}",
            super::job::NEW_JOB_COLUMNS
        );
        let values = chunk.iter().flat_map(|(delivery, job)| {
            let (target, target_pr, target_sha) = job.target_columns();
            [
                Value::Text(delivery.id.clone()),
                Value::Text(job.key()),
                Value::Text(job.repo.clone()),
                Value::Integer(job.installation as i64),
                Value::Text(target.into()),
                target_pr.map_or(Value::Null, Value::Integer),
                target_sha.map_or(Value::Null, |sha| Value::Text(sha.into())),
                Value::Text(job.scope_column().into()),
                Value::Integer(job.once_per_head.into()),
                Value::Text(job.reason.clone()),
                Value::Integer(now),
                Value::Integer(now),
            ]
        });
        tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    }
    tx.commit()?;
    Ok(results)
}

/// The digests of bodies in `batch` that deliveries stored before hold.
fn seen_bodies(tx: &rusqlite::Transaction<'_>, batch: &[(Delivery, Reply)]) -> Result<HashSet<String>> {
    let digests: Vec<Value> = batch.iter().filter_map(|(d, _)| d.body_digest.clone().map(Value::Text)).collect();
    if digests.is_empty() {
        return Ok(HashSet::new());
    }
    let sql = format!("SELECT digest FROM gh_deliveries WHERE digest IN ({})", vec!["?"; digests.len()].join(", "));
    let mut select = tx.prepare_cached(&sql)?;
    Ok(select.query_map(params_from_iter(digests), |row| row.get(0))?.collect::<rusqlite::Result<_>>()?)
}

/// Inserts `deliveries` (a seen id or body inserts nothing): the ids inserted.
fn insert_deliveries(tx: &rusqlite::Transaction<'_>, deliveries: &[&Delivery], now: i64) -> Result<HashSet<String>> {
    let rows = vec!["(?, ?, ?, ?)"; deliveries.len()].join(", ");
    let sql = format!(
        "INSERT INTO gh_deliveries (id, event, received_at, digest) VALUES {rows} ON CONFLICT DO NOTHING RETURNING id"
    );
    let values = deliveries.iter().flat_map(|d| {
        [
            Value::Text(d.id.clone()),
            Value::Text(d.event.clone()),
            Value::Integer(now),
            d.digest.clone().map_or(Value::Null, Value::Text),
        ]
    });
    let mut insert = tx.prepare_cached(&sql)?;
    Ok(insert.query_map(params_from_iter(values), |row| row.get(0))?.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_due_at_the_threshold_and_then_every_threshold_more_until_the_wal_starts_again() {
        let mut due = CheckpointDue::new();
        assert!(!due.after_commit(400));
        assert!(!due.after_commit(999));
        assert!(due.after_commit(1_000));
        due.checkpointed();
        // A reader kept the WAL from starting again: it grows from 1,000.
        assert!(!due.after_commit(1_100));
        assert!(!due.after_commit(1_999));
        assert!(due.after_commit(2_050));
        due.checkpointed();
        // The WAL started again: the threshold is counted from its beginning.
        assert!(!due.after_commit(90));
        assert!(!due.after_commit(999));
        assert!(due.after_commit(1_040));
    }
}
