//! Gate attestations and bypassed merges (`gh_attestations`,
//! `gh_attested_blobs`, `gh_bypassed_merges`): each written once per pull
//! request, so a redelivered `closed` event or a retried job records nothing
//! twice.

use anyhow::Result;

use super::{Store, now_ms};

/// A merge that bypassed a red check or the review gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BypassedMerge {
    pub pr: u64,
    pub merge_sha: String,
    /// The checks that were not green, as the comment names them.
    pub red: String,
}

impl Store {
    /// Records PR `pr`'s signed envelope and the (path, blob) pairs it names.
    pub async fn record_attestation(
        &self,
        repo: &str,
        pr: u64,
        merge_sha: &str,
        envelope: &str,
        subjects: &[(String, String)],
    ) -> Result<()> {
        let repo = repo.to_ascii_lowercase();
        let sql = "INSERT INTO gh_attestations (repo, pr, merge_sha, envelope, created_at) VALUES ($1, $2, $3, $4, $5) \
                   ON CONFLICT (repo, pr) DO NOTHING";
        let now = now_ms();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&repo)
                .bind(pr as i64)
                .bind(merge_sha)
                .bind(envelope)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        let sql = "INSERT INTO gh_attested_blobs (repo, blob, path, pr) VALUES ($1, $2, $3, $4) \
                   ON CONFLICT (repo, blob, path, pr) DO NOTHING";
        for (path, blob) in subjects {
            on_writer!(self, |pool| {
                sqlx::query(sql).bind(&repo).bind(blob).bind(path).bind(pr as i64).execute(pool).await?.rows_affected()
            });
        }
        Ok(())
    }

    /// The envelopes of the repository's attestations, oldest pull request
    /// first; with `blob`, only those naming that blob.
    pub async fn attestations(&self, repo: &str, blob: Option<&str>) -> Result<Vec<String>> {
        let repo = repo.to_ascii_lowercase();
        let rows: Vec<(String,)> = match blob {
            None => {
                let sql = "SELECT envelope FROM gh_attestations WHERE repo = $1 ORDER BY pr";
                on_pool!(self, |pool| sqlx::query_as(sql).bind(&repo).fetch_all(pool).await?)
            }
            Some(blob) => {
                let sql = "SELECT a.envelope FROM gh_attestations a WHERE a.repo = $1 AND a.pr IN \
                           (SELECT b.pr FROM gh_attested_blobs b WHERE b.repo = $1 AND b.blob = $2) ORDER BY a.pr";
                on_pool!(self, |pool| sqlx::query_as(sql).bind(&repo).bind(blob).fetch_all(pool).await?)
            }
        };
        Ok(rows.into_iter().map(|(envelope,)| envelope).collect())
    }

    /// Records that PR `pr` merged past red checks.
    pub async fn record_bypass(&self, repo: &str, merge: &BypassedMerge) -> Result<()> {
        let repo = repo.to_ascii_lowercase();
        let sql = "INSERT INTO gh_bypassed_merges (repo, pr, merge_sha, red, created_at) VALUES ($1, $2, $3, $4, $5) \
                   ON CONFLICT (repo, pr) DO NOTHING";
        let now = now_ms();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&repo)
                .bind(merge.pr as i64)
                .bind(&merge.merge_sha)
                .bind(&merge.red)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// The repository's merges that bypassed the gate, newest first, at most `limit`.
    pub async fn bypassed_merges(&self, repo: &str, limit: u32) -> Result<Vec<BypassedMerge>> {
        let repo = repo.to_ascii_lowercase();
        let sql = "SELECT pr, merge_sha, red FROM gh_bypassed_merges WHERE repo = $1 ORDER BY created_at DESC, pr DESC \
                   LIMIT $2";
        let rows: Vec<(i64, String, String)> =
            on_pool!(self, |pool| sqlx::query_as(sql).bind(&repo).bind(limit as i64).fetch_all(pool).await?);
        Ok(rows.into_iter().map(|(pr, merge_sha, red)| BypassedMerge { pr: pr as u64, merge_sha, red }).collect())
    }
}
