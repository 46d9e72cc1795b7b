//! The installation's pause, as the client keeps it: a call waits until its
//! installation may send (no pause, in this process or recorded by another
//! replica), a write also for its turn and budget, and after a pause a
//! background call lets the calls a person waits for go first.

use std::time::Duration;

use reqwest::Method;

use super::{ApiError, GitHub, Held, secs_up};
use crate::github::budget::{self, Ticket, Urgency};
use crate::github::limits::WriteSlot;

/// How often a background call looks again whether the calls a person waits
/// for have gone after a pause.
const PEOPLE_FIRST_POLL: Duration = Duration::from_millis(10);

impl GitHub {
    /// Waits until the installation may send this call: its pause over, and
    /// for a write, its turn and a write of its budget. A pause that began
    /// while the write waited for its turn or budget is waited out again, so
    /// no call leaves during one (a write spent from the budget and then held
    /// still counts in its window: the budget errs tight, never loose).
    pub(super) async fn admit(
        &self,
        held: Held,
        method: &Method,
        url: &str,
        what: &str,
    ) -> Result<(Option<WriteSlot>, Option<Ticket>), ApiError> {
        loop {
            self.wait_out_pause(held, what).await?;
            if !held.write {
                return Ok((None, None));
            }
            if !self.budget.limits_anything() {
                // No limit to keep: counted for /metrics only.
                self.metrics.write_spent(held.urgency, Duration::ZERO);
                return Ok((None, None));
            }
            let slot =
                if self.budget.one_at_a_time { Some(self.limits.write_slot(held.installation).await) } else { None };
            if self.pause_left(held.installation, what).await?.is_some() {
                continue;
            }
            let endpoint = budget::endpoint(method.as_str(), url.strip_prefix(&self.base).unwrap_or(url));
            let ticket = self.spend(held, &endpoint, what).await?;
            if self.pause_left(held.installation, what).await?.is_some() {
                budget::release(&self.ledger, held.installation, ticket).await;
                continue;
            }
            return Ok((slot, Some(ticket)));
        }
    }

    /// Sleeps out the installation's pause; a background call then also
    /// lets the calls a person waits for that were waiting on it go first.
    /// A pause longer than a call may sleep is a rate limit: the job runs
    /// again once it is over.
    async fn wait_out_pause(&self, held: Held, what: &str) -> Result<(), ApiError> {
        let mut person = None;
        while let Some(left) = self.pause_left(held.installation, what).await? {
            if left > self.policy.max_wait {
                return Err(ApiError::RateLimited { what: what.into(), wait_s: secs_up(left) });
            }
            if held.urgency == Urgency::Person && person.is_none() {
                person = Some(self.limits.person_waiting(held.installation));
            }
            tokio::time::sleep(left).await;
        }
        drop(person);
        while held.urgency == Urgency::Background && self.limits.people_waiting(held.installation) {
            tokio::time::sleep(PEOPLE_FIRST_POLL).await;
        }
        Ok(())
    }

    /// How long the installation must still wait, as this process knows it
    /// or another replica recorded it; `None`: it may send.
    async fn pause_left(&self, installation: u64, what: &str) -> Result<Option<Duration>, ApiError> {
        if let Some(left) = self.limits.blocked_for(installation) {
            return Ok(Some(left));
        }
        let Some(pauses) = &self.pauses else { return Ok(None) };
        let until_ms = pauses.paused_until(installation).await.map_err(|err| ApiError::Transport {
            what: what.into(),
            reason: format!("the installation's rate-limit pause could not be read: {err:#}"),
        })?;
        let left_ms = until_ms.map_or(0, |until| until - crate::store::now_ms());
        if left_ms <= 0 {
            return Ok(None);
        }
        let left = Duration::from_millis(left_ms as u64);
        self.limits.block(installation, left);
        Ok(Some(left))
    }

    /// GitHub asked the installation to wait `wait`: held in this process at
    /// once, and recorded for the other replicas (which, should the store not
    /// take it, find out from GitHub's own refusal).
    pub(super) async fn pause(&self, installation: u64, wait: Duration) {
        self.limits.block(installation, wait);
        tracing::warn!(installation, wait_s = secs_up(wait), "GitHub asked to wait: the installation's calls pause");
        let Some(pauses) = &self.pauses else { return };
        let until_ms = crate::store::now_ms() + wait.as_millis() as i64;
        if let Err(err) = pauses.pause(installation, until_ms).await {
            tracing::warn!(installation, error = %format!("{err:#}"), "cannot share the installation's pause with the other replicas");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::github::{AppCredentials, RetryPolicy};
    use crate::metrics::Metrics;

    fn client() -> GitHub {
        let pem = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/app/test-app-key.pem")).unwrap();
        let creds = AppCredentials::new(1, &pem).unwrap();
        let metrics = Arc::new(Metrics::new(&[]));
        GitHub::new("http://127.0.0.1:9", creds, RetryPolicy::default(), metrics).unwrap()
    }

    #[tokio::test]
    async fn after_a_pause_background_calls_wait_for_the_people_waiting_on_it() {
        let github = client();
        let person = github.limits.person_waiting(7);
        let background = Held { installation: 7, write: true, urgency: Urgency::Background };
        let waiting = tokio::spawn({
            let github = github.clone();
            async move { github.wait_out_pause(background, "POST /x").await.is_ok() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "a background call waits while a person's call waits on the pause");
        let other = Held { installation: 8, ..background };
        assert!(github.wait_out_pause(other, "POST /x").await.is_ok(), "another installation's call goes");
        drop(person);
        assert!(waiting.await.unwrap(), "and goes once the person's call went");
    }

    #[tokio::test]
    async fn a_pause_longer_than_a_call_may_sleep_puts_the_job_back() {
        let github = client();
        github.limits.block(7, Duration::from_secs(600));
        let read = Held { installation: 7, write: false, urgency: Urgency::Person };
        let err = github.wait_out_pause(read, "GET /x").await.unwrap_err();
        assert!(matches!(err, ApiError::RateLimited { wait_s: 600, .. }), "{err}");
    }
}
