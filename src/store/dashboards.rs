//! Each repository's dashboard issue (`gh_dashboards`), and the job that
//! brings it up to date: at most one queued per repository, due a moment
//! after the evaluation that asked for it, so evaluations close together
//! share one edit.

use std::time::Duration;

use anyhow::Result;

use super::job::{Job, Target};
use super::{Store, now_ms};

/// How long a dashboard job waits for other evaluations to join it.
pub const DASHBOARD_COALESCE: Duration = Duration::from_secs(1);

/// The reason of a dashboard job.
pub const DASHBOARD_REASON: &str = "dashboard";

/// A repository's dashboard issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DashboardIssue {
    pub number: u64,
    /// Someone closed it: the dashboard is off.
    pub closed: bool,
}

impl Store {
    /// After an evaluation of `job`'s repository: queues the dashboard's job
    /// when the config enables it and none is queued; forgets the issue when
    /// the config does not (enabling it again opens a new one).
    pub async fn note_dashboard(&self, job: &Job, enabled: bool) -> Result<()> {
        let repo = job.repo.to_ascii_lowercase();
        if !enabled {
            // Read first: most repositories have no dashboard, and their
            // evaluations write nothing for it.
            if self.dashboard(&repo).await?.is_some() {
                let sql = "DELETE FROM gh_dashboards WHERE repo = $1";
                on_writer!(self, |pool| sqlx::query(sql).bind(&repo).execute(pool).await?.rows_affected());
            }
            return Ok(());
        }
        let key = Job::key(&job.repo, &Target::Dashboard);
        let now = now_ms();
        let due = now + DASHBOARD_COALESCE.as_millis() as i64;
        let sql = "INSERT INTO gh_jobs (delivery, pr_key, repo, installation, target, target_pr, target_sha, scope, \
                   once_per_head, reason, command, state, attempts, not_before, created_at) \
                   SELECT $1, $2, $3, $4, 'dashboard', NULL, NULL, 'all', FALSE, $5, NULL, 'queued', 0, $6, $7 \
                   WHERE NOT EXISTS (SELECT 1 FROM gh_jobs WHERE pr_key = $2 AND state = 'queued')";
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&job.delivery)
                .bind(&key)
                .bind(&job.repo)
                .bind(job.installation as i64)
                .bind(DASHBOARD_REASON)
                .bind(due)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// The repository's dashboard issue, when it has one.
    pub async fn dashboard(&self, repo: &str) -> Result<Option<DashboardIssue>> {
        let sql = "SELECT issue, closed FROM gh_dashboards WHERE repo = $1";
        let key = repo.to_ascii_lowercase();
        let row: Option<(i64, bool)> =
            on_pool!(self, |pool| sqlx::query_as(sql).bind(&key).fetch_optional(pool).await?);
        Ok(row.map(|(issue, closed)| DashboardIssue { number: issue as u64, closed }))
    }

    /// Records the repository's dashboard issue.
    pub async fn record_dashboard(&self, repo: &str, issue: DashboardIssue) -> Result<()> {
        let sql = "INSERT INTO gh_dashboards (repo, issue, closed) VALUES ($1, $2, $3) \
                   ON CONFLICT (repo) DO UPDATE SET issue = excluded.issue, closed = excluded.closed";
        let key = repo.to_ascii_lowercase();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&key)
                .bind(issue.number as i64)
                .bind(issue.closed)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }
}
