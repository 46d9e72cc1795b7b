//! The job queue: jobs claimed under their PR's lock with a lease, coalesced
//! per PR, put back with a delay, resolved from a head commit to its PRs.

use std::time::Duration;

use anyhow::Result;
use sqlx::{Postgres, Row, Sqlite, Transaction};

use super::{CANDIDATES, CANDIDATES_SKIP_LOCKED, Engine, Job, Store, now_ms};

/// Queued, or running with a lapsed lease: work a claim may take or coalesce.
const WAITING: &str = "(state = 'queued' OR (state = 'running' AND lease_until < $2))";

/// Runs `$body` in a transaction on either engine (SQLite's writes
/// serialised in-process), committing when it returns.
macro_rules! in_transaction {
    ($store:expr, $candidates:ident, |$tx:ident| $body:expr) => {
        match &$store.engine {
            Engine::Sqlite { pool, writer, .. } => {
                let _guard = writer.worker().await;
                let mut $tx: Transaction<'_, Sqlite> = pool.begin().await?;
                let $candidates = CANDIDATES;
                let out = $body;
                $tx.commit().await?;
                out
            }
            Engine::Postgres(pool) => {
                let mut $tx: Transaction<'_, Postgres> = pool.begin().await?;
                let $candidates = CANDIDATES_SKIP_LOCKED;
                let out = $body;
                $tx.commit().await?;
                out
            }
        }
    };
}

/// Frees a PR's lock held by `worker`, in the open transaction `tx`.
macro_rules! unlock {
    ($tx:ident, $key:expr, $worker:expr) => {
        sqlx::query("DELETE FROM gh_pr_locks WHERE pr_key = $1 AND owner = $2")
            .bind($key)
            .bind($worker)
            .execute(&mut *$tx)
            .await?
    };
}

impl Store {
    /// Claims the next job for `worker`, leased for `lease`, with its PR's
    /// lock: a PR is evaluated by one worker at a time whatever made its
    /// jobs. Waiting jobs of the PR coalesce: the newest job that evaluates
    /// every check is claimed and every other waiting job of the PR is
    /// superseded (it covers them); with none, the newest job for one check
    /// is claimed and older jobs for the same check are superseded.
    pub async fn claim(&self, worker: &str, lease: Duration) -> Result<Option<Job>> {
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        let claimed = in_transaction!(self, candidates_sql, |tx| {
            let candidates = sqlx::query(candidates_sql).bind(now).fetch_all(&mut *tx).await?;
            let mut claimed = None;
            for row in candidates {
                let key: String = row.try_get("pr_key")?;
                // The PR lock: taken when free or expired; a concurrent
                // claimer of the same PR waits on the row and then sees it taken.
                let locked = sqlx::query(
                    "INSERT INTO gh_pr_locks (pr_key, owner, lease_until) VALUES ($1, $2, $3) \
                     ON CONFLICT (pr_key) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until \
                     WHERE gh_pr_locks.lease_until < $4 OR gh_pr_locks.owner = excluded.owner RETURNING pr_key",
                )
                .bind(&key)
                .bind(worker)
                .bind(until)
                .bind(now)
                .fetch_optional(&mut *tx)
                .await?;
                if locked.is_none() {
                    continue;
                }
                let full: Option<i64> = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "SELECT MAX(id) AS id FROM gh_jobs WHERE pr_key = $1 AND only_check IS NULL AND {WAITING}"
                )))
                .bind(&key)
                .bind(now)
                .fetch_one(&mut *tx)
                .await?
                .try_get("id")?;
                let (target, only): (i64, Option<String>) = match full {
                    Some(id) => (id, None),
                    None => {
                        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
                            "SELECT id, only_check FROM gh_jobs WHERE pr_key = $1 AND {WAITING} ORDER BY id DESC LIMIT 1"
                        )))
                        .bind(&key)
                        .bind(now)
                        .fetch_one(&mut *tx)
                        .await?;
                        (row.try_get("id")?, row.try_get("only_check")?)
                    }
                };
                let superseded = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "UPDATE gh_jobs SET state = 'superseded', finished_at = $2 WHERE pr_key = $1 AND id <> $3 \
                     AND {WAITING} AND ($4 IS NULL OR (id < $3 AND only_check = $4)) RETURNING id, started_sha"
                )))
                .bind(&key)
                .bind(now)
                .bind(target)
                .bind(only.as_deref())
                .fetch_all(&mut *tx)
                .await?;
                let mut stale = Vec::new();
                for row in superseded {
                    if let Some(sha) = row.try_get::<Option<String>, _>("started_sha")? {
                        stale.push((row.try_get("id")?, sha));
                    }
                }
                let row = sqlx::query(
                    "UPDATE gh_jobs SET state = 'running', lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
                     WHERE id = $3 RETURNING id, delivery, repo, pr, installation, head_sha, reason, only_check, \
                     attempts, created_at, started_sha",
                )
                .bind(worker)
                .bind(until)
                .bind(target)
                .fetch_one(&mut *tx)
                .await?;
                claimed = Some(Job {
                    id: row.try_get("id")?,
                    delivery: row.try_get("delivery")?,
                    repo: row.try_get("repo")?,
                    pr: row.try_get::<i64, _>("pr")? as u64,
                    installation: row.try_get::<i64, _>("installation")? as u64,
                    head_sha: row.try_get("head_sha")?,
                    reason: row.try_get("reason")?,
                    check: row.try_get("only_check")?,
                    attempts: row.try_get("attempts")?,
                    created_at: row.try_get("created_at")?,
                    started_sha: row.try_get("started_sha")?,
                    stale,
                });
                break;
            }
            claimed
        });
        Ok(claimed)
    }

    /// Ends a job that named only a head commit: one job per PR whose head
    /// it is takes its place (same delivery, reason and age), so each is
    /// evaluated under its PR's lock like any other job of that PR. False
    /// when the job's lease is another worker's.
    pub async fn resolve(&self, job: &Job, worker: &str, prs: &[u64]) -> Result<bool> {
        let now = now_ms();
        let key = job.pr_key();
        let resolved = in_transaction!(self, _candidates, |tx| {
            let ended = sqlx::query(
                "UPDATE gh_jobs SET state = 'done', finished_at = $1 WHERE id = $2 AND lease_owner = $3 AND state = 'running'",
            )
            .bind(now)
            .bind(job.id)
            .bind(worker)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if ended == 1 {
                for pr in prs {
                    sqlx::query(
                        "INSERT INTO gh_jobs (delivery, pr_key, repo, pr, installation, head_sha, reason, only_check, \
                         state, attempts, not_before, created_at) SELECT delivery, $1, repo, $2, installation, head_sha, \
                         reason, only_check, 'queued', 0, $3, created_at FROM gh_jobs WHERE id = $4",
                    )
                    .bind(Job::key(&job.repo, *pr, None))
                    .bind(*pr as i64)
                    .bind(now)
                    .bind(job.id)
                    .execute(&mut *tx)
                    .await?;
                }
            }
            unlock!(tx, &key, worker);
            ended == 1
        });
        Ok(resolved)
    }

    /// Records the head a job started check runs on, so a job that
    /// supersedes it can close them if they are left open.
    pub async fn started(&self, job: &Job, sha: &str) -> Result<()> {
        let sql = "UPDATE gh_jobs SET started_sha = $1 WHERE id = $2";
        on_writer!(self, |pool| sqlx::query(sql).bind(sha).bind(job.id).execute(pool).await?.rows_affected());
        Ok(())
    }

    /// Extends a running job's lease (and its PR lock). False when the lease
    /// was lost: another worker may own the job now.
    pub async fn renew(&self, job: &Job, worker: &str, lease: Duration) -> Result<bool> {
        let until = now_ms() + lease.as_millis() as i64;
        let sql = "UPDATE gh_jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND state = 'running'";
        let lock = "UPDATE gh_pr_locks SET lease_until = $1 WHERE pr_key = $2 AND owner = $3";
        let key = job.pr_key();
        let renewed = on_writer!(self, |pool| {
            sqlx::query(sql).bind(until).bind(job.id).bind(worker).execute(pool).await?.rows_affected()
        });
        on_writer!(self, |pool| {
            sqlx::query(lock).bind(until).bind(&key).bind(worker).execute(pool).await?.rows_affected()
        });
        Ok(renewed == 1)
    }

    /// Marks a job done, once: false when the job's lease is another worker's.
    pub async fn complete(&self, job: &Job, worker: &str) -> Result<bool> {
        self.finish(job, worker, "done", None).await
    }

    /// Gives up on a job for good.
    pub async fn fail(&self, job: &Job, worker: &str, error: &str) -> Result<bool> {
        self.finish(job, worker, "failed", Some(error)).await
    }

    /// Puts a job back in the queue to run again after `delay`.
    pub async fn retry_later(&self, job: &Job, worker: &str, delay: Duration, error: &str) -> Result<bool> {
        let not_before = now_ms() + delay.as_millis() as i64;
        let sql = "UPDATE gh_jobs SET state = 'queued', not_before = $1, lease_owner = NULL, error = $2 \
                   WHERE id = $3 AND lease_owner = $4 AND state = 'running'";
        let key = job.pr_key();
        let changed = in_transaction!(self, _candidates, |tx| {
            let changed = sqlx::query(sql)
                .bind(not_before)
                .bind(error)
                .bind(job.id)
                .bind(worker)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            unlock!(tx, &key, worker);
            changed
        });
        Ok(changed == 1)
    }

    /// Ends a job and frees its PR in one transaction: the write lock is
    /// taken once and the WAL grows by one commit.
    async fn finish(&self, job: &Job, worker: &str, state: &str, error: Option<&str>) -> Result<bool> {
        let sql = "UPDATE gh_jobs SET state = $1, finished_at = $2, error = $3 WHERE id = $4 AND lease_owner = $5 AND state = 'running'";
        let now = now_ms();
        let key = job.pr_key();
        let changed = in_transaction!(self, _candidates, |tx| {
            let changed = sqlx::query(sql)
                .bind(state)
                .bind(now)
                .bind(error)
                .bind(job.id)
                .bind(worker)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            unlock!(tx, &key, worker);
            changed
        });
        Ok(changed == 1)
    }

    /// Is a newer job evaluating every check of this job's PR at another
    /// head than `head` waiting? Then this one's result is stale before it is
    /// published. (A job for the same head, another event of the same push,
    /// finds the head evaluated and publishes nothing.)
    pub async fn superseded(&self, job: &Job, head: &str) -> Result<bool> {
        let key = job.pr_key();
        let sql = "SELECT COUNT(*) AS n FROM gh_jobs WHERE pr_key = $1 AND id > $2 AND state = 'queued' \
                   AND only_check IS NULL AND (head_sha IS NULL OR head_sha <> $3)";
        let n: i64 = match &self.engine {
            Engine::Sqlite { pool, .. } => {
                sqlx::query(sql).bind(&key).bind(job.id).bind(head).fetch_one(pool).await?.try_get("n")?
            }
            Engine::Postgres(pool) => {
                sqlx::query(sql).bind(&key).bind(job.id).bind(head).fetch_one(pool).await?.try_get("n")?
            }
        };
        Ok(n > 0)
    }
}
