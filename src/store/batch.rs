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

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use rusqlite::{Connection, params_from_iter, types::Value};
use tokio::sync::{mpsc, oneshot};

use super::writer::WriteLock;
use super::{Accepted, NewJob, now_ms};

/// Deliveries per transaction at most.
const MAX_BATCH: usize = 256;

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
        // One statement per batch size seen, of each of the two inserts and
        // of the lookup of bodies by a digest of their bytes.
        connection.set_prepared_statement_cache_capacity(3 * 64);
        let (queue, incoming) = mpsc::channel::<(Delivery, Reply)>(4 * MAX_BATCH);
        std::thread::Builder::new()
            .name("gatehouse-commit".into())
            .spawn(move || run(connection, &writer, incoming))
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
