//! The schedule of review reminders, kept in the store so it survives
//! restarts: a pull request is on it while its review gate waits and the
//! config asks for reminders (`gh_reminders`); each reviewer requested on
//! it has the time the App first saw them requested and the time it last
//! reminded them (`gh_reminded`). A replica sweeps a pull request's
//! reminders under a claim, so one replica sends them.

use std::time::Duration;

use anyhow::Result;
use sqlx::FromRow;

use super::{Store, now_ms};

/// A pull request on the schedule.
#[derive(Clone, Debug, PartialEq, Eq, FromRow)]
pub struct ReminderSchedule {
    pub repo: String,
    pub pr: i64,
    pub installation: i64,
    pub every_days: i64,
}

/// A reviewer requested on a scheduled pull request.
#[derive(Clone, Debug, PartialEq, Eq, FromRow)]
pub struct Reminded {
    pub login: String,
    pub first_seen: i64,
    pub last_sent: Option<i64>,
}

impl Store {
    /// After an evaluation: puts the pull request on the schedule, every
    /// `every_days`, or takes it off with what it noted (`None`: reminders
    /// are off, it is a draft, or its gate waits on nobody).
    pub async fn schedule_reminders(
        &self,
        repo: &str,
        pr: u64,
        installation: u64,
        every_days: Option<u64>,
    ) -> Result<()> {
        let key = repo.to_ascii_lowercase();
        let Some(days) = every_days else {
            return self.unschedule_reminders(&key, pr as i64).await;
        };
        let sql = "INSERT INTO gh_reminders (repo, pr, installation, every_days, claimed_until) VALUES ($1, $2, $3, $4, 0) \
                   ON CONFLICT (repo, pr) DO UPDATE SET installation = excluded.installation, every_days = excluded.every_days";
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(&key)
                .bind(pr as i64)
                .bind(installation as i64)
                .bind(days as i64)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// Takes a pull request off the schedule.
    pub async fn unschedule_reminders(&self, repo: &str, pr: i64) -> Result<()> {
        let key = repo.to_ascii_lowercase();
        // Read first: most pull requests are on no schedule, and their
        // evaluations write nothing for it.
        let held = "SELECT (SELECT COUNT(*) FROM gh_reminders WHERE repo = $1 AND pr = $2) \
                    + (SELECT COUNT(*) FROM gh_reminded WHERE repo = $1 AND pr = $2)";
        let rows: i64 = on_pool!(self, |pool| sqlx::query_scalar(held).bind(&key).bind(pr).fetch_one(pool).await?);
        if rows == 0 {
            return Ok(());
        }
        for sql in [
            "DELETE FROM gh_reminders WHERE repo = $1 AND pr = $2",
            "DELETE FROM gh_reminded WHERE repo = $1 AND pr = $2",
        ] {
            on_writer!(self, |pool| sqlx::query(sql).bind(&key).bind(pr).execute(pool).await?.rows_affected());
        }
        Ok(())
    }

    /// The scheduled pull requests no replica holds, at most `limit`.
    pub async fn reminder_schedules(&self, limit: i64) -> Result<Vec<ReminderSchedule>> {
        let sql = "SELECT repo, pr, installation, every_days FROM gh_reminders WHERE claimed_until < $1 \
                   ORDER BY repo, pr LIMIT $2";
        let now = now_ms();
        Ok(on_pool!(self, |pool| sqlx::query_as(sql).bind(now).bind(limit).fetch_all(pool).await?))
    }

    /// Claims a scheduled pull request's sweep for `lease`: false when
    /// another replica holds it.
    pub async fn claim_reminders(&self, schedule: &ReminderSchedule, lease: Duration) -> Result<bool> {
        let sql = "UPDATE gh_reminders SET claimed_until = $1 WHERE repo = $2 AND pr = $3 AND claimed_until < $4";
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        let claimed = on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(until)
                .bind(&schedule.repo)
                .bind(schedule.pr)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(claimed == 1)
    }

    /// Ends a claim.
    pub async fn release_reminders(&self, schedule: &ReminderSchedule) -> Result<()> {
        let sql = "UPDATE gh_reminders SET claimed_until = 0 WHERE repo = $1 AND pr = $2";
        on_writer!(self, |pool| sqlx::query(sql)
            .bind(&schedule.repo)
            .bind(schedule.pr)
            .execute(pool)
            .await?
            .rows_affected());
        Ok(())
    }

    /// Notes who is requested on the pull request now: a login seen for
    /// the first time is waited on from `now`; a login not in `logins`
    /// is forgotten. Returns every requested login's record.
    pub async fn note_requested(
        &self,
        schedule: &ReminderSchedule,
        logins: &[String],
        now: i64,
    ) -> Result<Vec<Reminded>> {
        let insert = "INSERT INTO gh_reminded (repo, pr, login, first_seen, last_sent) VALUES ($1, $2, $3, $4, NULL) \
                      ON CONFLICT (repo, pr, login) DO NOTHING";
        let lowered: Vec<String> = logins.iter().map(|l| l.to_ascii_lowercase()).collect();
        for login in &lowered {
            on_writer!(self, |pool| {
                sqlx::query(insert)
                    .bind(&schedule.repo)
                    .bind(schedule.pr)
                    .bind(login)
                    .bind(now)
                    .execute(pool)
                    .await?
                    .rows_affected()
            });
        }
        let select = "SELECT login, first_seen, last_sent FROM gh_reminded WHERE repo = $1 AND pr = $2 ORDER BY login";
        let all: Vec<Reminded> = on_pool!(self, |pool| sqlx::query_as(select)
            .bind(&schedule.repo)
            .bind(schedule.pr)
            .fetch_all(pool)
            .await?);
        let delete = "DELETE FROM gh_reminded WHERE repo = $1 AND pr = $2 AND login = $3";
        let mut kept = Vec::new();
        for reminded in all {
            if lowered.contains(&reminded.login) {
                kept.push(reminded);
            } else {
                on_writer!(self, |pool| {
                    sqlx::query(delete)
                        .bind(&schedule.repo)
                        .bind(schedule.pr)
                        .bind(&reminded.login)
                        .execute(pool)
                        .await?
                        .rows_affected()
                });
            }
        }
        Ok(kept)
    }

    /// Records that `login` was reminded at `at`.
    pub async fn mark_reminded(&self, schedule: &ReminderSchedule, login: &str, at: i64) -> Result<()> {
        let sql = "UPDATE gh_reminded SET last_sent = $1 WHERE repo = $2 AND pr = $3 AND login = $4";
        let login = login.to_ascii_lowercase();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(at)
                .bind(&schedule.repo)
                .bind(schedule.pr)
                .bind(&login)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }
}
