//! Group commit for SQLite: deliveries arriving together are stored in one
//! transaction (SQLite has one writer; a commit per delivery would make the
//! receiver wait in line). Each caller is answered after the commit.

use std::collections::HashSet;
use std::time::Instant;

use anyhow::{Result, anyhow};
use sqlx::{AssertSqlSafe, SqlitePool};
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
    pub jobs: Vec<NewJob>,
}

type Reply = oneshot::Sender<Result<Accepted, String>>;

/// The handle callers send deliveries through.
#[derive(Clone, Debug)]
pub(crate) struct Batcher {
    queue: mpsc::Sender<(Delivery, Reply)>,
    /// The connection deliveries are committed on.
    pool: SqlitePool,
}

impl Batcher {
    pub(crate) fn start(pool: SqlitePool, writer: WriteLock) -> Batcher {
        let (queue, mut incoming) = mpsc::channel::<(Delivery, Reply)>(4 * MAX_BATCH);
        let committer = pool.clone();
        tokio::spawn(async move {
            let pool = committer;
            let mut batch = Vec::with_capacity(MAX_BATCH);
            while incoming.recv_many(&mut batch, MAX_BATCH).await > 0 {
                let outcome = {
                    let _guard = writer.ack().await;
                    // Deliveries that arrived while the lock was held by a
                    // worker join this commit instead of waiting for the next.
                    while batch.len() < MAX_BATCH {
                        match incoming.try_recv() {
                            Ok(item) => batch.push(item),
                            Err(_) => break,
                        }
                    }
                    let started = Instant::now();
                    let outcome = commit(&pool, &batch).await;
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
        });
        Batcher { queue, pool }
    }

    /// SQLite's `synchronous` level on the committing connection (2: FULL).
    pub(crate) async fn synchronous(&self) -> Result<i64> {
        Ok(sqlx::query_scalar("PRAGMA synchronous").fetch_one(&self.pool).await?)
    }

    pub(crate) async fn accept(&self, delivery: Delivery) -> Result<Accepted> {
        let (reply, answer) = oneshot::channel();
        self.queue.send((delivery, reply)).await.map_err(|_| anyhow!("the store is shutting down"))?;
        answer.await.map_err(|_| anyhow!("the store is shutting down"))?.map_err(|e| anyhow!(e))
    }
}

/// Stores a batch with two statements: one multi-row insert of the
/// deliveries (a seen id inserts nothing) and one of the new deliveries' jobs.
async fn commit(pool: &SqlitePool, batch: &[(Delivery, Reply)]) -> Result<Vec<Accepted>> {
    let now = now_ms();
    let mut tx = pool.begin().await?;
    let rows = vec!["(?, ?, ?, ?)"; batch.len()].join(", ");
    let sql = format!(
        "INSERT INTO gh_deliveries (id, event, received_at, digest) VALUES {rows} ON CONFLICT DO NOTHING RETURNING id"
    );
    let mut insert = sqlx::query_scalar::<_, String>(AssertSqlSafe(sql));
    for (delivery, _) in batch {
        insert = insert.bind(&delivery.id).bind(&delivery.event).bind(now).bind(delivery.digest.as_deref());
    }
    let mut inserted: HashSet<String> = insert.fetch_all(&mut *tx).await?.into_iter().collect();
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
        let mut insert = sqlx::query(AssertSqlSafe(sql));
        for (delivery, job) in chunk {
            let (target, target_pr, target_sha) = job.target_columns();
            insert = insert
                .bind(&delivery.id)
                .bind(job.key())
                .bind(&job.repo)
                .bind(job.installation as i64)
                .bind(target)
                .bind(target_pr)
                .bind(target_sha)
                .bind(job.scope_column())
                .bind(job.once_per_head)
                .bind(&job.reason)
                .bind(now)
                .bind(now);
        }
        insert.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(results)
}
