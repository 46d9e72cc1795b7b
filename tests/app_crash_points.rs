//! A job killed between its writes leaves GitHub as an uninterrupted run
//! would. Each scenario (a first evaluation; a re-check after a push to the
//! default branch; the answer to a comment command) is run once without
//! interruption, counting the writes its job makes on the simulated GitHub
//! and the store writes it passes. Then, for each of those in turn, on a
//! fresh database and simulated GitHub, the App is killed right after it:
//! after a GitHub write, the simulated GitHub applies the write and never
//! answers it (the process died once its write reached GitHub); after a
//! store write, the job stops at the App's stop point. A new App on the
//! same database takes the job once its lease lapses, and what GitHub shows
//! at the end must equal the uninterrupted run's: the same check runs (one
//! per name and job, with the same conclusion, title, summary and
//! annotations), one review with the same comments, the same threads,
//! review requests, comments and reactions, nothing twice.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use gatehouse::app::{Running, StopPoint, StopPoints};
use gatehouse_sim::{Sim, Tree};
use serde_json::Value;

const REPO: &str = "acme/docs";
/// Short, so that a killed job is taken again soon.
const LEASE: Duration = Duration::from_millis(500);
const ADR_120: &str = "docs/adr/ADR-120-backups.md";

/// A brief over the review threshold (the gate asks for reviews) that
/// cites ADR-404, which the base does not have (an inline comment).
fn failing_brief() -> String {
    brief("AR", 400)
        .replace("[ADR-095]", "[ADR-095, ADR-404]")
        .replace("Follows ADR-095", "Follows ADR-095 and ADR-404")
}

/// A check run: (name, external id, status, conclusion, title, summary, annotations).
type Run = (String, String, String, Option<String>, String, String, Vec<Value>);
/// A review comment: (path, start line, line, body).
type Comment = (String, Option<u32>, u32, String);

/// What GitHub shows of the App's work on PR 1, ids left out.
#[derive(Debug, PartialEq)]
struct Shown {
    /// Sorted by name and external id.
    runs: Vec<Run>,
    /// (user, commit, body, comments).
    reviews: Vec<(String, String, String, Vec<Comment>)>,
    /// (path, line, resolved, body), sorted.
    threads: Vec<(String, u32, bool, String)>,
    requested: Vec<String>,
    /// (user, body) of the conversation's comments, in order.
    comments: Vec<(String, String)>,
    /// (comment index, user, content) of the reactions on its comments.
    reactions: Vec<(usize, String, String)>,
}

fn shown(sim: &Sim) -> Shown {
    let mut runs: Vec<_> = sim
        .all_check_runs()
        .into_iter()
        .map(|r| (r.name, r.external_id, r.status, r.conclusion, r.title, r.summary, r.annotations))
        .collect();
    runs.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let reviews = sim
        .reviews(REPO, 1)
        .into_iter()
        .map(|r| {
            let comments = r.comments.into_iter().map(|c| (c.path, c.start_line, c.line, c.body)).collect();
            (r.user, r.commit_id, r.body, comments)
        })
        .collect();
    let mut threads: Vec<_> = sim.threads(REPO, 1).into_iter().map(|t| (t.path, t.line, t.resolved, t.body)).collect();
    threads.sort();
    let mut requested = sim.requested_reviewers(REPO, 1);
    requested.sort();
    let comments = sim.issue_comments(REPO, 1);
    let reactions = comments
        .iter()
        .enumerate()
        .flat_map(|(i, c)| sim.reactions(c.id).into_iter().map(move |r| (i, r.user, r.content)))
        .collect();
    let comments = comments.into_iter().map(|c| (c.user, c.body)).collect();
    Shown { runs, reviews, threads, requested, comments, reactions }
}

/// What a scenario does before the step under test, and the step itself.
#[derive(Clone, Copy, Debug)]
enum Scenario {
    /// A pull request is opened: its first evaluation.
    FirstEvaluation,
    /// On a base where ADR-120 supersedes ADR-095 (a warning, commented), a
    /// push to the default branch takes the supersession back: the finding
    /// is gone, its thread resolved and the briefs check written again.
    RecheckAfterBasePush,
    /// `/gatehouse why` in a comment: 👀, then the answer.
    CommandAnswer,
}

impl Scenario {
    /// The default branch the pull request is opened on.
    fn base(self) -> Tree {
        let mut tree = base();
        if let Scenario::RecheckAfterBasePush = self {
            let (adr_path, adr_text) = adr();
            let superseded = adr_text.replace("Status: Accepted", "Status: Superseded by ADR-120");
            tree.insert(adr_path.into(), superseded.into_bytes());
            tree.insert(ADR_120.into(), b"# ADR-120: Backups, again\n\nStatus: Accepted\n\nTwo buckets.\n".to_vec());
        }
        tree
    }

    /// Opens PR 1 and, but for the first evaluation, evaluates it.
    async fn prepare(self, sim: &Sim, app: &Running) {
        let mut head = self.base();
        head.insert(BRIEF.into(), failing_brief().into_bytes());
        sim.open_pr(REPO, 1, self.base(), head, "Backups.");
        if let Scenario::FirstEvaluation = self {
            return;
        }
        let event = sim.pull_request_event(REPO, 1, "opened");
        assert_eq!(deliver(app.addr, "pull_request", "opened", &event).await, 202);
        jobs_idle(&app.store).await;
    }

    /// The uninterrupted run made every kind of write the scenario is for.
    fn covers(self, shown: &Shown) {
        match self {
            Scenario::FirstEvaluation => {
                assert_eq!(shown.runs.len(), gatehouse::publish::check_names().len(), "one run per check");
                assert_eq!(shown.reviews.len(), 1, "one review");
                assert!(!shown.reviews[0].3.is_empty(), "with an inline comment");
                assert!(!shown.requested.is_empty(), "reviewers asked");
            }
            Scenario::RecheckAfterBasePush => {
                assert!(shown.threads.iter().any(|t| t.2), "a thread resolved: {:?}", shown.threads);
                assert_eq!(shown.runs.len(), gatehouse::publish::check_names().len() + 1, "the briefs run again");
            }
            Scenario::CommandAnswer => {
                assert_eq!(shown.comments.len(), 2, "the command and its answer");
                assert_eq!(shown.reactions, [(0, "gatehouse[bot]".to_string(), "eyes".to_string())]);
            }
        }
    }

    /// Delivers the step's event.
    async fn act(self, sim: &Sim, app: &Running) {
        let (event, payload) = match self {
            Scenario::FirstEvaluation => ("pull_request", sim.pull_request_event(REPO, 1, "opened")),
            Scenario::RecheckAfterBasePush => {
                let mut main = self.base();
                let (adr_path, adr_text) = adr();
                main.insert(adr_path.into(), adr_text.as_bytes().to_vec());
                ("push", sim.push_to_default_branch(REPO, 1, main, "ADR-095 stands after all"))
            }
            Scenario::CommandAnswer => ("issue_comment", sim.comment(REPO, 1, "passer-by", "/gatehouse why")),
        };
        assert_eq!(deliver(app.addr, event, "the-step", &payload).await, 202);
    }
}

/// The App's stop points as a test drives them: the points passed are
/// recorded, and the job stops at `target`'s occurrence.
#[derive(Clone, Default)]
struct Stops {
    state: Arc<Mutex<StopsState>>,
}

#[derive(Default)]
struct StopsState {
    armed: bool,
    passed: Vec<StopPoint>,
    /// Stop at the `n`th point passed once armed (1-based).
    target: Option<usize>,
    stopped: bool,
}

impl Stops {
    fn points(&self) -> StopPoints {
        let state = self.state.clone();
        StopPoints::new(move |point| {
            let mut s = state.lock().unwrap();
            if !s.armed {
                return false;
            }
            s.passed.push(point);
            if s.target == Some(s.passed.len()) {
                s.stopped = true;
                return true;
            }
            false
        })
    }

    fn arm(&self, target: Option<usize>) {
        let mut s = self.state.lock().unwrap();
        (s.armed, s.target) = (true, target);
    }

    fn passed(&self) -> Vec<StopPoint> {
        self.state.lock().unwrap().passed.clone()
    }

    fn stopped(&self) -> bool {
        self.state.lock().unwrap().stopped
    }
}

/// Where a run is killed.
#[derive(Clone, Copy, Debug)]
enum Crash {
    /// After the `n`th GitHub write of the step.
    AfterWrite(u32),
    /// After the `n`th store write the step passes a stop point at.
    AfterStore(usize),
}

/// What an uninterrupted run shows and passed.
struct Reference {
    shown: Shown,
    writes: u32,
    points: Vec<StopPoint>,
}

async fn run(db: &Db, scenario: Scenario, crash: Option<Crash>) -> (Shown, u32, Vec<StopPoint>) {
    let sim = sim().await;
    let stops = Stops::default();
    let mut first = config(db, &sim.url());
    first.lease = LEASE;
    first.workers = 1;
    first.stop_points = stops.points();
    // Unpaced: a write the killed App left in flight would hold the next
    // one back for 30 s (`github::budget`), longer than the test's lease.
    without_secondary_limits(&sim, &mut first);
    let app = start_app(first.clone()).await;
    scenario.prepare(&sim, &app).await;
    let before = sim.content_writes();
    match crash {
        Some(Crash::AfterWrite(n)) => {
            stops.arm(None);
            sim.stall_after_writes(n);
        }
        Some(Crash::AfterStore(n)) => stops.arm(Some(n)),
        None => stops.arm(None),
    }
    scenario.act(&sim, &app).await;
    let app = match crash {
        None => {
            jobs_idle(&app.store).await;
            app
        }
        Some(at) => {
            wait_for(&format!("{scenario:?}: the crash point {at:?}"), || sim.stalled() || stops.stopped()).await;
            app.kill();
            sim.resume();
            let mut restarted = first;
            restarted.stop_points = StopPoints::default();
            let app = start_app(restarted).await;
            jobs_idle(&app.store).await;
            app
        }
    };
    let writes = (sim.content_writes() - before) as u32;
    let shown = shown(&sim);
    app.kill();
    (shown, writes, stops.passed())
}

async fn reference(db: &Db, scenario: Scenario) -> Reference {
    let (shown, writes, points) = run(db, scenario, None).await;
    Reference { shown, writes, points }
}

/// Kills `scenario`'s step after each of its writes in turn and compares.
async fn every_crash_point(fresh: impl Fn() -> Db, scenario: Scenario) {
    let reference = reference(&fresh(), scenario).await;
    scenario.covers(&reference.shown);
    let (again, _, _) = run(&fresh(), scenario, None).await;
    assert_eq!(again, reference.shown, "{scenario:?}: two uninterrupted runs show the same");
    assert!(reference.writes > 0, "{scenario:?} writes on GitHub");
    let mut crashes: Vec<Crash> = (1..=reference.writes).map(Crash::AfterWrite).collect();
    crashes.extend((1..=reference.points.len()).map(Crash::AfterStore));
    for crash in crashes {
        let (shown, _, _) = run(&fresh(), scenario, Some(crash)).await;
        let at = match crash {
            Crash::AfterWrite(n) => format!("after GitHub write {n} of {}", reference.writes),
            Crash::AfterStore(n) => format!("after the store write at {:?}", reference.points[n - 1]),
        };
        assert_eq!(shown, reference.shown, "{scenario:?}, killed {at}: GitHub shows what an uninterrupted run would");
    }
    eprintln!(
        "{scenario:?}: {} GitHub writes and {} store writes ({:?}), each a crash point, all as uninterrupted",
        reference.writes,
        reference.points.len(),
        reference.points
    );
}

async fn every_scenario(fresh: impl Fn() -> Db) {
    for scenario in [Scenario::FirstEvaluation, Scenario::RecheckAfterBasePush, Scenario::CommandAnswer] {
        every_crash_point(&fresh, scenario).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_crash_point_leaves_github_as_an_uninterrupted_run_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let runs = std::sync::atomic::AtomicU32::new(0);
    every_scenario(|| {
        let n = runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Db::Sqlite(dir.path().join(format!("run-{n}.db")))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_crash_point_leaves_github_as_an_uninterrupted_run_on_postgres() {
    let Some(url) = postgres_url() else { return };
    every_scenario(|| Db::Postgres { url: url.clone(), schema: unique_schema() }).await;
}
