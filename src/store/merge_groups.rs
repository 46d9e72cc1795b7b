//! Merge groups as their `merge_group` deliveries describe them: the job
//! of a group names only its head, and the worker reads the rest here.

use anyhow::Result;
use sqlx::FromRow;

use super::{Store, now_ms};

/// A merge group of GitHub's merge queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeGroupRecord {
    pub repo: String,
    pub head_sha: String,
    /// The commit the group is built on.
    pub base_sha: String,
    /// `refs/heads/main`: the branch the group merges into.
    pub base_ref: String,
    /// `refs/heads/gh-readonly-queue/main/pr-12-<sha>`.
    pub head_ref: String,
}

/// What `gh_merge_groups` holds of a group beside its key.
#[derive(FromRow)]
struct MergeGroupRow {
    base_sha: String,
    base_ref: String,
    head_ref: String,
}

impl Store {
    /// Records a merge group (the latest description of a head wins).
    pub(crate) async fn record_merge_group(&self, group: &MergeGroupRecord) -> Result<()> {
        let sql = "INSERT INTO gh_merge_groups (repo, head_sha, base_sha, base_ref, head_ref, recorded_at) \
                   VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (repo, head_sha) DO UPDATE SET \
                   base_sha = excluded.base_sha, base_ref = excluded.base_ref, head_ref = excluded.head_ref, \
                   recorded_at = excluded.recorded_at";
        let now = now_ms();
        let key = group.repo.to_ascii_lowercase();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&key)
                .bind(&group.head_sha)
                .bind(&group.base_sha)
                .bind(&group.base_ref)
                .bind(&group.head_ref)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// The merge group whose head is `head_sha`, when one was delivered.
    pub async fn merge_group(&self, repo: &str, head_sha: &str) -> Result<Option<MergeGroupRecord>> {
        let sql = "SELECT base_sha, base_ref, head_ref FROM gh_merge_groups WHERE repo = $1 AND head_sha = $2";
        let key = repo.to_ascii_lowercase();
        let row: Option<MergeGroupRow> =
            on_pool!(self, |pool| sqlx::query_as(sql).bind(&key).bind(head_sha).fetch_optional(pool).await?);
        Ok(row.map(|MergeGroupRow { base_sha, base_ref, head_ref }| MergeGroupRecord {
            repo: repo.to_string(),
            head_sha: head_sha.to_string(),
            base_sha,
            base_ref,
            head_ref,
        }))
    }
}
