//! Schema migrations, run at start. Each step runs once, recorded in
//! `gh_schema`; the two engines differ only in how ids are generated.

use anyhow::{Context, Result};
use sqlx::{PgPool, Row, SqlitePool};

/// `{ID}` becomes the engine's auto-increment primary key. Steps are counted
/// by position, so a step stays once released and a later step undoes it.
/// A step may hold several statements, `;`-separated: they run together.
pub(super) const STEPS: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS gh_deliveries (
        id TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        received_at BIGINT NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS gh_jobs (
        id {ID},
        delivery TEXT NOT NULL,
        pr_key TEXT NOT NULL,
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        installation BIGINT NOT NULL,
        head_sha TEXT,
        reason TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts BIGINT NOT NULL,
        not_before BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT,
        created_at BIGINT NOT NULL,
        finished_at BIGINT,
        error TEXT
    )",
    "CREATE INDEX IF NOT EXISTS gh_jobs_state ON gh_jobs (state, id)",
    "CREATE INDEX IF NOT EXISTS gh_jobs_pr ON gh_jobs (pr_key, state)",
    "CREATE TABLE IF NOT EXISTS gh_pr_locks (
        pr_key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        lease_until BIGINT NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS gh_reviews (
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        review_id BIGINT NOT NULL,
        reviewer TEXT NOT NULL,
        state TEXT NOT NULL,
        commit_id TEXT,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (repo, pr, review_id)
    )",
    "ALTER TABLE gh_jobs ADD COLUMN only_check TEXT",
    "ALTER TABLE gh_jobs ADD COLUMN started_sha TEXT",
    "ALTER TABLE gh_deliveries ADD COLUMN digest TEXT",
    "CREATE UNIQUE INDEX IF NOT EXISTS gh_deliveries_digest ON gh_deliveries (digest)",
    "CREATE TABLE IF NOT EXISTS gh_merge_groups (
        repo TEXT NOT NULL,
        head_sha TEXT NOT NULL,
        base_sha TEXT NOT NULL,
        base_ref TEXT NOT NULL,
        head_ref TEXT NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (repo, head_sha)
    )",
    "CREATE TABLE IF NOT EXISTS gh_review_requests (
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        head_sha TEXT NOT NULL,
        requested TEXT NOT NULL,
        refused TEXT NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (repo, pr, head_sha)
    )",
    // The review gate reads reviews from the GitHub API: nothing reads a stored copy.
    "DROP TABLE IF EXISTS gh_reviews",
    // What was read from GitHub by blob id, shared by replicas and restarts
    // (see store/blobs.rs).
    "CREATE TABLE IF NOT EXISTS gh_blobs (
        oid TEXT NOT NULL,
        size_limit BIGINT NOT NULL,
        kind TEXT NOT NULL,
        content TEXT,
        number BIGINT NOT NULL,
        agent TEXT,
        stored BIGINT NOT NULL,
        stored_at BIGINT NOT NULL,
        PRIMARY KEY (oid, size_limit)
    )",
    "CREATE INDEX IF NOT EXISTS gh_blobs_stored_at ON gh_blobs (stored_at)",
    "CREATE TABLE IF NOT EXISTS gh_blob_paths (
        commit_sha TEXT NOT NULL,
        path TEXT NOT NULL,
        oid TEXT,
        stored_at BIGINT NOT NULL,
        PRIMARY KEY (commit_sha, path)
    )",
    // Where the sweep for failed webhook deliveries stands (one row), and
    // the GUIDs whose redelivery was asked for (see store/redeliveries.rs).
    "CREATE TABLE IF NOT EXISTS gh_redelivery_sweep (
        id BIGINT PRIMARY KEY,
        pass_start BIGINT NOT NULL,
        floor BIGINT NOT NULL,
        cursor TEXT,
        lease_owner TEXT,
        lease_until BIGINT NOT NULL
    )",
    "INSERT INTO gh_redelivery_sweep (id, pass_start, floor, cursor, lease_owner, lease_until) \
     VALUES (1, 0, 0, NULL, NULL, 0) ON CONFLICT DO NOTHING",
    "CREATE TABLE IF NOT EXISTS gh_redeliveries (
        guid TEXT PRIMARY KEY,
        delivery_id BIGINT NOT NULL,
        attempts BIGINT NOT NULL,
        claimed_until BIGINT NOT NULL,
        requested_at BIGINT NOT NULL
    )",
    // The dependency index (see store/dependencies.rs).
    "CREATE TABLE IF NOT EXISTS gh_dependencies (
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        base_sha TEXT NOT NULL,
        documents TEXT NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (repo, pr)
    )",
    // Jobs name their target and scope in typed columns (see store/jobs.rs)
    // instead of a PR number 0 standing for a head, a merge group, an
    // install or a push, and a check name standing for the review gate.
    // Jobs queued by the release before are filled in from the old columns:
    // the worker dispatched merge groups by reason, PR 0 without a head was
    // an install, PR 0 with reason `push` a base tip, any other PR 0 a head;
    // a PR job resolved from a push carried the tip, which is no PR head.
    // SQLite adds a NOT NULL column only with a default: every insert sets it.
    "ALTER TABLE gh_jobs ADD COLUMN target TEXT NOT NULL DEFAULT 'pr';
    ALTER TABLE gh_jobs ADD COLUMN target_pr BIGINT;
    ALTER TABLE gh_jobs ADD COLUMN target_sha TEXT;
    ALTER TABLE gh_jobs ADD COLUMN scope TEXT NOT NULL DEFAULT 'all';
    ALTER TABLE gh_jobs ADD COLUMN once_per_head BOOLEAN NOT NULL DEFAULT FALSE;
    UPDATE gh_jobs SET
        target = CASE
            WHEN reason = 'merge_group.destroyed' THEN 'merge_group_destroyed'
            WHEN reason LIKE 'merge_group.%' THEN 'merge_group'
            WHEN pr <> 0 THEN 'pr'
            WHEN head_sha IS NULL THEN 'open_prs'
            WHEN reason = 'push' THEN 'base_tip'
            ELSE 'head' END,
        target_pr = CASE WHEN pr <> 0 AND reason NOT LIKE 'merge_group.%' THEN pr END,
        target_sha = CASE WHEN pr <> 0 AND reason = 'push' THEN NULL ELSE head_sha END,
        scope = CASE
            WHEN only_check IS NULL THEN 'all'
            WHEN only_check = 'gatehouse/review' THEN 'review_gate'
            ELSE only_check END,
        once_per_head = reason IN ('pull_request.opened', 'pull_request.synchronize', 'check_suite.requested',
            'merge_group.checks_requested');
    ALTER TABLE gh_jobs DROP COLUMN pr;
    ALTER TABLE gh_jobs DROP COLUMN head_sha;
    ALTER TABLE gh_jobs DROP COLUMN only_check",
];

pub(super) const SCHEMA_TABLE: &str = "CREATE TABLE IF NOT EXISTS gh_schema (step BIGINT PRIMARY KEY)";

pub async fn sqlite(pool: &SqlitePool) -> Result<()> {
    sqlx::query(SCHEMA_TABLE).execute(pool).await.context("cannot create the schema table")?;
    let done: i64 = sqlx::query("SELECT COUNT(*) AS n FROM gh_schema").fetch_one(pool).await?.try_get("n")?;
    for (step, sql) in STEPS.iter().enumerate().skip(done as usize) {
        let mut tx = pool.begin().await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.replace("{ID}", "INTEGER PRIMARY KEY AUTOINCREMENT")))
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO gh_schema (step) VALUES ($1)").bind(step as i64).execute(&mut *tx).await?;
        tx.commit().await.with_context(|| format!("migration step {step} failed"))?;
    }
    Ok(())
}

pub async fn postgres(pool: &PgPool) -> Result<()> {
    let mut tx = pool.begin().await?;
    // Replicas starting together migrate one at a time.
    sqlx::query("SELECT pg_advisory_xact_lock(7411)").execute(&mut *tx).await?;
    sqlx::query(SCHEMA_TABLE).execute(&mut *tx).await.context("cannot create the schema table")?;
    let done: i64 = sqlx::query("SELECT COUNT(*) AS n FROM gh_schema").fetch_one(&mut *tx).await?.try_get("n")?;
    for (step, sql) in STEPS.iter().enumerate().skip(done as usize) {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.replace("{ID}", "BIGSERIAL PRIMARY KEY"))).execute(&mut *tx).await?;
        sqlx::query("INSERT INTO gh_schema (step) VALUES ($1)").bind(step as i64).execute(&mut *tx).await?;
    }
    tx.commit().await.context("migration failed")?;
    Ok(())
}
