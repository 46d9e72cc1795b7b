//! The review requests the App made, once per pull request head.

use anyhow::Result;
use sqlx::FromRow;

use super::{Store, now_ms};

/// What asking for reviews on one head came to.
pub use crate::plan::requests::Made as ReviewRequests;
use crate::plan::requests::Recorded;

/// A row of `gh_review_requests`: the logins joined by commas.
#[derive(FromRow)]
struct ReviewRequestsRow {
    head_sha: String,
    requested: String,
    refused: String,
    settled: bool,
}

fn join(logins: &[String]) -> String {
    logins.join(",")
}

fn split(logins: &str) -> Vec<String> {
    logins.split(',').filter(|l| !l.is_empty()).map(str::to_string).collect()
}

impl Store {
    /// What was last recorded of asking for reviews on the PR, and the head
    /// it was on: the job reads it before it knows the PR's head.
    pub async fn review_requests(&self, repo: &str, pr: u64) -> Result<Option<(String, Recorded)>> {
        let sql = "SELECT head_sha, requested, refused, settled FROM gh_review_requests WHERE repo = $1 AND pr = $2 \
                   ORDER BY recorded_at DESC LIMIT 1";
        let key = repo.to_ascii_lowercase();
        let row: Option<ReviewRequestsRow> =
            on_pool!(self, |pool| { sqlx::query_as(sql).bind(&key).bind(pr as i64).fetch_optional(pool).await? });
        Ok(row.map(|ReviewRequestsRow { head_sha, requested, refused, settled }| {
            let recorded = if settled {
                Recorded::Made(ReviewRequests { requested: split(&requested), refused: split(&refused) })
            } else {
                Recorded::Asking(split(&requested))
            };
            (head_sha, recorded)
        }))
    }

    /// Records the logins a job is about to ask on `head` of the PR, before
    /// it asks: an attempt killed in between asks them again.
    pub(crate) async fn record_asking(&self, repo: &str, pr: u64, head: &str, logins: &[String]) -> Result<()> {
        let asking = ReviewRequests { requested: logins.to_vec(), refused: Vec::new() };
        self.write_review_requests(repo, pr, head, &asking, false).await
    }

    /// Records the requests made on `head` of the PR (a later record of the
    /// same head replaces it).
    pub(crate) async fn record_review_requests(
        &self,
        repo: &str,
        pr: u64,
        head: &str,
        made: &ReviewRequests,
    ) -> Result<()> {
        self.write_review_requests(repo, pr, head, made, true).await
    }

    async fn write_review_requests(
        &self,
        repo: &str,
        pr: u64,
        head: &str,
        made: &ReviewRequests,
        settled: bool,
    ) -> Result<()> {
        let sql = "INSERT INTO gh_review_requests (repo, pr, head_sha, requested, refused, settled, recorded_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (repo, pr, head_sha) DO UPDATE SET \
                   requested = excluded.requested, refused = excluded.refused, settled = excluded.settled, \
                   recorded_at = excluded.recorded_at";
        let now = now_ms();
        let (key, requested, refused) = (repo.to_ascii_lowercase(), join(&made.requested), join(&made.refused));
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&key)
                .bind(pr as i64)
                .bind(head)
                .bind(&requested)
                .bind(&refused)
                .bind(settled)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }
}
