//! Where a test may stop the App as a crash would: after each store write of
//! a job's run (the simulated GitHub stages a crash after each GitHub write
//! itself). Unset, as `gatehouse serve` leaves it, a point costs a branch.

use std::sync::Arc;

/// A store write of a job's run, after which a test may stop the App.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopPoint {
    /// The head the job begins on is recorded, before any GitHub write.
    Begun,
    /// The reviewers the job is about to ask are recorded, before it asks.
    AskingRecorded,
    /// What asking came to is recorded.
    AskedRecorded,
    /// The pull request's dependency entry is recorded.
    DependenciesRecorded,
    /// The dashboard's refresh is queued (or found unneeded).
    DashboardNoted,
    /// The review reminders are scheduled (or unscheduled).
    RemindersScheduled,
}

/// What a test does at each point: `true` stops the job there, for good
/// (the test then kills the App, as a process killed at that point).
type AtPoint = dyn Fn(StopPoint) -> bool + Send + Sync;

/// The points a test stops the App at; none by default.
#[derive(Clone, Default)]
pub struct StopPoints(Option<Arc<AtPoint>>);

impl StopPoints {
    /// Calls `at` at each point a job reaches; the job stops for good at a
    /// point it answers `true` for.
    pub fn new(at: impl Fn(StopPoint) -> bool + Send + Sync + 'static) -> StopPoints {
        StopPoints(Some(Arc::new(at)))
    }

    /// The job reached `point`: it goes on, unless the test stops it here.
    pub(crate) async fn reached(&self, point: StopPoint) {
        if self.0.as_ref().is_some_and(|at| at(point)) {
            std::future::pending::<()>().await;
        }
    }
}

impl std::fmt::Debug for StopPoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "StopPoints(set)" } else { "StopPoints(none)" })
    }
}
