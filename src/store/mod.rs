//! Durable storage for the App: verified deliveries (deduplicated by
//! `X-GitHub-Delivery`), jobs claimed with a lease, and recorded reviews.
//!
//! One interface, two engines with the same schema: SQLite (the embedded
//! default, one process) and PostgreSQL (several replicas sharing one
//! database; jobs claimed with `FOR UPDATE SKIP LOCKED`). Times are
//! milliseconds since the Unix epoch, computed here, so the SQL is the same on
//! both engines.

pub(crate) mod batch;
mod migrate;
mod reviews;

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Postgres, Row, Sqlite, Transaction};

/// The work a verified delivery asks for: evaluate one pull request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewJob {
    /// `owner/name`.
    pub repo: String,
    pub pr: u64,
    pub installation: u64,
    /// The head the event named, when it named one (informational: the worker
    /// reads the PR's current head).
    pub head_sha: Option<String>,
    /// Why: `pull_request.opened`, `check_run.rerequested`...
    pub reason: String,
}

/// A claimed job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub delivery: String,
    pub repo: String,
    pub pr: u64,
    pub installation: u64,
    pub head_sha: Option<String>,
    pub reason: String,
    pub attempts: i64,
}

/// Jobs that only re-evaluate the review gate (a review was submitted).
pub const REVIEW_ONLY: &str = "pull_request_review.";

impl Job {
    /// Jobs with one key coalesce: one PR, or (PR number 0, a fork's check
    /// suite) one head commit. Review-gate jobs have their own key, so a
    /// review never stands in for a full evaluation.
    fn key(repo: &str, pr: u64, head_sha: Option<&str>, reason: &str) -> String {
        let repo = repo.to_ascii_lowercase();
        match (pr, head_sha) {
            (0, Some(sha)) => format!("{repo}@{sha}"),
            _ if reason.starts_with(REVIEW_ONLY) => format!("{repo}#{pr}:review"),
            _ => format!("{repo}#{pr}"),
        }
    }

    fn pr_key(&self) -> String {
        Job::key(&self.repo, self.pr, self.head_sha.as_deref(), &self.reason)
    }

    /// Only the review gate needs evaluating.
    pub fn review_only(&self) -> bool {
        self.reason.starts_with(REVIEW_ONLY)
    }
}

/// What became of a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// First time seen: stored with this many jobs.
    New { jobs: usize },
    /// Already stored under this delivery id: nothing done.
    Duplicate,
}

/// A review as recorded for the review gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewRecord {
    pub repo: String,
    pub pr: u64,
    pub review_id: u64,
    pub reviewer: String,
    pub state: String,
    pub commit_id: Option<String>,
}

/// Job counts by state, for `/metrics` and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub superseded: i64,
    pub failed: i64,
}

/// Inserts one delivery and its jobs in an open PostgreSQL transaction; a
/// delivery id seen before inserts nothing.
async fn accept_postgres(tx: &mut Transaction<'_, Postgres>, item: &batch::Delivery, now: i64) -> Result<Accepted> {
    let inserted = sqlx::query(
        "INSERT INTO gh_deliveries (id, event, received_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&item.id)
    .bind(&item.event)
    .bind(now)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(Accepted::Duplicate);
    }
    for job in &item.jobs {
        sqlx::query(
            "INSERT INTO gh_jobs (delivery, pr_key, repo, pr, installation, head_sha, reason, state, attempts, not_before, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', 0, $8, $8)",
        )
        .bind(&item.id)
        .bind(Job::key(&job.repo, job.pr, job.head_sha.as_deref(), &job.reason))
        .bind(&job.repo)
        .bind(job.pr as i64)
        .bind(job.installation as i64)
        .bind(job.head_sha.as_deref())
        .bind(&job.reason)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    }
    Ok(Accepted::New { jobs: item.jobs.len() })
}

/// Claimable jobs, oldest first: queued and due, or running with a lapsed lease.
/// Two indexed lookups (an `OR` would scan the table, under the write lock).
const CANDIDATES: &str = "SELECT id, pr_key FROM gh_jobs WHERE state = 'queued' AND not_before <= $1 \
     UNION ALL SELECT id, pr_key FROM gh_jobs WHERE state = 'running' AND lease_until < $1 ORDER BY id LIMIT 16";
/// The same for PostgreSQL replicas: rows another claimer holds are skipped.
const CANDIDATES_SKIP_LOCKED: &str = "SELECT id, pr_key FROM gh_jobs WHERE (state = 'queued' AND not_before <= $1) \
     OR (state = 'running' AND lease_until < $1) ORDER BY id LIMIT 16 FOR UPDATE SKIP LOCKED";

#[derive(Clone)]
enum Engine {
    /// Writes are serialised in-process: SQLite has one writer, and waiting
    /// here is cheaper than SQLITE_BUSY retries.
    Sqlite {
        pool: SqlitePool,
        writer: Arc<tokio::sync::Mutex<()>>,
        batcher: batch::Batcher,
    },
    Postgres(PgPool),
}

/// The App's storage. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    engine: Engine,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.engine {
            Engine::Sqlite { .. } => "Store(sqlite)",
            Engine::Postgres(_) => "Store(postgres)",
        })
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A database URL without its password, for messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}://{user}:***@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

impl Store {
    /// Opens `sqlite://PATH` (the file created when missing) or
    /// `postgres://…`, and runs the migrations.
    pub async fn connect(url: &str) -> Result<Store> {
        Store::connect_in_schema(url, None).await
    }

    /// Like [`Store::connect`], with PostgreSQL tables in `schema` (created
    /// when missing): lets test runs share one database without colliding.
    pub async fn connect_in_schema(url: &str, schema: Option<&str>) -> Result<Store> {
        let shown = redact_url(url);
        let engine = if let Some(path) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
            // The file is created when missing, and so is its folder.
            let file = std::path::Path::new(path.split('?').next().unwrap_or(path));
            if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
                std::fs::create_dir_all(parent).with_context(|| format!("cannot create the folder of {shown}"))?;
            }
            let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))
                .with_context(|| format!("invalid database URL {shown}"))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10));
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(options)
                .await
                .with_context(|| format!("cannot open {shown}"))?;
            let writer = Arc::new(tokio::sync::Mutex::new(()));
            let batcher = batch::Batcher::start(pool.clone(), writer.clone());
            Engine::Sqlite { pool, writer, batcher }
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let mut options =
                PgConnectOptions::from_str(url).with_context(|| format!("invalid database URL {shown}"))?;
            if let Some(schema) = schema {
                if !schema.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    bail!("schema name {schema:?} must be letters, digits and _");
                }
                let admin = PgPool::connect_with(options.clone())
                    .await
                    .with_context(|| format!("cannot connect to {shown}"))?;
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA IF NOT EXISTS {schema}")))
                    .execute(&admin)
                    .await?;
                admin.close().await;
                options = options.options([("search_path", schema)]);
            }
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await
                .with_context(|| format!("cannot connect to {shown}"))?;
            Engine::Postgres(pool)
        } else {
            bail!("unsupported database URL {shown}: use sqlite://PATH or postgres://…");
        };
        let store = Store { engine };
        store.migrate().await?;
        Ok(store)
    }

    pub fn engine_name(&self) -> &'static str {
        match self.engine {
            Engine::Sqlite { .. } => "sqlite",
            Engine::Postgres(_) => "postgres",
        }
    }

    async fn migrate(&self) -> Result<()> {
        match &self.engine {
            Engine::Sqlite { pool, writer, .. } => {
                let _guard = writer.lock().await;
                migrate::sqlite(pool).await
            }
            Engine::Postgres(pool) => migrate::postgres(pool).await,
        }
    }

    /// Is the database reachable? (`/readyz`)
    pub async fn ping(&self) -> bool {
        match &self.engine {
            Engine::Sqlite { pool, .. } => sqlx::query("SELECT 1").execute(pool).await.is_ok(),
            Engine::Postgres(pool) => sqlx::query("SELECT 1").execute(pool).await.is_ok(),
        }
    }

    /// Stores a verified delivery and its jobs in one transaction, unless the
    /// delivery id was seen before. On SQLite, concurrent deliveries share one
    /// commit (group commit); each is answered only once it is durable.
    pub async fn accept(&self, delivery: &str, event: &str, jobs: &[NewJob]) -> Result<Accepted> {
        let item = batch::Delivery { id: delivery.to_string(), event: event.to_string(), jobs: jobs.to_vec() };
        match &self.engine {
            Engine::Sqlite { batcher, .. } => batcher.accept(item).await,
            Engine::Postgres(pool) => {
                let mut tx: Transaction<'_, Postgres> = pool.begin().await?;
                let accepted = accept_postgres(&mut tx, &item, now_ms()).await?;
                tx.commit().await?;
                Ok(accepted)
            }
        }
    }

    /// Claims the next job for `worker`, leased for `lease`. Jobs of one PR
    /// coalesce: the newest queued job of the PR is claimed and the older ones
    /// are marked superseded. A PR whose job is running elsewhere (lease not
    /// expired) is skipped; a job whose lease expired is claimable again.
    pub async fn claim(&self, worker: &str, lease: Duration) -> Result<Option<Job>> {
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        macro_rules! claim_in {
            ($tx:expr, $candidates:expr) => {{
                let tx = &mut $tx;
                let candidates = sqlx::query($candidates)
                .bind(now)
                .fetch_all(&mut **tx)
                .await?;
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
                    .fetch_optional(&mut **tx)
                    .await?;
                    if locked.is_none() {
                        continue;
                    }
                    let newest: i64 = sqlx::query(
                        "SELECT MAX(id) AS id FROM gh_jobs WHERE pr_key = $1 AND (state = 'queued' OR (state = 'running' AND lease_until < $2))",
                    )
                    .bind(&key)
                    .bind(now)
                    .fetch_one(&mut **tx)
                    .await?
                    .try_get("id")?;
                    sqlx::query(
                        "UPDATE gh_jobs SET state = 'superseded', finished_at = $1 WHERE pr_key = $2 AND id < $3 \
                         AND (state = 'queued' OR (state = 'running' AND lease_until < $1))",
                    )
                    .bind(now)
                    .bind(&key)
                    .bind(newest)
                    .execute(&mut **tx)
                    .await?;
                    let row = sqlx::query(
                        "UPDATE gh_jobs SET state = 'running', lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
                         WHERE id = $3 RETURNING id, delivery, repo, pr, installation, head_sha, reason, attempts",
                    )
                    .bind(worker)
                    .bind(until)
                    .bind(newest)
                    .fetch_one(&mut **tx)
                    .await?;
                    claimed = Some(Job {
                        id: row.try_get("id")?,
                        delivery: row.try_get("delivery")?,
                        repo: row.try_get("repo")?,
                        pr: row.try_get::<i64, _>("pr")? as u64,
                        installation: row.try_get::<i64, _>("installation")? as u64,
                        head_sha: row.try_get("head_sha")?,
                        reason: row.try_get("reason")?,
                        attempts: row.try_get("attempts")?,
                    });
                    break;
                }
                claimed
            }};
        }
        let claimed = match &self.engine {
            Engine::Sqlite { pool, writer, .. } => {
                let _guard = writer.lock().await;
                let mut tx: Transaction<'_, Sqlite> = pool.begin().await?;
                let claimed = claim_in!(tx, CANDIDATES);
                tx.commit().await?;
                claimed
            }
            Engine::Postgres(pool) => {
                let mut tx: Transaction<'_, Postgres> = pool.begin().await?;
                let claimed = claim_in!(tx, CANDIDATES_SKIP_LOCKED);
                tx.commit().await?;
                claimed
            }
        };
        Ok(claimed)
    }

    /// Extends a running job's lease (and its PR lock). False when the lease
    /// was lost: another worker may own the job now.
    pub async fn renew(&self, job: &Job, worker: &str, lease: Duration) -> Result<bool> {
        let until = now_ms() + lease.as_millis() as i64;
        let sql = "UPDATE gh_jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND state = 'running'";
        let lock = "UPDATE gh_pr_locks SET lease_until = $1 WHERE pr_key = $2 AND owner = $3";
        let key = job.pr_key();
        let renewed = self.write(sql, |q| q.bind(until).bind(job.id).bind(worker.to_string())).await?;
        self.write(lock, |q| q.bind(until).bind(key.clone()).bind(worker.to_string())).await?;
        Ok(renewed == 1)
    }

    /// Marks a job done, once: false when this worker no longer owns it.
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
        let changed = self
            .write(sql, |q| q.bind(not_before).bind(error.to_string()).bind(job.id).bind(worker.to_string()))
            .await?;
        self.unlock(job, worker).await?;
        Ok(changed == 1)
    }

    async fn finish(&self, job: &Job, worker: &str, state: &str, error: Option<&str>) -> Result<bool> {
        let sql = "UPDATE gh_jobs SET state = $1, finished_at = $2, error = $3 WHERE id = $4 AND lease_owner = $5 AND state = 'running'";
        let now = now_ms();
        let changed = self
            .write(sql, |q| {
                q.bind(state.to_string())
                    .bind(now)
                    .bind(error.map(str::to_string))
                    .bind(job.id)
                    .bind(worker.to_string())
            })
            .await?;
        self.unlock(job, worker).await?;
        Ok(changed == 1)
    }

    async fn unlock(&self, job: &Job, worker: &str) -> Result<()> {
        let key = job.pr_key();
        self.write("DELETE FROM gh_pr_locks WHERE pr_key = $1 AND owner = $2", |q| {
            q.bind(key.clone()).bind(worker.to_string())
        })
        .await?;
        Ok(())
    }

    /// Is a newer job for this job's PR waiting? Then this one's result is
    /// stale before it is published.
    pub async fn superseded(&self, job: &Job) -> Result<bool> {
        let key = job.pr_key();
        let sql = "SELECT COUNT(*) AS n FROM gh_jobs WHERE pr_key = $1 AND id > $2 AND state = 'queued'";
        let n: i64 = match &self.engine {
            Engine::Sqlite { pool, .. } => {
                sqlx::query(sql).bind(&key).bind(job.id).fetch_one(pool).await?.try_get("n")?
            }
            Engine::Postgres(pool) => sqlx::query(sql).bind(&key).bind(job.id).fetch_one(pool).await?.try_get("n")?,
        };
        Ok(n > 0)
    }

    pub async fn deliveries(&self) -> Result<i64> {
        self.count("SELECT COUNT(*) AS n FROM gh_deliveries").await
    }

    pub async fn job_counts(&self) -> Result<JobCounts> {
        let mut counts = JobCounts::default();
        for (_, state, _) in self.jobs().await? {
            match state.as_str() {
                "queued" => counts.queued += 1,
                "running" => counts.running += 1,
                "done" => counts.done += 1,
                "superseded" => counts.superseded += 1,
                _ => counts.failed += 1,
            }
        }
        Ok(counts)
    }

    /// Every job (id, state, attempts) in id order: for tests and operators.
    pub async fn jobs(&self) -> Result<Vec<(i64, String, i64)>> {
        let sql = "SELECT id, state, attempts FROM gh_jobs ORDER BY id";
        let rows = match &self.engine {
            Engine::Sqlite { pool, .. } => {
                sqlx::query(sql).fetch_all(pool).await?.into_iter().map(job_row).collect::<Vec<_>>()
            }
            Engine::Postgres(pool) => sqlx::query(sql).fetch_all(pool).await?.into_iter().map(job_row).collect(),
        };
        rows.into_iter().collect()
    }

    async fn count(&self, sql: &'static str) -> Result<i64> {
        Ok(match &self.engine {
            Engine::Sqlite { pool, .. } => sqlx::query(sql).fetch_one(pool).await?.try_get("n")?,
            Engine::Postgres(pool) => sqlx::query(sql).fetch_one(pool).await?.try_get("n")?,
        })
    }

    /// Runs one statement; `bind` adds its parameters.
    async fn write<F>(&self, sql: &'static str, bind: F) -> Result<u64>
    where
        F: for<'q> Fn(Query<'q>) -> Query<'q>,
    {
        Ok(match &self.engine {
            Engine::Sqlite { pool, writer, .. } => {
                let _guard = writer.lock().await;
                let q = bind(Query::Sqlite(sqlx::query(sql)));
                let Query::Sqlite(q) = q else { unreachable!("bind keeps the engine") };
                q.execute(pool).await?.rows_affected()
            }
            Engine::Postgres(pool) => {
                let q = bind(Query::Postgres(sqlx::query(sql)));
                let Query::Postgres(q) = q else { unreachable!("bind keeps the engine") };
                q.execute(pool).await?.rows_affected()
            }
        })
    }
}

fn job_row<R: Row>(row: R) -> Result<(i64, String, i64)>
where
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> &'r str: sqlx::ColumnIndex<R>,
{
    Ok((row.try_get("id")?, row.try_get("state")?, row.try_get("attempts")?))
}

/// A statement being bound, for either engine.
pub enum Query<'q> {
    Sqlite(sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments>),
    Postgres(sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments>),
}

impl<'q> Query<'q> {
    fn bind<T>(self, value: T) -> Query<'q>
    where
        T: 'q
            + Send
            + sqlx::Encode<'q, Sqlite>
            + sqlx::Type<Sqlite>
            + sqlx::Encode<'q, Postgres>
            + sqlx::Type<Postgres>,
    {
        match self {
            Query::Sqlite(q) => Query::Sqlite(q.bind(value)),
            Query::Postgres(q) => Query::Postgres(q.bind(value)),
        }
    }
}
