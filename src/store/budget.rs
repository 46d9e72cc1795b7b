//! The write ledger of GitHub's secondary limits (`crate::github::budget`),
//! shared by every replica: each write of an installation is a row of
//! `gh_write_budget` for an hour. Deciding reads the installation's rows and
//! records the write in one transaction, which PostgreSQL replicas take one
//! installation at a time (`pg_advisory_xact_lock`) and SQLite's single
//! process under its write lock, so two replicas never both spend the last
//! write of a window.

use std::time::Duration;

use sqlx::{Acquire, FromRow};

use super::{Engine, Store, now_ms};
use crate::github::budget::{Budget, Ledger, LedgerFuture, Spent, Ticket, Urgency, Verdict, decide};

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

fn rows_to_spent(rows: Vec<Row>) -> Vec<Spent> {
    rows.into_iter().map(|r| Spent { at_ms: r.at_ms, endpoint: r.endpoint, in_flight: r.in_flight }).collect()
}

impl Store {
    async fn spend_write(
        &self,
        installation: u64,
        endpoint: &str,
        urgency: Urgency,
        budget: &Budget,
    ) -> anyhow::Result<Result<Ticket, Duration>> {
        let now = now_ms();
        let key = installation as i64;
        let postgres = matches!(self.engine, Engine::Postgres(_));
        let decided = on_writer!(self, |pool| {
            let mut tx = pool.begin().await?;
            if postgres {
                sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
                    .bind(LOCK_SPACE)
                    .bind(installation as i32)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query(PRUNE).bind(key).bind(now - HOUR_MS).execute(&mut *tx).await?;
            let rows: Vec<Row> = sqlx::query_as(SELECT).bind(key).bind(now - HOUR_MS).fetch_all(&mut *tx).await?;
            let out = match decide(budget, &rows_to_spent(rows), endpoint, now, urgency) {
                Verdict::Wait(wait) => Err(wait),
                Verdict::Go => {
                    let id: i64 =
                        sqlx::query_scalar(INSERT).bind(key).bind(now).bind(endpoint).fetch_one(&mut *tx).await?;
                    Ok(Ticket(id))
                }
            };
            tx.commit().await?;
            out
        });
        Ok(decided)
    }

    async fn release_write(&self, ticket: Ticket) -> anyhow::Result<()> {
        on_writer!(self, |pool| sqlx::query(RELEASE).bind(ticket.0).execute(pool).await?.rows_affected());
        Ok(())
    }
}

impl Ledger for Store {
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
        Box::pin(self.release_write(ticket))
    }
}
