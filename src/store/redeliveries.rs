//! What the sweep for failed webhook deliveries keeps (app/redeliver.rs):
//! where it stands in GitHub's delivery history, held by one replica at a
//! time under a lease, and a claim per GUID whose redelivery was asked for,
//! so replicas and later sweeps do not ask for it again while GitHub is
//! delivering it, and ask a bounded number of times in all.

use anyhow::Result;

use sqlx::FromRow;

use super::Store;

/// One pass of the sweep reads GitHub's deliveries newest first, from when
/// the pass began back to its floor, over as many sweeps as it takes.
#[derive(Clone, Debug, Default, PartialEq, Eq, FromRow)]
pub struct SweepState {
    /// When the pass in progress began (ms); 0: none has begun.
    pub pass_start: i64,
    /// The oldest delivery time the pass reads back to (ms).
    pub floor: i64,
    /// The next page of the pass in progress, when it stopped at its page bound.
    pub cursor: Option<String>,
}

/// How often the redelivery of one GUID was asked for.
#[derive(FromRow)]
struct RedeliveryAttempts {
    guid: String,
    attempts: i64,
}

impl Store {
    /// Takes or renews the sweep's lease for `owner` until `until` (ms),
    /// unless another holder's lease runs; returns where the sweep stands.
    pub async fn lease_sweep(&self, owner: &str, now: i64, until: i64) -> Result<Option<SweepState>> {
        let take = "UPDATE gh_redelivery_sweep SET lease_owner = $1, lease_until = $2 \
                    WHERE id = 1 AND (lease_until < $3 OR lease_owner = $1)";
        let taken = on_writer!(self, |pool| {
            sqlx::query(take).bind(owner).bind(until).bind(now).execute(pool).await?.rows_affected()
        });
        if taken == 0 {
            return Ok(None);
        }
        let read = "SELECT pass_start, floor, cursor FROM gh_redelivery_sweep WHERE id = 1";
        let state: SweepState = on_pool!(self, |pool| sqlx::query_as(read).fetch_one(pool).await?);
        Ok(Some(state))
    }

    /// Records where the sweep stands, if `owner` still holds the lease.
    pub(crate) async fn save_sweep(&self, owner: &str, state: &SweepState) -> Result<bool> {
        let sql = "UPDATE gh_redelivery_sweep SET pass_start = $1, floor = $2, cursor = $3 \
                   WHERE id = 1 AND lease_owner = $4";
        let updated = on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(state.pass_start)
                .bind(state.floor)
                .bind(state.cursor.as_deref())
                .bind(owner)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(updated == 1)
    }

    /// Lets another replica sweep next.
    pub(crate) async fn release_sweep(&self, owner: &str) -> Result<()> {
        let sql = "UPDATE gh_redelivery_sweep SET lease_until = 0 WHERE id = 1 AND lease_owner = $1";
        on_writer!(self, |pool| sqlx::query(sql).bind(owner).execute(pool).await?.rows_affected());
        Ok(())
    }

    /// Whether a delivery with this `X-GitHub-Delivery` was accepted.
    pub(crate) async fn delivery_stored(&self, guid: &str) -> Result<bool> {
        let sql = "SELECT COUNT(*) FROM gh_deliveries WHERE id = $1";
        let n: i64 = on_pool!(self, |pool| sqlx::query_scalar(sql).bind(guid).fetch_one(pool).await?);
        Ok(n > 0)
    }

    /// Claims the redelivery of `guid` (by its attempt `delivery_id`) until
    /// `until` (ms), when no claim on it runs and it was asked for fewer
    /// than `max_attempts` times: returns how many times it has been, this
    /// one included.
    pub(crate) async fn claim_redelivery(
        &self,
        guid: &str,
        delivery_id: u64,
        now: i64,
        until: i64,
        max_attempts: i64,
    ) -> Result<Option<i64>> {
        let sql = "INSERT INTO gh_redeliveries (guid, delivery_id, attempts, claimed_until, requested_at) \
                   VALUES ($1, $2, 1, $3, $4) ON CONFLICT (guid) DO UPDATE SET \
                   delivery_id = excluded.delivery_id, attempts = gh_redeliveries.attempts + 1, \
                   claimed_until = excluded.claimed_until, requested_at = excluded.requested_at \
                   WHERE gh_redeliveries.claimed_until < excluded.requested_at AND gh_redeliveries.attempts < $5 \
                   RETURNING attempts";
        let id = delivery_id as i64;
        Ok(on_writer!(self, |pool| {
            sqlx::query_scalar(sql)
                .bind(guid)
                .bind(id)
                .bind(until)
                .bind(now)
                .bind(max_attempts)
                .fetch_optional(pool)
                .await?
        }))
    }

    /// Ends the claim on `guid` at once: GitHub refused the request, so the
    /// next sweep may ask again (the attempt still counts).
    pub(crate) async fn release_redelivery(&self, guid: &str) -> Result<()> {
        let sql = "UPDATE gh_redeliveries SET claimed_until = 0 WHERE guid = $1";
        on_writer!(self, |pool| sqlx::query(sql).bind(guid).execute(pool).await?.rows_affected());
        Ok(())
    }

    /// How often the redelivery of each GUID was asked for, by GUID: for
    /// tests and operators.
    pub async fn redelivery_attempts(&self) -> Result<Vec<(String, i64)>> {
        let sql = "SELECT guid, attempts FROM gh_redeliveries ORDER BY guid";
        let rows: Vec<RedeliveryAttempts> = on_pool!(self, |pool| sqlx::query_as(sql).fetch_all(pool).await?);
        Ok(rows.into_iter().map(|row| (row.guid, row.attempts)).collect())
    }
}
