//! Why a job failed, as the worker decides what to do with it: every source
//! of an error (GitHub, the store, the sources that read through GitHub)
//! reports into one classification, read off the error's chain.

use std::time::Duration;

use crate::github::ApiError;

/// What a job's failure calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// A later attempt can get past it: run the job again, at
    /// `retry_after` when the source said when, else after the backoff.
    Transient { retry_after: Option<Duration> },
    /// GitHub refused the installation token: retried a bounded number of times.
    Unauthorized,
    /// Fails the same way every time: the job ends and its runs are concluded.
    Permanent,
}

impl Failure {
    /// The class of `err`, from the first error in its chain that a source
    /// classifies; an error no source claims is permanent.
    pub(super) fn of(err: &anyhow::Error) -> Failure {
        for cause in err.chain() {
            if let Some(api) = cause.downcast_ref::<ApiError>() {
                return match api {
                    ApiError::Unauthorized { .. } => Failure::Unauthorized,
                    api if api.is_transient() => Failure::Transient { retry_after: api.wait() },
                    _ => Failure::Permanent,
                };
            }
            if let Some(db) = cause.downcast_ref::<sqlx::Error>() {
                return match crate::store::is_transient(db) {
                    true => Failure::Transient { retry_after: None },
                    false => Failure::Permanent,
                };
            }
        }
        Failure::Permanent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn every_source_is_classified_through_its_context() {
        let lost: anyhow::Result<()> = Err(sqlx::Error::PoolTimedOut.into());
        let lost = lost.context("cannot record the started head").unwrap_err();
        assert_eq!(Failure::of(&lost), Failure::Transient { retry_after: None });
        let missing: anyhow::Error = sqlx::Error::RowNotFound.into();
        assert_eq!(Failure::of(&missing), Failure::Permanent);
        let down = ApiError::Transport { what: "GET /x".into(), reason: "refused".into() };
        assert_eq!(Failure::of(&down.into()), Failure::Transient { retry_after: None });
        let refused = ApiError::Unauthorized { what: "POST /x".into(), message: "bad token".into() };
        assert_eq!(Failure::of(&refused.into()), Failure::Unauthorized);
        let malformed = ApiError::Malformed { what: "GET /x".into(), message: "no sha".into() };
        assert_eq!(Failure::of(&malformed.into()), Failure::Permanent);
        assert_eq!(Failure::of(&anyhow::anyhow!("the rules panicked")), Failure::Permanent);
    }
}
