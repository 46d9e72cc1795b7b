//! The write ledger of GitHub's secondary limits (`crate::github::budget`).
//!
//! On PostgreSQL it is shared by every replica: each write of an
//! installation is a row of `gh_write_budget` for an hour, and deciding reads
//! the installation's rows and records the write in one transaction, which
//! replicas take one installation at a time (`pg_advisory_xact_lock`), so two
//! replicas never both spend the last write of a window. A SQLite store has
//! one process: its ledger is that process's memory, and a write never waits
//! on the database (nor on another connection holding the file's lock).
//!
//! The installations' rate-limit pauses are kept on both engines: every
//! replica reads them, and on SQLite a restarted process still honours one.

use std::sync::Arc;
use std::time::Duration;

use sqlx::{FromRow, PgPool};

use super::{Engine, Store, now_ms};
use crate::github::Pauses;
use crate::github::budget::{Budget, Ledger, LedgerFuture, MemoryLedger, Spent, Ticket, Urgency, Verdict, decide};

const HOUR_MS: i64 = 3_600_000;

/// The advisory-lock key space of the ledger (any constant that no other
/// lock of the App uses: sqlx's migrator keys its lock by the database name).
const LOCK_SPACE: i32 = 0x6768_7762; // "ghwb"

#[derive(FromRow)]
struct Row {
    at_ms: i64,
    endpoint: String,
    in_flight: bool,
}

const SELECT: &str = "SELECT at_ms, endpoint, in_flight FROM gh_write_budget WHERE installation = $1 AND at_ms > $2";
const PRUNE: &str = "DELETE FROM gh_write_budget WHERE installation = $1 AND at_ms <= $2";
const INSERT: &str =
    "INSERT INTO gh_write_budget (installation, at_ms, endpoint, in_flight) VALUES ($1, $2, $3, TRUE) RETURNING id";
const RELEASE: &str = "UPDATE gh_write_budget SET in_flight = FALSE WHERE id = $1";

/// The replicas' shared ledger, in PostgreSQL.
#[derive(Debug)]
struct SharedLedger(PgPool);

impl Store {
    /// Where this store's process counts its writes to GitHub: shared by
    /// the replicas on PostgreSQL, in memory on SQLite (one process).
    pub fn write_ledger(&self) -> Arc<dyn Ledger> {
        match &self.engine {
            Engine::Postgres(pool) => Arc::new(SharedLedger(pool.clone())),
            Engine::Sqlite { .. } => Arc::new(MemoryLedger::default()),
        }
    }
}

impl SharedLedger {
    async fn spend_write(
        &self,
        installation: u64,
        endpoint: &str,
        urgency: Urgency,
        budget: &Budget,
    ) -> anyhow::Result<Result<Ticket, Duration>> {
        let now = now_ms();
        let key = installation as i64;
        let mut tx = self.0.begin().await?;
        // Two 32-bit keys: an installation id above 2^32 shares its lock with
        // another installation's, which costs waiting, not correctness.
        sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
            .bind(LOCK_SPACE)
            .bind(installation as i32)
            .execute(&mut *tx)
            .await?;
        sqlx::query(PRUNE).bind(key).bind(now - HOUR_MS).execute(&mut *tx).await?;
        let rows: Vec<Row> = sqlx::query_as(SELECT).bind(key).bind(now - HOUR_MS).fetch_all(&mut *tx).await?;
        let spent: Vec<Spent> =
            rows.into_iter().map(|r| Spent { at_ms: r.at_ms, endpoint: r.endpoint, in_flight: r.in_flight }).collect();
        let decided = match decide(budget, &spent, endpoint, now, urgency) {
            Verdict::Wait(wait) => Err(wait),
            Verdict::Go => {
                let id: i64 = sqlx::query_scalar(INSERT).bind(key).bind(now).bind(endpoint).fetch_one(&mut *tx).await?;
                Ok(Ticket(id))
            }
        };
        tx.commit().await?;
        Ok(decided)
    }
}

impl Ledger for SharedLedger {
    fn spend<'a>(
        &'a self,
        installation: u64,
        endpoint: &'a str,
        urgency: Urgency,
        budget: &'a Budget,
    ) -> LedgerFuture<'a, Result<Ticket, Duration>> {
        Box::pin(self.spend_write(installation, endpoint, urgency, budget))
    }

    fn release(&self, _installation: u64, ticket: Ticket) -> LedgerFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query(RELEASE).bind(ticket.0).execute(&self.0).await?;
            Ok(())
        })
    }
}

/// When each installation may send requests again (`gh_installation_pauses`),
/// on either engine: read before each request, so a refusal answered to one
/// worker or replica holds them all, and a restarted process too.
#[derive(Clone)]
struct StoredPauses(Store);

impl std::fmt::Debug for StoredPauses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoredPauses")
    }
}

/// Keeps the later of two ends (SQLite and PostgreSQL alike).
const PAUSE: &str = "INSERT INTO gh_installation_pauses (installation, until_ms) VALUES ($1, $2) \
     ON CONFLICT (installation) DO UPDATE SET until_ms = excluded.until_ms \
     WHERE gh_installation_pauses.until_ms < excluded.until_ms";
const PAUSED_UNTIL: &str = "SELECT until_ms FROM gh_installation_pauses WHERE installation = $1";

impl Store {
    /// Where this store's process shares the installations' rate-limit
    /// pauses: with every replica of the database.
    pub fn installation_pauses(&self) -> Arc<dyn Pauses> {
        Arc::new(StoredPauses(self.clone()))
    }
}

impl Pauses for StoredPauses {
    fn pause(&self, installation: u64, until_ms: i64) -> LedgerFuture<'_, ()> {
        Box::pin(async move {
            let key = installation as i64;
            on_writer!(self.0, |pool| sqlx::query(PAUSE).bind(key).bind(until_ms).execute(pool).await?.rows_affected());
            Ok(())
        })
    }

    fn paused_until(&self, installation: u64) -> LedgerFuture<'_, Option<i64>> {
        Box::pin(async move {
            let key = installation as i64;
            Ok(on_pool!(self.0, |pool| sqlx::query_scalar(PAUSED_UNTIL).bind(key).fetch_optional(pool).await?))
        })
    }
}
