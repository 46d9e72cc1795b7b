//! `--history N`: the database `gatehouse serve` starts on holds N earlier
//! deliveries, each with its job finished, as a store that has served for
//! months does. The replay-digest index (keyed by a digest, so a random
//! place for each delivery) then spans many pages, and a commit changes one
//! of them for almost every delivery it stores; on a fresh database the
//! deliveries of a commit share its few pages.

use std::path::Path;

use anyhow::{Context, Result};
use gatehouse::github::HeadSha;
use gatehouse::store::{NewJob, PrNumber, Scope, Signed, Store, Target};
use sha2::{Digest, Sha256};

use super::{INSTALLATION, REPOS};

/// Deliveries in flight at once while filling (the group commit stores up
/// to 256 in one transaction).
const IN_FLIGHT: usize = 4_096;

/// Deliveries a pull request gets over its life (an opening, pushes,
/// reviews, check suites), so the history's jobs share their PRs.
const DELIVERIES_PER_PR: usize = 20;

/// The `i`th of `count` earlier deliveries' id: a time-based GUID, as
/// GitHub's, the history spread evenly over the 30 days before the run's.
fn history_id(i: usize, count: usize) -> String {
    const THIRTY_DAYS: u64 = 30 * 24 * 3600 * 10_000_000;
    let ticks = super::FIRST_TICKS - THIRTY_DAYS / count as u64 * (count - i) as u64;
    super::guid(ticks)
}

/// Stores `count` deliveries through the store's own accepting path, each
/// with a signature of its own and a job for one pull request, closes the
/// store as a stopping server does, then marks every job done: a job
/// queued in the database would be run by the server.
pub async fn fill(database: &Path, count: usize) -> Result<()> {
    let url = format!("sqlite://{}", database.display());
    let store = Store::connect(&url).await?;
    for first in (0..count).step_by(IN_FLIGHT) {
        let mut stored = tokio::task::JoinSet::new();
        for i in first..(first + IN_FLIGHT).min(count) {
            let store = store.clone();
            stored.spawn(async move {
                let mac = Sha256::digest(i.to_le_bytes());
                let head = hex::encode(&Sha256::digest(mac)[..20]);
                let job = NewJob {
                    repo: format!("load/history-{}", i % REPOS),
                    installation: INSTALLATION,
                    target: Target::Pr {
                        number: PrNumber((i / (REPOS * DELIVERIES_PER_PR) + 1) as u64),
                        head: Some(HeadSha(head)),
                    },
                    scope: Scope::All,
                    once_per_head: true,
                    reason: "pull_request.synchronize".into(),
                };
                let signed = Signed { body: b"", mac: &mac };
                store.accept_signed(&history_id(i, count), "pull_request", signed, &[job]).await
            });
        }
        while let Some(accepted) = stored.join_next().await {
            accepted??;
        }
    }
    store.close().await?;
    // The one write here not made through the store: no API finishes a job
    // without running it.
    let connection = rusqlite::Connection::open(database)?;
    connection.busy_timeout(std::time::Duration::from_secs(10))?;
    connection
        .execute("UPDATE gh_jobs SET state = 'done', finished_at = created_at", [])
        .context("cannot mark the history's jobs done")?;
    connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    Ok(())
}
