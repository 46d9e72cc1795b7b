//! Reviews recorded from `pull_request_review` deliveries, for the review gate.

use anyhow::Result;
use sqlx::Row;

use super::{Engine, ReviewRecord, Store, now_ms};

impl Store {
    /// Records a review event for the review gate (latest state per review).
    pub async fn record_review(&self, review: &ReviewRecord) -> Result<()> {
        let sql = "INSERT INTO gh_reviews (repo, pr, review_id, reviewer, state, commit_id, recorded_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (repo, pr, review_id) DO UPDATE SET \
                   reviewer = excluded.reviewer, state = excluded.state, commit_id = excluded.commit_id, recorded_at = excluded.recorded_at";
        let now = now_ms();
        self.write(sql, |q| {
            q.bind(review.repo.to_ascii_lowercase())
                .bind(review.pr as i64)
                .bind(review.review_id as i64)
                .bind(review.reviewer.clone())
                .bind(review.state.clone())
                .bind(review.commit_id.clone())
                .bind(now)
        })
        .await?;
        Ok(())
    }

    pub async fn reviews(&self, repo: &str, pr: u64) -> Result<Vec<ReviewRecord>> {
        let sql = "SELECT review_id, reviewer, state, commit_id FROM gh_reviews WHERE repo = $1 AND pr = $2 ORDER BY review_id";
        let repo_key = repo.to_ascii_lowercase();
        let rows = match &self.engine {
            Engine::Sqlite { pool, .. } => sqlx::query(sql)
                .bind(&repo_key)
                .bind(pr as i64)
                .fetch_all(pool)
                .await?
                .into_iter()
                .map(review_row)
                .collect::<Vec<_>>(),
            Engine::Postgres(pool) => sqlx::query(sql)
                .bind(&repo_key)
                .bind(pr as i64)
                .fetch_all(pool)
                .await?
                .into_iter()
                .map(review_row)
                .collect(),
        };
        rows.into_iter()
            .map(|r| {
                r.map(|(review_id, reviewer, state, commit_id)| ReviewRecord {
                    repo: repo.to_string(),
                    pr,
                    review_id,
                    reviewer,
                    state,
                    commit_id,
                })
            })
            .collect()
    }
}

fn review_row<R: Row>(row: R) -> Result<(u64, String, String, Option<String>)>
where
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database>,
    for<'r> &'r str: sqlx::ColumnIndex<R>,
{
    Ok((
        row.try_get::<i64, _>("review_id")? as u64,
        row.try_get("reviewer")?,
        row.try_get("state")?,
        row.try_get("commit_id")?,
    ))
}
