//! The job queue: jobs claimed under their PR's lock with a lease, coalesced
//! per PR, put back with a delay, resolved from a head commit to its PRs.

use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::Result;
// `begin` on the SQLite arm's connection (`on_writer!`).
use sqlx::Connection as _;

use super::job::{JOB_ROW, Job, JobRow, PrNumber, Scope, Target};
use super::{Engine, Store, now_ms};
use crate::github::HeadSha;

/// Queued, or running with a lapsed lease: work a claim may take or coalesce.
const WAITING: &str = "(state = 'queued' OR (state = 'running' AND lease_until < $2))";

/// Claimable jobs, oldest first: queued and due, or running with a lapsed
/// lease, of PRs no worker holds. Two indexed lookups (an `OR` would scan the
/// table, under the write lock). SQLite has no row locks: its claims are
/// serialised by the in-process write lock instead.
const CANDIDATES: &str = "SELECT id, pr_key FROM gh_jobs WHERE state = 'queued' AND not_before <= $1 \
     AND pr_key NOT IN (SELECT pr_key FROM gh_pr_locks WHERE lease_until >= $1) \
     UNION ALL SELECT id, pr_key FROM gh_jobs WHERE state = 'running' AND lease_until < $1 ORDER BY id LIMIT 16";
/// The same for PostgreSQL replicas, which claim concurrently: rows another
/// claimer holds are skipped (`FOR UPDATE` cannot apply to a `UNION`).
const CANDIDATES_SKIP_LOCKED: &str = "SELECT id, pr_key FROM gh_jobs WHERE ((state = 'queued' AND not_before <= $1) \
     OR (state = 'running' AND lease_until < $1)) \
     AND pr_key NOT IN (SELECT pr_key FROM gh_pr_locks WHERE lease_until >= $1) \
     ORDER BY id LIMIT 16 FOR UPDATE SKIP LOCKED";

/// Runs `$body` in a transaction on either engine, committing when it
/// returns; on SQLite it holds the in-process write lock (see [`on_writer!`]).
macro_rules! in_transaction {
    ($store:expr, |$tx:ident| $body:expr) => {
        on_writer!($store, |pool| {
            let mut $tx = pool.begin().await?;
            let out = $body;
            $tx.commit().await?;
            out
        })
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
    /// superseded (it covers them); with none, the newest job of one scope
    /// is claimed and older jobs of the same scope are superseded.
    pub async fn claim(&self, worker: &str, lease: Duration) -> Result<Option<Job>> {
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        let candidates_sql = self.candidates_sql();
        let claimed = in_transaction!(self, |tx| {
            let candidates: Vec<(i64, String)> = sqlx::query_as(candidates_sql).bind(now).fetch_all(&mut *tx).await?;
            let mut claimed = None;
            for (_, key) in candidates {
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
                let full: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT MAX(id) FROM gh_jobs WHERE pr_key = $1 AND scope = 'all' AND {WAITING}"
                )))
                .bind(&key)
                .bind(now)
                .fetch_one(&mut *tx)
                .await?;
                let (target, scope): (i64, String) = match full {
                    Some(id) => (id, Scope::All.column().to_string()),
                    None => {
                        sqlx::query_as(sqlx::AssertSqlSafe(format!(
                            "SELECT id, scope FROM gh_jobs WHERE pr_key = $1 AND {WAITING} ORDER BY id DESC LIMIT 1"
                        )))
                        .bind(&key)
                        .bind(now)
                        .fetch_one(&mut *tx)
                        .await?
                    }
                };
                // A job of every check supersedes every other waiting job of
                // the PR; a job of one scope, the older ones of that scope.
                let superseded: Vec<(i64, Option<String>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "UPDATE gh_jobs SET state = 'superseded', finished_at = $2 WHERE pr_key = $1 AND id <> $3 \
                     AND {WAITING} AND ($4 = 'all' OR (id < $3 AND scope = $4)) RETURNING id, started_sha"
                )))
                .bind(&key)
                .bind(now)
                .bind(target)
                .bind(&scope)
                .fetch_all(&mut *tx)
                .await?;
                let stale = superseded.into_iter().filter_map(|(id, sha)| Some((id, sha?))).collect();
                let row: JobRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "UPDATE gh_jobs SET state = 'running', lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
                     WHERE id = $3 RETURNING {JOB_ROW}"
                )))
                .bind(worker)
                .bind(until)
                .bind(target)
                .fetch_one(&mut *tx)
                .await?;
                claimed = Some(row.into_job(stale)?);
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
    pub async fn resolve(&self, job: &Job, worker: &str, prs: &[PrNumber]) -> Result<bool> {
        self.resolve_across(job, worker, prs, &[]).await
    }

    /// [`Store::resolve`], with jobs of pull requests of other repositories
    /// of the installation too (`elsewhere`: repository and number), in the
    /// order given: the inheriting repositories' pull requests a push to
    /// the config they extend affects.
    pub async fn resolve_across(
        &self,
        job: &Job,
        worker: &str,
        prs: &[PrNumber],
        elsewhere: &[(String, PrNumber)],
    ) -> Result<bool> {
        let now = now_ms();
        let key = job.pr_key();
        // The head a fork's PR was found by is the head its event named.
        let head = match &job.target {
            Target::Head(sha) => Some(sha.0.as_str()),
            _ => None,
        };
        let resolved = in_transaction!(self, |tx| {
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
                    let target = Target::Pr { number: *pr, head: head.map(|h| HeadSha(h.to_string())) };
                    sqlx::query(
                        "INSERT INTO gh_jobs (delivery, pr_key, repo, installation, target, target_pr, target_sha, \
                         scope, once_per_head, reason, state, attempts, not_before, created_at) \
                         SELECT delivery, $1, repo, installation, 'pr', $2, $3, scope, once_per_head, reason, \
                         'queued', 0, $4, created_at FROM gh_jobs WHERE id = $5",
                    )
                    .bind(Job::key(&job.repo, &target))
                    .bind(pr.0 as i64)
                    .bind(head)
                    .bind(now)
                    .bind(job.id)
                    .execute(&mut *tx)
                    .await?;
                }
                for (repo, pr) in elsewhere {
                    let target = Target::Pr { number: *pr, head: None };
                    sqlx::query(
                        "INSERT INTO gh_jobs (delivery, pr_key, repo, installation, target, target_pr, target_sha, \
                         scope, once_per_head, reason, state, attempts, not_before, created_at) \
                         SELECT delivery, $1, $2, installation, 'pr', $3, NULL, scope, once_per_head, reason, \
                         'queued', 0, $4, created_at FROM gh_jobs WHERE id = $5",
                    )
                    .bind(Job::key(repo, &target))
                    .bind(repo.to_ascii_lowercase())
                    .bind(pr.0 as i64)
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
    pub(crate) async fn fail(&self, job: &Job, worker: &str, error: &str) -> Result<bool> {
        self.finish(job, worker, "failed", Some(error)).await
    }

    /// Puts a job back in the queue to run again after `delay`.
    pub async fn retry_later(&self, job: &Job, worker: &str, delay: Duration, error: &str) -> Result<bool> {
        let not_before = now_ms() + delay.as_millis() as i64;
        let sql = "UPDATE gh_jobs SET state = 'queued', not_before = $1, lease_owner = NULL, error = $2 \
                   WHERE id = $3 AND lease_owner = $4 AND state = 'running'";
        let key = job.pr_key();
        let changed = in_transaction!(self, |tx| {
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
        let changed = in_transaction!(self, |tx| {
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

    /// The jobs of `job`'s pull request (or commit) that are done: each
    /// wrote its whole plan on GitHub and recorded what follows it.
    pub(crate) async fn finished_jobs(&self, job: &Job) -> Result<BTreeSet<i64>> {
        let sql = "SELECT id FROM gh_jobs WHERE pr_key = $1 AND state = 'done'";
        let key = job.pr_key();
        let ids: Vec<i64> = on_pool!(self, |pool| sqlx::query_scalar(sql).bind(&key).fetch_all(pool).await?);
        Ok(ids.into_iter().collect())
    }

    /// Is a newer job evaluating every check of this job's PR at another
    /// head than `head` waiting? Then this one's result is stale before it is
    /// published. (A job for the same head, another event of the same push,
    /// finds the head evaluated and publishes nothing.)
    pub(crate) async fn superseded(&self, job: &Job, head: &str) -> Result<bool> {
        let key = job.pr_key();
        let sql = "SELECT COUNT(*) FROM gh_jobs WHERE pr_key = $1 AND id > $2 AND state = 'queued' \
                   AND scope = 'all' AND (target_sha IS NULL OR target_sha <> $3)";
        let n: i64 =
            on_pool!(self, |pool| sqlx::query_scalar(sql).bind(&key).bind(job.id).bind(head).fetch_one(pool).await?);
        Ok(n > 0)
    }

    /// How this engine finds claimable jobs: the SQL differs where the
    /// engines lock differently (see [`CANDIDATES`]).
    fn candidates_sql(&self) -> &'static str {
        match self.engine {
            Engine::Sqlite { .. } => CANDIDATES,
            Engine::Postgres(_) => CANDIDATES_SKIP_LOCKED,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use sqlx::postgres::{PgConnectOptions, PgPool};
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};

    use super::*;
    use crate::model::Check;
    use crate::store::migrate::{POSTGRES, SQLITE, up_to};

    /// The migration of the release before jobs had typed targets and scopes.
    const OLD_VERSION: i64 = 1;

    /// A job as that release queued it: (pr_key, pr, head_sha, reason,
    /// only_check).
    type OldJob = (&'static str, i64, Option<&'static str>, &'static str, Option<&'static str>);

    /// The old release's jobs; the first was running when the upgrade
    /// stopped its worker.
    const OLD_JOBS: &[OldJob] = &[
        ("acme/docs#7", 7, Some("a1"), "pull_request.opened", None),
        ("acme/docs#8", 8, Some("b1"), "pull_request_review.submitted", Some("gatehouse/review")),
        ("acme/docs#9", 9, Some("b2"), "check_run.rerequested", Some("gatehouse/briefs")),
        ("acme/docs@c1", 0, Some("c1"), "check_suite.requested", None),
        ("acme/docs#0", 0, None, "installation.created", None),
        ("acme/docs@d1", 0, Some("d1"), "push", None),
        ("acme/docs#10", 10, Some("d1"), "push", None),
        ("acme/docs@e1", 0, Some("e1"), "merge_group.checks_requested", None),
        ("acme/docs@f1", 0, Some("f1"), "merge_group.destroyed", None),
    ];

    const OLD_INSERT: &str = "INSERT INTO gh_jobs (delivery, pr_key, repo, pr, installation, head_sha, reason, \
         only_check, state, attempts, not_before, created_at, lease_owner, lease_until) \
         VALUES ('d', $1, 'acme/docs', $2, 7, $3, $4, $5, $6, 0, 0, 0, $7, 0)";

    /// What each old job is claimed as after the upgrade.
    fn upgraded() -> Vec<(Target, Scope, bool)> {
        let sha = |s: &str| HeadSha(s.to_string());
        let pr = |n: u64, head: Option<&str>| Target::Pr { number: PrNumber(n), head: head.map(sha) };
        vec![
            (pr(7, Some("a1")), Scope::All, true),
            (pr(8, Some("b1")), Scope::ReviewGate, false),
            (pr(9, Some("b2")), Scope::Check(Check::Briefs), false),
            (Target::Head(sha("c1")), Scope::All, true),
            (Target::OpenPrs, Scope::All, false),
            (Target::BaseTip(sha("d1")), Scope::All, false),
            (pr(10, None), Scope::All, false),
            (Target::MergeGroup(sha("e1")), Scope::All, true),
            (Target::MergeGroupDestroyed(sha("f1")), Scope::All, false),
        ]
    }

    /// Runs the old release's migrations of `$engine` on `$pool` and queues
    /// [`OLD_JOBS`] as the old release did.
    macro_rules! old_release {
        ($pool:expr, $engine:expr) => {{
            up_to(&$engine, OLD_VERSION).run($pool).await.unwrap();
            for (n, (key, pr, head, reason, check)) in OLD_JOBS.iter().enumerate() {
                let (state, owner) = if n == 0 { ("running", Some("gone")) } else { ("queued", None) };
                sqlx::query(OLD_INSERT)
                    .bind(*key)
                    .bind(*pr)
                    .bind(*head)
                    .bind(*reason)
                    .bind(*check)
                    .bind(state)
                    .bind(owner)
                    .execute($pool)
                    .await
                    .unwrap();
            }
        }};
    }

    /// Claims every job of the upgraded store: none lost, each routed by
    /// what the old columns meant.
    async fn assert_upgraded(store: Store) {
        let mut claimed = Vec::new();
        while let Some(job) = store.claim("w", Duration::from_secs(30)).await.unwrap() {
            claimed.push((job.target, job.scope, job.once_per_head));
        }
        assert_eq!(claimed, upgraded());
    }

    #[tokio::test]
    async fn queued_jobs_survive_the_upgrade_to_typed_targets_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("old.db").display());
        let pool = SqlitePool::connect_with(SqliteConnectOptions::from_str(&url).unwrap().create_if_missing(true))
            .await
            .unwrap();
        old_release!(&pool, SQLITE);
        pool.close().await;
        assert_upgraded(Store::connect(&url).await.unwrap()).await;
    }

    #[tokio::test]
    async fn queued_jobs_survive_the_upgrade_to_typed_targets_on_postgres() {
        let Ok(url) = std::env::var("GATEHOUSE_TEST_DATABASE_URL") else {
            eprintln!("skipped: GATEHOUSE_TEST_DATABASE_URL is not set");
            return;
        };
        let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let schema = format!("upgrade_{}_{nonce}", std::process::id());
        let admin = PgPool::connect(&url).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).execute(&admin).await.unwrap();
        let options = PgConnectOptions::from_str(&url).unwrap().options([("search_path", schema.as_str())]);
        let pool = PgPool::connect_with(options).await.unwrap();
        old_release!(&pool, POSTGRES);
        pool.close().await;
        assert_upgraded(Store::connect_in_schema(&url, Some(&schema)).await.unwrap()).await;
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE"))).execute(&admin).await.unwrap();
    }
}
