//! Schema migrations, run at start: the numbered files of
//! `migrations/sqlite` and `migrations/postgres`, embedded at build time by
//! `sqlx::migrate!` and recorded with their checksums in `_sqlx_migrations`,
//! so a released migration whose file changed is refused. The two engines'
//! files differ only where their SQL does (how ids are generated).
//!
//! A database made by gatehouse 0.1 recorded its schema in `gh_schema`, one
//! row per step of a positional list. With all 20 of those steps its schema
//! is the baseline's (`0001_baseline.sql`), so the baseline is recorded as
//! applied without running; with any other number of steps it is refused.
//! `gh_schema` stays as it is: nothing reads it once the baseline is recorded.
//!
//! Replicas starting together: sqlx's PostgreSQL migrator holds
//! `pg_advisory_lock` (keyed by the database's name) while it reads what was
//! applied and applies the rest, so one replica migrates and the others wait
//! and find the work done. A SQLite file has one process, and its migrations
//! run under the store's write lock.

use anyhow::{Context, Result, bail};
use sqlx::migrate::Migrator;
use sqlx::{FromRow, PgPool, SqlitePool};

pub(super) static SQLITE: Migrator = sqlx::migrate!("migrations/sqlite");
pub(super) static POSTGRES: Migrator = sqlx::migrate!("migrations/postgres");

/// An engine's migrations up to and including `version`: a database as the
/// release before the later ones left it, for tests of an upgrade.
#[cfg(test)]
pub(super) fn up_to(engine: &Migrator, version: i64) -> Migrator {
    Migrator::with_migrations(engine.iter().filter(|m| m.version <= version).cloned().collect())
}

/// The version of `0001_baseline.sql`.
const BASELINE: i64 = 1;

/// The steps gatehouse 0.1 recorded in `gh_schema` (numbered from 0).
const LEGACY_STEPS: i64 = 20;

/// What `gh_schema` records.
#[derive(FromRow)]
struct LegacySteps {
    steps: i64,
    last: Option<i64>,
}

const LEGACY_STEPS_SQL: &str = "SELECT COUNT(*) AS steps, MAX(step) AS last FROM gh_schema";

/// Whether a database with `gh_schema` can be adopted: an error that says
/// what its steps are and what to do otherwise.
fn check_legacy(shown: &str, legacy: &LegacySteps) -> Result<()> {
    if legacy.steps == LEGACY_STEPS && legacy.last == Some(LEGACY_STEPS - 1) {
        return Ok(());
    }
    let last = legacy.last.map_or_else(|| "none".to_string(), |l| l.to_string());
    bail!(
        "cannot migrate {shown}: its table gh_schema records {} schema steps (the last: {last}), and this version \
         adopts a database of gatehouse 0.1 only with all {LEGACY_STEPS} (0 to {}). Open it once with the gatehouse \
         release that made it, which completes its steps, then with this version; or start from a new database.",
        legacy.steps,
        LEGACY_STEPS - 1
    )
}

pub(super) async fn sqlite(pool: &SqlitePool, shown: &str) -> Result<()> {
    // sqlite_master lists the database's tables; the query is SQLite's own.
    let has_legacy: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gh_schema')")
            .fetch_one(pool)
            .await?;
    if has_legacy {
        let legacy: LegacySteps = sqlx::query_as(LEGACY_STEPS_SQL).fetch_one(pool).await?;
        check_legacy(shown, &legacy)?;
        SQLITE.skip(pool, Some(BASELINE)).await.with_context(|| format!("cannot adopt the schema of {shown}"))?;
    }
    SQLITE.run(pool).await.with_context(|| format!("cannot migrate {shown}"))
}

pub(super) async fn postgres(pool: &PgPool, shown: &str) -> Result<()> {
    // to_regclass looks the name up on the search path (a test's schema);
    // the query is PostgreSQL's own.
    let has_legacy: bool = sqlx::query_scalar("SELECT to_regclass('gh_schema') IS NOT NULL").fetch_one(pool).await?;
    if has_legacy {
        let legacy: LegacySteps = sqlx::query_as(LEGACY_STEPS_SQL).fetch_one(pool).await?;
        check_legacy(shown, &legacy)?;
        // Under the migrator's lock: a replica adopting at the same time
        // finds the baseline recorded and records nothing.
        POSTGRES.skip(pool, Some(BASELINE)).await.with_context(|| format!("cannot adopt the schema of {shown}"))?;
    }
    POSTGRES.run(pool).await.with_context(|| format!("cannot migrate {shown}"))
}
