//! The dependency index: per open pull request, the documents on its base
//! branch its last evaluation read without the pull request touching them
//! (the config, the ADRs its briefs cite, the briefs and guidelines its body
//! cites, the voting docs it appends to), with a digest of each one's content at the base
//! commit it was evaluated on. Each evaluation replaces its pull request's
//! entry; a push to the base branch compares the digests at its new tip with these to find
//! the pull requests to evaluate again. One row per pull request, the
//! documents as JSON, so an entry is replaced in one statement.

use anyhow::{Context, Result};
use sqlx::FromRow;

use super::{Store, now_ms};

pub use crate::plan::dependencies::{Dependencies, Dependency};

impl Store {
    /// Replaces the pull request's entry.
    pub async fn record_dependencies(&self, repo: &str, entry: &Dependencies) -> Result<()> {
        let sql = "INSERT INTO gh_dependencies (repo, pr, base_sha, documents, recorded_at) VALUES ($1, $2, $3, $4, $5) \
                   ON CONFLICT (repo, pr) DO UPDATE SET base_sha = excluded.base_sha, documents = excluded.documents, \
                   recorded_at = excluded.recorded_at";
        let documents = serde_json::to_string(&entry.documents)?;
        let now = now_ms();
        let key = repo.to_ascii_lowercase();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&key)
                .bind(entry.pr as i64)
                .bind(&entry.base_sha)
                .bind(&documents)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// The pull request's entry, when it was evaluated.
    pub async fn dependencies(&self, repo: &str, pr: u64) -> Result<Option<Dependencies>> {
        let sql = "SELECT pr, base_sha, documents FROM gh_dependencies WHERE repo = $1 AND pr = $2";
        let key = repo.to_ascii_lowercase();
        let row: Option<DependenciesRow> =
            on_pool!(self, |pool| sqlx::query_as(sql).bind(&key).bind(pr as i64).fetch_optional(pool).await?);
        row.map(entry).transpose()
    }

    /// Every entry of the repository, by pull request number.
    pub async fn dependents(&self, repo: &str) -> Result<Vec<Dependencies>> {
        let sql = "SELECT pr, base_sha, documents FROM gh_dependencies WHERE repo = $1 ORDER BY pr";
        let key = repo.to_ascii_lowercase();
        let rows: Vec<DependenciesRow> = on_pool!(self, |pool| sqlx::query_as(sql).bind(&key).fetch_all(pool).await?);
        rows.into_iter().map(entry).collect()
    }

    /// The entries of every repository that name a file of `repo` (a
    /// document `owner/name:path`: a config their config extends), with
    /// the repository each belongs to.
    pub async fn dependents_elsewhere(&self, repo: &str) -> Result<Vec<(String, Dependencies)>> {
        let sql = "SELECT repo, pr, base_sha, documents FROM gh_dependencies WHERE LOWER(documents) LIKE $1 \
                   ORDER BY repo, pr";
        // `_` in a name matches any character here: the paths are compared
        // exactly below.
        let pattern = format!("%\"path\":\"{}:%", repo.to_ascii_lowercase());
        let rows: Vec<ElsewhereRow> = on_pool!(self, |pool| sqlx::query_as(sql).bind(&pattern).fetch_all(pool).await?);
        let prefix = format!("{}:", repo.to_ascii_lowercase());
        let mut out = Vec::new();
        for ElsewhereRow { repo, pr, base_sha, documents } in rows {
            let entry = entry(DependenciesRow { pr, base_sha, documents })?;
            if entry.documents.iter().any(|d| d.path.to_ascii_lowercase().starts_with(&prefix)) {
                out.push((repo, entry));
            }
        }
        Ok(out)
    }

    /// The entries of every repository that name `path` exactly (a team,
    /// `@org/slug`, the review gate read), with the repository each
    /// belongs to.
    pub async fn dependents_naming(&self, path: &str) -> Result<Vec<(String, Dependencies)>> {
        let sql = "SELECT repo, pr, base_sha, documents FROM gh_dependencies WHERE LOWER(documents) LIKE $1 \
                   ORDER BY repo, pr";
        let pattern = format!("%\"path\":\"{}\"%", path.to_ascii_lowercase());
        let rows: Vec<ElsewhereRow> = on_pool!(self, |pool| sqlx::query_as(sql).bind(&pattern).fetch_all(pool).await?);
        let mut out = Vec::new();
        for ElsewhereRow { repo, pr, base_sha, documents } in rows {
            let entry = entry(DependenciesRow { pr, base_sha, documents })?;
            if entry.documents.iter().any(|d| d.path.eq_ignore_ascii_case(path)) {
                out.push((repo, entry));
            }
        }
        Ok(out)
    }

    /// Drops the entry of a pull request that is no longer open.
    pub async fn forget_dependencies(&self, repo: &str, pr: u64) -> Result<()> {
        let sql = "DELETE FROM gh_dependencies WHERE repo = $1 AND pr = $2";
        let key = repo.to_ascii_lowercase();
        on_writer!(self, |pool| sqlx::query(sql).bind(&key).bind(pr as i64).execute(pool).await?.rows_affected());
        Ok(())
    }
}

/// A row of `gh_dependencies`: the documents as JSON.
#[derive(FromRow)]
struct DependenciesRow {
    pr: i64,
    base_sha: String,
    documents: String,
}

/// A row of `gh_dependencies` with the repository it belongs to.
#[derive(FromRow)]
struct ElsewhereRow {
    repo: String,
    pr: i64,
    base_sha: String,
    documents: String,
}

fn entry(row: DependenciesRow) -> Result<Dependencies> {
    let DependenciesRow { pr, base_sha, documents } = row;
    let documents =
        serde_json::from_str(&documents).with_context(|| format!("the dependencies of #{pr} are not JSON"))?;
    Ok(Dependencies { pr: pr as u64, base_sha, documents })
}
