//! Review reminders (opt-in: `review.remind_after_days` in the config):
//! when the review gate has waited that many days on a reviewer requested
//! on a pull request, one comment mentions them and says what they are
//! asked to review; then at most one more per period, none on drafts. The
//! schedule is the store's (`Store::schedule_reminders`, kept by each
//! evaluation); every replica sweeps it, and a pull request's sweep is
//! claimed by one replica at a time.

use std::time::Duration;

use anyhow::{Result, anyhow};
use serde::Deserialize;
use tokio::sync::watch;

use super::Clock;
use crate::github::{GitHub, RepoClient, RepoName, Urgency, comments, issues};
use crate::plan::{GATE_REASONS, REVIEW_CHECK};
use crate::store::{ReminderSchedule, Store};

/// How reminders are swept.
#[derive(Clone, Copy, Debug)]
pub struct ReminderPolicy {
    /// Between sweeps (`serve --reminder-interval-secs`); zero: no sweep
    /// (no reminder is sent).
    pub interval: Duration,
    /// How long a replica holds a pull request's sweep.
    pub claim: Duration,
}

impl Default for ReminderPolicy {
    fn default() -> Self {
        ReminderPolicy { interval: Duration::from_secs(300), claim: Duration::from_secs(120) }
    }
}

/// A day of `remind_after_days`, in ms.
const DAY_MS: i64 = 24 * 3600 * 1000;

/// Pull requests one sweep looks at, at most.
const PER_SWEEP: i64 = 100;

/// Who sweeps, and on which clock.
pub(crate) struct Sweeper {
    pub store: Store,
    pub github: GitHub,
    pub policy: ReminderPolicy,
    pub clock: Clock,
}

/// Sweeps every interval (the first an interval after start) until `stop`.
pub(crate) async fn run(sweeper: Sweeper, mut stop: watch::Receiver<bool>) {
    let policy = sweeper.policy;
    if policy.interval.is_zero() {
        return;
    }
    loop {
        tokio::select! {
            _ = tokio::time::sleep(policy.interval) => {}
            _ = stop.changed() => return,
        }
        if let Err(err) = sweep(&sweeper).await {
            tracing::warn!(error = %format!("{err:#}"), "cannot sweep the review reminders");
        }
    }
}

async fn sweep(sweeper: &Sweeper) -> Result<()> {
    let store = &sweeper.store;
    for schedule in store.reminder_schedules(PER_SWEEP).await? {
        if !store.claim_reminders(&schedule, sweeper.policy.claim).await? {
            continue;
        }
        let reminded = remind(sweeper, &schedule).await;
        store.release_reminders(&schedule).await?;
        if let Err(err) = reminded {
            tracing::warn!(repo = %schedule.repo, pr = schedule.pr, error = %format!("{err:#}"), "cannot send reminders");
        }
    }
    Ok(())
}

/// `pull-request` (the fields read).
#[derive(Debug, Deserialize)]
struct Pull {
    state: String,
    #[serde(default)]
    draft: bool,
    head: issues::PullHead,
}

/// `GET /pulls/{n}/requested_reviewers` ("Get all requested reviewers for
/// a pull request"): the users (teams are not mentioned).
#[derive(Debug, Deserialize)]
struct Requested {
    users: Vec<Login>,
}

#[derive(Debug, Deserialize)]
struct Login {
    login: String,
}

/// The mark a reminder of `login` starts with, and when it was sent (ms).
fn mark(login: &str, at: i64) -> String {
    format!("<!-- gatehouse:reminder {} {at} -->", login.to_ascii_lowercase())
}

/// When a reminder of `login` was last posted, from the conversation's
/// comments (a replica that stopped after posting and before recording).
fn last_posted(bodies: &[String], login: &str) -> Option<i64> {
    let prefix = format!("<!-- gatehouse:reminder {} ", login.to_ascii_lowercase());
    bodies.iter().filter_map(|b| b.strip_prefix(&prefix)?.split(' ').next()?.parse().ok()).max()
}

async fn remind(sweeper: &Sweeper, schedule: &ReminderSchedule) -> Result<()> {
    let store = &sweeper.store;
    let name = RepoName::parse(&schedule.repo).ok_or_else(|| anyhow!("{:?} is not owner/name", schedule.repo))?;
    let repo =
        RepoClient::new(sweeper.github.clone(), schedule.installation as u64, name).with_urgency(Urgency::Background);
    let number = schedule.pr as u64;
    let pull: Pull = repo.get(&format!("/pulls/{number}")).await?;
    if pull.state != "open" || pull.draft {
        // The next evaluation (ready for review, reopened) schedules it again.
        return store.unschedule_reminders(&schedule.repo, schedule.pr).await;
    }
    let requested: Requested = repo.get(&format!("/pulls/{number}/requested_reviewers")).await?;
    let logins: Vec<String> = requested.users.into_iter().map(|u| u.login).collect();
    let now = sweeper.clock.now_ms();
    let every = DAY_MS.saturating_mul(schedule.every_days);
    let records = store.note_requested(schedule, &logins, now).await?;
    let due: Vec<&str> = records
        .iter()
        .filter(|r| now - r.last_sent.unwrap_or(r.first_seen) >= every)
        .map(|r| r.login.as_str())
        .collect();
    if due.is_empty() {
        return Ok(());
    }
    let runs = issues::runs(&repo, &pull.head.sha).await?;
    let Some(gate) = runs.iter().filter(|r| r.name == REVIEW_CHECK).max_by_key(|r| r.id) else { return Ok(()) };
    if gate.conclusion.as_deref() != Some("failure") {
        return Ok(());
    }
    let asked = what_is_asked(gate.output.summary.as_deref().unwrap_or(""));
    let bodies = comments::bodies(&repo, number).await?;
    let days = schedule.every_days;
    for login in due {
        if last_posted(&bodies, login).is_some_and(|at| now - at < every) {
            store.mark_reminded(schedule, login, now).await?;
            continue;
        }
        let plural = if days == 1 { "day" } else { "days" };
        let body = format!(
            "{}\n@{login}, the review gate of this pull request has waited on your review for {days} {plural}. You \
             are asked to review it because:\n\n{asked}\n",
            mark(login, now)
        );
        comments::post(&repo, number, &body).await?;
        store.mark_reminded(schedule, login, now).await?;
        tracing::info!(repo = %schedule.repo, pr = number, %login, "review reminder sent");
    }
    Ok(())
}

/// The gate's reasons, from its summary's "Why the gate applies" list.
fn what_is_asked(summary: &str) -> String {
    let reasons: Vec<&str> = summary
        .split(GATE_REASONS)
        .nth(1)
        .unwrap_or("")
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("- "))
        .collect();
    if reasons.is_empty() {
        return "- the documents this pull request changes that the review policy covers".to_string();
    }
    reasons.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reminder_is_found_by_its_mark_and_says_why() {
        let bodies = vec![format!("{}\n@lin …", mark("Lin", 500)), format!("{}\n@dana …", mark("dana", 900))];
        assert_eq!(last_posted(&bodies, "lin"), Some(500));
        assert_eq!(last_posted(&bodies, "priya"), None);
        let summary = "Review gate not passed.\n\n**Why the gate applies**\n\n- `a.md`: lines_estimate 400 > 100\n- `b.md`: x\n\nMore.";
        assert_eq!(what_is_asked(summary), "- `a.md`: lines_estimate 400 > 100\n- `b.md`: x");
        assert!(what_is_asked("").starts_with("- the documents"));
    }
}
