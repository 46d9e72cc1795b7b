//! Durable storage for the App: verified deliveries (deduplicated by
//! `X-GitHub-Delivery`) and jobs claimed with a lease.
//!
//! One interface, two engines with the same schema: SQLite (the embedded
//! default, one process) and PostgreSQL (several replicas sharing one
//! database; jobs claimed with `FOR UPDATE SKIP LOCKED`). Times are
//! milliseconds since the Unix epoch, computed here, so the SQL is the same on
//! both engines.
//!
//! A statement is written once for both engines with [`on_pool!`] (a read)
//! or [`on_writer!`] (a write: on SQLite, under the in-process write lock):
//! the macro expands its body once per engine, so each engine runs its own
//! typed, compiled-in code and rows decode straight into `FromRow` structs.
//! A generic over `sqlx::Database` would do the same with a wall of trait
//! bounds at every function; `sqlx::Any` would convert every argument and
//! row at run time and support only the types both drivers share. Code
//! keeps one arm per engine only where the engines work differently: how a
//! delivery is accepted (SQLite's group commit, see `batch`) and where its
//! replay digest is indexed (in a file of its own on SQLite, see
//! `digests`), how a database is opened and migrated, and how jobs are
//! claimed (`jobs`).

/// Runs `$body` with `$pool` bound to the store's pool, once per engine.
macro_rules! on_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match &$store.engine {
            $crate::store::Engine::Sqlite { pool: $pool, .. } => $body,
            $crate::store::Engine::Postgres($pool) => $body,
        }
    };
}

/// Like [`on_pool!`], for a statement that writes: on SQLite it runs under
/// the in-process write lock, which the group commit of deliveries shares,
/// on a connection taken from the pool before the lock (`$pool` is that
/// connection there), so the lock is held for the statements alone.
macro_rules! on_writer {
    ($store:expr, |$pool:ident| $body:expr) => {
        match &$store.engine {
            $crate::store::Engine::Sqlite { pool, writer, .. } => {
                let turn = writer.turn().await;
                let mut connection = pool.acquire().await?;
                let _guard = writer.worker(turn).await;
                let $pool = &mut *connection;
                $body
            }
            $crate::store::Engine::Postgres($pool) => $body,
        }
    };
}

mod attestations;
pub(crate) mod batch;
mod blobs;
mod budget;
mod dashboards;
mod dependencies;
mod digests;
mod job;
mod jobs;
mod merge_groups;
mod migrate;
mod redeliveries;
mod reminders;
mod review_requests;
mod stats;
mod transient;
mod writer;

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{FromRow, Postgres, Transaction};

pub use attestations::BypassedMerge;
pub use blobs::{StoredBlob, StoredPath};
pub use dashboards::{DASHBOARD_COALESCE, DASHBOARD_REASON, DashboardIssue};
pub use dependencies::{Dependencies, Dependency};
pub use job::{Job, NewJob, PrNumber, Scope, Target, family_check};
pub use merge_groups::MergeGroupRecord;
pub use redeliveries::SweepState;
pub use reminders::{Reminded, ReminderSchedule};
pub use review_requests::ReviewRequests;
pub use stats::{StoreStats, Timing};
pub use transient::is_transient;
use writer::WriteLock;

/// How long a SQLite connection waits for another process's lock on the file.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// What became of a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// First time seen: stored with this many jobs.
    New { jobs: usize },
    /// Already stored under this delivery id: nothing done.
    Duplicate,
}

/// Job counts by state: `/metrics` shows them (queue depth, running jobs),
/// `gatehouse demo` waits on them.
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
    if let Some(body_digest) = &item.body_digest {
        let sql = "SELECT COUNT(*) FROM gh_deliveries WHERE digest = $1";
        let seen: i64 = sqlx::query_scalar(sql).bind(body_digest).fetch_one(&mut **tx).await?;
        if seen > 0 {
            return Ok(Accepted::Duplicate);
        }
    }
    let inserted = sqlx::query(
        "INSERT INTO gh_deliveries (id, event, received_at, digest) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind(&item.id)
    .bind(&item.event)
    .bind(now)
    .bind(item.digest.as_deref())
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(Accepted::Duplicate);
    }
    for job in &item.jobs {
        let (target, target_pr, target_sha) = job.target_columns();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO gh_jobs ({}, state, attempts, not_before, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'queued', 0, $12, $12)",
            job::NEW_JOB_COLUMNS
        )))
        .bind(&item.id)
        .bind(job.key())
        .bind(&job.repo)
        .bind(job.installation as i64)
        .bind(target)
        .bind(target_pr)
        .bind(target_sha)
        .bind(job.scope_column())
        .bind(job.once_per_head)
        .bind(&job.reason)
        .bind(job.command_column())
        .bind(now)
        .execute(&mut **tx)
        .await?;
    }
    Ok(Accepted::New { jobs: item.jobs.len() })
}

#[derive(Clone)]
enum Engine {
    /// Writes are serialised in-process by `writer`.
    Sqlite {
        pool: SqlitePool,
        writer: WriteLock,
        batcher: batch::Batcher,
    },
    Postgres(PgPool),
}

/// The App's storage. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    engine: Engine,
    /// Whether deliveries hold digests of the body itself (written by
    /// gatehouse 0.1), which a resent body is looked up by too.
    body_digests: bool,
    /// When this process next looks at the blob table's total.
    eviction: Arc<blobs::EvictionCheck>,
}

/// How a digest of a body's verified HMAC begins; a digest of the body
/// itself is 64 hex digits.
const SIGNED_DIGEST: &str = "sig:";

/// A delivery's body and the HMAC its signature was verified as.
#[derive(Clone, Copy, Debug)]
pub struct Signed<'b> {
    pub body: &'b [u8],
    pub mac: &'b [u8],
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.engine {
            Engine::Sqlite { .. } => "Store(sqlite)",
            Engine::Postgres(_) => "Store(postgres)",
        })
    }
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A database URL without its password, for messages.
pub(crate) fn redact_url(url: &str) -> String {
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
                .busy_timeout(BUSY_TIMEOUT)
                // The group committer checkpoints the WAL (see `batch`); a
                // worker's write checkpoints only if the WAL grew four times
                // past the committer's threshold without deliveries, so a
                // checkpoint rarely runs under the write lock a group
                // commit waits on.
                .pragma("wal_autocheckpoint", (4 * batch::CHECKPOINT_FRAMES).to_string());
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(options.clone())
                .await
                .with_context(|| format!("cannot open {shown}"))?;
            let writer = WriteLock::new();
            {
                let _guard = writer.worker(writer.turn().await).await;
                migrate::sqlite(&pool, &shown).await?;
            }
            // The 202 promises the delivery is on disk: the accepting commit
            // runs on its own connection with synchronous=FULL (the WAL is
            // fsynced at commit; NORMAL could lose the last commits on an OS
            // crash or power loss). Group commit shares that fsync among the
            // deliveries that arrive together.
            let (file, committer_lock) = (file.to_owned(), writer.clone());
            let batcher =
                tokio::task::spawn_blocking(move || batch::Batcher::start(&file, BUSY_TIMEOUT, committer_lock))
                    .await?
                    .with_context(|| format!("cannot open {shown}"))?;
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
            migrate::postgres(&pool, &shown).await?;
            Engine::Postgres(pool)
        } else {
            bail!("unsupported database URL {shown}: use sqlite://PATH or postgres://…");
        };
        let mut store = Store { engine, body_digests: false, eviction: Arc::new(blobs::EvictionCheck::new()) };
        store.body_digests = store.holds_body_digests().await?;
        Ok(store)
    }

    /// SQLite's `synchronous` level on the connection that commits accepted
    /// deliveries (2: FULL, fsynced at commit); `None` on PostgreSQL, whose
    /// commits are durable when they return.
    pub fn accept_synchronous(&self) -> Option<i64> {
        match &self.engine {
            Engine::Sqlite { batcher, .. } => Some(batcher.synchronous()),
            Engine::Postgres(_) => None,
        }
    }

    /// Stores what was sent before and closes the store's connections: on
    /// SQLite the replay digests' file is marked closed, so the next start
    /// trusts it instead of making it again (a process that stops without
    /// closing leaves it to be made again). Everything after is refused.
    pub async fn close(&self) -> Result<()> {
        match &self.engine {
            Engine::Sqlite { pool, batcher, .. } => {
                let closed = batcher.close().await;
                pool.close().await;
                closed
            }
            Engine::Postgres(pool) => {
                pool.close().await;
                Ok(())
            }
        }
    }

    /// Where the SQLite store's write time went since it opened or since
    /// the last call; the counters start again from zero.
    pub fn take_stats(&self) -> StoreStats {
        match &self.engine {
            Engine::Sqlite { writer, .. } => writer.stats.take(),
            Engine::Postgres(_) => StoreStats::default(),
        }
    }

    pub(crate) fn engine_name(&self) -> &'static str {
        match self.engine {
            Engine::Sqlite { .. } => "sqlite",
            Engine::Postgres(_) => "postgres",
        }
    }

    /// Whether any delivery's digest is of its body (64 hex digits, which
    /// sort before every `sig:` digest): the smallest digest is read from
    /// the digest index (on SQLite, by the committer when it opened the
    /// replay digests' file).
    async fn holds_body_digests(&self) -> Result<bool> {
        match &self.engine {
            Engine::Sqlite { batcher, .. } => Ok(batcher.body_digests()),
            Engine::Postgres(pool) => {
                let sql = "SELECT MIN(digest) FROM gh_deliveries";
                let least: Option<String> = sqlx::query_scalar(sql).fetch_one(pool).await?;
                Ok(least.is_some_and(|digest| !digest.starts_with(SIGNED_DIGEST)))
            }
        }
    }

    /// Is the database reachable? (`/readyz`)
    pub async fn ping(&self) -> bool {
        on_pool!(self, |pool| sqlx::query("SELECT 1").execute(pool).await.is_ok())
    }

    /// Stores a verified delivery and its jobs in one transaction, unless the
    /// delivery id was seen before. On SQLite, concurrent deliveries share one
    /// commit (group commit); each is answered only once it is durable.
    pub async fn accept(&self, delivery: &str, event: &str, jobs: &[NewJob]) -> Result<Accepted> {
        self.store_delivery(delivery, event, None, None, jobs).await
    }

    /// Like [`Store::accept`], also recognising the signed body: a body
    /// accepted before is a duplicate whatever its delivery id, so a captured
    /// delivery resent with new ids makes no second job. The body is known by
    /// a digest of the event name and the body's verified HMAC (`sig:` and
    /// 64 hex digits); where the database holds digests of the body itself
    /// (gatehouse 0.1 wrote them), the body is hashed too and looked up.
    pub async fn accept_signed(
        &self,
        delivery: &str,
        event: &str,
        signed: Signed<'_>,
        jobs: &[NewJob],
    ) -> Result<Accepted> {
        let digest = |prefix: &str, bytes: &[u8]| {
            let mut hasher = Sha256::new();
            hasher.update(event.as_bytes());
            hasher.update([0]);
            hasher.update(bytes);
            format!("{prefix}{}", hex::encode(hasher.finalize()))
        };
        let body_digest = self.body_digests.then(|| digest("", signed.body));
        self.store_delivery(delivery, event, Some(digest(SIGNED_DIGEST, signed.mac)), body_digest, jobs).await
    }

    async fn store_delivery(
        &self,
        delivery: &str,
        event: &str,
        digest: Option<String>,
        body_digest: Option<String>,
        jobs: &[NewJob],
    ) -> Result<Accepted> {
        let item = batch::Delivery {
            id: delivery.to_string(),
            event: event.to_string(),
            digest,
            body_digest,
            jobs: jobs.to_vec(),
        };
        // SQLite has one writer: deliveries arriving together share a commit
        // (multi-row inserts, one fsync). PostgreSQL commits concurrently, so
        // each delivery has its own transaction and no wait for others.
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

    pub async fn deliveries(&self) -> Result<i64> {
        let sql = "SELECT COUNT(*) FROM gh_deliveries";
        Ok(on_pool!(self, |pool| sqlx::query_scalar(sql).fetch_one(pool).await?))
    }

    /// Counted in the database (one pass over the `(state, id)` index),
    /// whatever the number of jobs.
    pub async fn job_counts(&self) -> Result<JobCounts> {
        let sql = "SELECT state, COUNT(*) AS jobs FROM gh_jobs GROUP BY state";
        let rows: Vec<StateCount> = on_pool!(self, |pool| sqlx::query_as(sql).fetch_all(pool).await?);
        let mut counts = JobCounts::default();
        for StateCount { state, jobs: n } in rows {
            match state.as_str() {
                "queued" => counts.queued += n,
                "running" => counts.running += n,
                "done" => counts.done += n,
                "superseded" => counts.superseded += n,
                _ => counts.failed += n,
            }
        }
        Ok(counts)
    }

    /// Every job (id, state, attempts) in id order: for tests and operators.
    pub async fn jobs(&self) -> Result<Vec<(i64, String, i64)>> {
        let sql = "SELECT id, state, attempts FROM gh_jobs ORDER BY id";
        let rows: Vec<JobState> = on_pool!(self, |pool| sqlx::query_as(sql).fetch_all(pool).await?);
        Ok(rows.into_iter().map(|row| (row.id, row.state, row.attempts)).collect())
    }
}

/// How many jobs are in one state.
#[derive(FromRow)]
struct StateCount {
    state: String,
    jobs: i64,
}

/// Where one job stands.
#[derive(FromRow)]
struct JobState {
    id: i64,
    state: String,
    attempts: i64,
}
