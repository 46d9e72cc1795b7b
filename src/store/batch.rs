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
//! The replay digests of the deliveries are indexed in the same
//! transaction, in a file of their own that is not fsynced at commit (see
//! `digests`).
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

use super::digests;
use super::writer::WriteLock;
use super::{Accepted, NewJob, SIGNED_DIGEST, now_ms};

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
    /// SQLite's WAL hook reports them (the replay digests' file has no WAL).
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

/// What the committing thread is asked.
#[derive(Debug)]
enum Request {
    Store(Delivery, Reply),
    /// Mark the replay digests' file closed and stop.
    Close(oneshot::Sender<Result<(), String>>),
}

/// The handle callers send deliveries through.
#[derive(Clone, Debug)]
pub(crate) struct Batcher {
    queue: mpsc::Sender<Request>,
    /// SQLite's `synchronous` level on the committing connection (2: FULL).
    synchronous: i64,
    /// Whether digests of bodies themselves are indexed (see `Store`).
    body_digests: bool,
}

impl Batcher {
    /// Opens the committing connection on the database file at `path` (in
    /// WAL mode, `synchronous=FULL`: the WAL is fsynced at every commit),
    /// opens the replay digests' file (see `digests`) and starts its
    /// thread. Run it once the database is migrated, off the runtime: the
    /// digests of deliveries the file lacks are indexed first.
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
        // One statement per batch size seen, of each of the three inserts and
        // of the lookup of digests, and the note of the last one indexed.
        connection.set_prepared_statement_cache_capacity(4 * 64 + 1);
        // Another store holding the file is waited for this long (a store
        // of this process dropped a moment ago lets it go within it).
        connection.busy_timeout(Duration::from_secs(1))?;
        let refusal = match digests::open(&connection, path) {
            Ok(()) => None,
            Err(err) if digests::is_busy(&err) => {
                tracing::warn!(error = %format!("{err:#}"), "this store refuses deliveries");
                Some(format!("{err:#}"))
            }
            Err(err) => return Err(err),
        };
        connection.busy_timeout(busy_timeout)?;
        let body_digests = refusal.is_none() && digests::holds_body_digests(&connection, SIGNED_DIGEST)?;
        let (queue, incoming) = mpsc::channel::<Request>(4 * MAX_BATCH);
        let database = path.to_owned();
        std::thread::Builder::new()
            .name("gatehouse-commit".into())
            .spawn(move || {
                connection.wal_hook(Some(note_wal_frames));
                match refusal {
                    None => run(connection, &database, &writer, incoming),
                    Some(refusal) => refuse(&refusal, incoming),
                }
            })
            .context("cannot start the committing thread")?;
        Ok(Batcher { queue, synchronous, body_digests })
    }

    /// SQLite's `synchronous` level on the committing connection (2: FULL).
    pub(crate) fn synchronous(&self) -> i64 {
        self.synchronous
    }

    /// Whether digests of bodies themselves are indexed.
    pub(crate) fn body_digests(&self) -> bool {
        self.body_digests
    }

    pub(crate) async fn accept(&self, delivery: Delivery) -> Result<Accepted> {
        let (reply, answer) = oneshot::channel();
        self.queue.send(Request::Store(delivery, reply)).await.map_err(|_| anyhow!("the store is closed"))?;
        answer.await.map_err(|_| anyhow!("the store is closed"))?.map_err(|e| anyhow!(e))
    }

    /// Stops the committing thread once the deliveries sent before are
    /// stored, marks the replay digests' file closed (the next start
    /// trusts it) and closes its connection; deliveries sent after are
    /// refused.
    pub(crate) async fn close(&self) -> Result<()> {
        let (reply, answer) = oneshot::channel();
        if self.queue.send(Request::Close(reply)).await.is_err() {
            return Ok(());
        }
        answer.await.map_err(|_| anyhow!("the store is closed"))?.map_err(|e| anyhow!(e))
    }
}

/// Commits what arrives until asked to close or every sender is gone.
fn run(mut connection: Connection, database: &Path, writer: &WriteLock, mut incoming: mpsc::Receiver<Request>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut due = CheckpointDue::new();
    let mut closing = None;
    while let Some(first) = incoming.blocking_recv() {
        match first {
            Request::Store(delivery, reply) => batch.push((delivery, reply)),
            Request::Close(reply) => closing = Some(reply),
        }
        let outcome = {
            let _guard = writer.ack();
            // Deliveries that arrived meanwhile (while the lock was held by
            // a worker, say) join this commit instead of waiting for the next.
            while closing.is_none() && batch.len() < MAX_BATCH {
                match incoming.try_recv() {
                    Ok(Request::Store(delivery, reply)) => batch.push((delivery, reply)),
                    Ok(Request::Close(reply)) => closing = Some(reply),
                    Err(_) => break,
                }
            }
            if batch.is_empty() {
                Ok(Vec::new())
            } else {
                let started = Instant::now();
                let outcome = commit(&mut connection, &batch);
                writer.stats.ack_commit(batch.len(), started.elapsed());
                outcome
            }
        };
        match outcome {
            Ok(results) => {
                for ((_, reply), result) in batch.drain(..).zip(results) {
                    let _ = reply.send(Ok(result));
                }
            }
            Err(failure) => {
                let message = failure.to_string();
                for (_, reply) in batch.drain(..) {
                    let _ = reply.send(Err(message.clone()));
                }
                if failure.may_leave_the_digests_behind() {
                    let _guard = writer.ack();
                    if let Err(err) = digests::reopen_after_failure(&connection, database) {
                        tracing::error!(error = %format!("{err:#}"), "cannot make the replay-digest index again");
                    }
                }
            }
        }
        if let Some(reply) = closing {
            let _guard = writer.ack();
            let marked = digests::close(&connection).map_err(|err| format!("{err:#}"));
            // Closing the connection checkpoints the WAL into the database
            // file; `close` returns only once it has, so whoever copies or
            // replaces the file after it (a restore) is not written over.
            drop(connection);
            let _ = reply.send(marked);
            return;
        }
        if due.after_commit(WAL_FRAMES.get()) {
            checkpoint(&connection, writer);
            due.checkpointed();
        }
    }
}

/// Answers every delivery with `refusal`, until asked to close or every
/// sender is gone: the replay digests' file is another store's.
fn refuse(refusal: &str, mut incoming: mpsc::Receiver<Request>) {
    while let Some(request) = incoming.blocking_recv() {
        match request {
            Request::Store(_, reply) => {
                let _ = reply.send(Err(refusal.to_string()));
            }
            Request::Close(reply) => {
                let _ = reply.send(Ok(()));
                return;
            }
        }
    }
}

/// Copies the WAL's frames into the database file, so that the next write
/// starts the WAL again from its beginning. Passive: it copies what no
/// reader still needs and waits for nobody; what it leaves is copied by
/// the next one. A failure is logged: the WAL only grows until then.
fn checkpoint(connection: &Connection, writer: &WriteLock) {
    let started = Instant::now();
    let checkpointed = connection.query_row("PRAGMA main.wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    writer.stats.ack_checkpoint(started.elapsed());
    if let Err(err) = checkpointed {
        tracing::warn!(error = %err, "cannot checkpoint the WAL");
    }
}

/// Stores a batch in one transaction: the digests of its bodies are looked
/// up first and a body seen before (or earlier in the batch) is left out;
/// then one multi-row insert of the deliveries (a seen id inserts nothing),
/// one of the new deliveries' digests (into the replay digests' file, see
/// `digests`) and one of their jobs.
fn commit(connection: &mut Connection, batch: &[(Delivery, Reply)]) -> Result<Vec<Accepted>, Failure> {
    let now = now_ms();
    let tx = connection.transaction()?;
    let seen = seen_digests(&tx, batch)?;
    let mut in_batch = HashSet::new();
    let fresh: Vec<&Delivery> = batch
        .iter()
        .map(|(d, _)| d)
        .filter(|d| {
            let replayed = [&d.digest, &d.body_digest].into_iter().flatten().any(|digest| seen.contains(digest));
            let again = d.digest.as_deref().is_some_and(|digest| !in_batch.insert(digest));
            !replayed && !again
        })
        .collect();
    let inserted = if fresh.is_empty() { Vec::new() } else { insert_deliveries(&tx, &fresh, now)? };
    let mut new: HashSet<&str> = inserted.iter().map(|(id, _)| id.as_str()).collect();
    // A delivery id twice in one batch: the first is new, the second a replay.
    let results: Vec<Accepted> = batch
        .iter()
        .map(|(d, _)| match new.remove(d.id.as_str()) {
            true => Accepted::New { jobs: d.jobs.len() },
            false => Accepted::Duplicate,
        })
        .collect();
    let stored: Vec<&Delivery> =
        batch.iter().zip(&results).filter(|(_, r)| matches!(r, Accepted::New { .. })).map(|((d, _), _)| d).collect();
    index_digests(&tx, &stored)?;
    if let Some((id, rowid)) = inserted.iter().max_by_key(|(_, rowid)| *rowid) {
        digests::note_indexed(&tx, *rowid, id)?;
    }
    let jobs: Vec<(&Delivery, &NewJob)> = stored.iter().flat_map(|d| d.jobs.iter().map(move |j| (*d, j))).collect();
    for chunk in jobs.chunks(MAX_BATCH) {
        let rows = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)"; chunk.len()].join(", ");
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
                job.command_column().map_or(Value::Null, Value::Text),
                Value::Integer(now),
                Value::Integer(now),
            ]
        });
        tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    }
    tx.commit().map_err(Failure::Commit)?;
    Ok(results)
}

/// Why a batch was not stored.
#[derive(Debug, thiserror::Error)]
enum Failure {
    /// A statement before the commit failed: nothing was kept.
    #[error("{0:#}")]
    Statements(#[from] anyhow::Error),
    /// The commit failed: the database's part of it may have been kept
    /// and the replay digests' not (each file commits on its own).
    #[error("{0}")]
    Commit(rusqlite::Error),
}

impl Failure {
    /// Whether the replay digests' file may now lack digests of deliveries
    /// the database holds, or cannot be read: then it is made again.
    fn may_leave_the_digests_behind(&self) -> bool {
        match self {
            Failure::Commit(_) => true,
            Failure::Statements(err) => matches!(
                digests::sqlite_code(err),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            ),
        }
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(err: rusqlite::Error) -> Failure {
        Failure::Statements(err.into())
    }
}

/// The digests of bodies in `batch` (of their signature, or of the body
/// itself) that deliveries stored before hold.
fn seen_digests(tx: &rusqlite::Transaction<'_>, batch: &[(Delivery, Reply)]) -> Result<HashSet<String>> {
    let digests: Vec<Value> = batch
        .iter()
        .flat_map(|(d, _)| [&d.digest, &d.body_digest])
        .flatten()
        .map(|digest| Value::Text(digest.clone()))
        .collect();
    if digests.is_empty() {
        return Ok(HashSet::new());
    }
    let sql = format!(
        "SELECT digest FROM {}.replay_digests WHERE digest IN ({})",
        digests::SCHEMA,
        vec!["?"; digests.len()].join(", ")
    );
    let mut select = tx.prepare_cached(&sql)?;
    Ok(select.query_map(params_from_iter(digests), |row| row.get(0))?.collect::<rusqlite::Result<_>>()?)
}

/// Inserts `deliveries` (a seen id inserts nothing): the ids and row ids inserted.
fn insert_deliveries(tx: &rusqlite::Transaction<'_>, deliveries: &[&Delivery], now: i64) -> Result<Vec<(String, i64)>> {
    let rows = vec!["(?, ?, ?, ?)"; deliveries.len()].join(", ");
    let sql = format!(
        "INSERT INTO gh_deliveries (id, event, received_at, digest) VALUES {rows} ON CONFLICT DO NOTHING \
         RETURNING id, rowid"
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
    Ok(insert
        .query_map(params_from_iter(values), |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?)
}

/// Indexes the digests of the deliveries stored.
fn index_digests(tx: &rusqlite::Transaction<'_>, stored: &[&Delivery]) -> Result<()> {
    let digests: Vec<Value> = stored.iter().filter_map(|d| d.digest.clone().map(Value::Text)).collect();
    if digests.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "INSERT OR IGNORE INTO {}.replay_digests (digest) VALUES {}",
        digests::SCHEMA,
        vec!["(?)"; digests.len()].join(", ")
    );
    tx.prepare_cached(&sql)?.execute(params_from_iter(digests))?;
    Ok(())
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
