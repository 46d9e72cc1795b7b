//! Review reminders on the simulated GitHub: opt-in in the config, one
//! comment per requested reviewer once the gate has waited the configured
//! days on them, at most one per period, none on drafts and none for who
//! reviewed; the schedule is stored, so a replica started later sends it,
//! and replicas sharing it send each reminder once. The days pass on the
//! App's clock, which the tests move forward (`AppConfig::clock`); the
//! sweeps run every 100 ms (`serve --reminder-interval-secs`).

mod common;

use std::time::Duration;

use common::*;
use gatehouse::app::{AppConfig, Clock, ReminderPolicy};
use gatehouse_sim::{Sim, Tree};

const REPO: &str = "acme/docs";
const DAY: Duration = Duration::from_secs(24 * 3600);
const DAY_MS: i64 = 24 * 3600 * 1000;

fn reminding(db: &Db, sim: &Sim, clock: &Clock) -> AppConfig {
    let mut config = config(db, &sim.url());
    config.reminders = ReminderPolicy { interval: Duration::from_millis(100), claim: Duration::from_secs(5) };
    config.clock = clock.clone();
    config
}

/// How many times PR `number`'s requested reviewers were read: once per
/// sweep that looked at it.
fn sweeps_of(sim: &Sim, number: u64) -> usize {
    let path = format!("/repos/{REPO}/pulls/{number}/requested_reviewers");
    sim.requests().iter().filter(|r| r.method == "GET" && r.path == path).count()
}

/// Waits until two more sweeps looked at PR `number`: the second began
/// after this call, so it read the clock as it is now.
async fn two_sweeps(sim: &Sim, number: u64) {
    let before = sweeps_of(sim, number);
    wait_for("two sweeps", || sweeps_of(sim, number) >= before + 2).await;
}

fn base_reminding(days: &str) -> Tree {
    let mut tree = base();
    tree.insert(".github/gatehouse.yml".into(), format!("{REVIEW_POLICY}  remind_after_days: {days}\n").into_bytes());
    tree
}

fn big_change(base: &Tree) -> Tree {
    let mut head = base.clone();
    head.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    head
}

/// The reminders on PR `number`: whom each mentions, and when it was sent
/// (the time its hidden mark carries, in ms).
fn sent(sim: &Sim, number: u64) -> Vec<(String, i64)> {
    sim.issue_comments(REPO, number)
        .into_iter()
        .filter(|c| c.user == "gatehouse[bot]")
        .filter_map(|c| {
            let mark = c.body.strip_prefix("<!-- gatehouse:reminder ")?;
            let at: i64 = mark.split(' ').nth(1)?.parse().ok()?;
            let whom = c.body.lines().nth(1)?.split(',').next()?.to_string();
            Some((whom, at))
        })
        .collect()
}

/// Whom the reminders on PR `number` mention.
fn reminders(sim: &Sim, number: u64) -> Vec<String> {
    sent(sim, number).into_iter().map(|(whom, _)| whom).collect()
}

/// Every reviewer mentioned at most once per period (a day here).
fn at_most_one_per_period(sim: &Sim, number: u64) {
    let sent = sent(sim, number);
    for (whom, at) in &sent {
        let close = sent.iter().filter(|(w, a)| w == whom && (a - at).abs() < DAY_MS).count();
        assert_eq!(close, 1, "{whom} reminded twice within a period: {sent:?}");
    }
}

/// Whether every login of `logins` was reminded at least once.
fn each_reminded(sim: &Sim, number: u64, logins: &[String]) -> bool {
    let mentioned = reminders(sim, number);
    logins.iter().all(|l| mentioned.contains(&format!("@{l}")))
}

async fn open(sim: &Sim, app: &gatehouse::app::Running, number: u64, base: Tree, draft: bool) {
    let pr = sim.open_pr(REPO, number, base.clone(), big_change(&base), "Backups.");
    sim.set_draft(REPO, number, draft);
    let event = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("opened-{number}"), &event).await, 202);
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(REPO, &pr.head_sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    jobs_idle(&app.store).await;
}

#[tokio::test]
async fn a_reminder_waits_the_days_the_policy_names_on_the_app_s_clock() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let clock = Clock::system();
    let app = start_app(reminding(&Db::sqlite(&dir), &sim, &clock)).await;
    open(&sim, &app, 1, base_reminding("2"), false).await;
    let requested = sim.requested_reviewers(REPO, 1);
    assert!(!requested.is_empty());
    two_sweeps(&sim, 1).await;
    clock.advance(DAY * 3 / 2);
    two_sweeps(&sim, 1).await;
    assert!(reminders(&sim, 1).is_empty(), "none at a day and a half: {:?}", reminders(&sim, 1));
    clock.advance(DAY / 2);
    wait_for("the reminders at two days", || each_reminded(&sim, 1, &requested)).await;
    let first = &sim.issue_comments(REPO, 1).into_iter().find(|c| c.body.contains("gatehouse:reminder")).unwrap().body;
    assert!(first.contains("has waited on your review for 2 days."), "{first}");
    assert_eq!(reminders(&sim, 1).len(), requested.len(), "one each");
    app.kill();
}

#[tokio::test]
async fn each_requested_reviewer_is_reminded_once_per_period_and_not_after_reviewing() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let clock = Clock::system();
    let app = start_app(reminding(&Db::sqlite(&dir), &sim, &clock)).await;
    open(&sim, &app, 1, base_reminding("1"), false).await;
    let requested = sim.requested_reviewers(REPO, 1);
    assert!(!requested.is_empty());
    two_sweeps(&sim, 1).await;
    assert!(reminders(&sim, 1).is_empty(), "not before a day");
    clock.advance(DAY);
    wait_for("the first reminders", || each_reminded(&sim, 1, &requested)).await;
    let first = &sim.issue_comments(REPO, 1).into_iter().find(|c| c.body.contains("gatehouse:reminder")).unwrap().body;
    assert!(first.contains("has waited on your review for 1 day. You are asked to review it because:"), "{first}");
    assert!(first.contains("lines_estimate 400 > 100"), "what to review: {first}");
    let mentioned = reminders(&sim, 1);
    assert!(
        mentioned.iter().all(|m| requested.iter().any(|l| *m == format!("@{l}"))),
        "only who is requested: {mentioned:?}"
    );
    two_sweeps(&sim, 1).await;
    assert_eq!(reminders(&sim, 1).len(), requested.len(), "once per period: {:?}", reminders(&sim, 1));

    // gyrum-lin reviews: GitHub then lists them among reviews, not requested reviewers.
    let review = sim.add_review(REPO, 1, "gyrum-lin", "COMMENTED");
    assert_eq!(deliver(app.addr, "pull_request_review", "lin-comments", &review).await, 202);
    let still = sim.requested_reviewers(REPO, 1);
    assert_eq!(still.len(), requested.len() - 1);
    two_sweeps(&sim, 1).await;
    // Two periods on, everyone still requested was reminded twice more, and lin no more.
    let count_of = |sim: &Sim, login: &str| reminders(sim, 1).iter().filter(|m| **m == format!("@{login}")).count();
    for round in 2..=3 {
        clock.advance(DAY);
        wait_for("the next round", || still.iter().all(|l| count_of(&sim, l) >= round)).await;
    }
    two_sweeps(&sim, 1).await;
    assert_eq!(count_of(&sim, "gyrum-lin"), 1, "not after reviewing: {:?}", reminders(&sim, 1));
    assert!(still.iter().all(|l| count_of(&sim, l) == 3), "{:?}", reminders(&sim, 1));
    at_most_one_per_period(&sim, 1);
    app.kill();
}

#[tokio::test]
async fn drafts_and_repositories_without_reminders_get_none() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let clock = Clock::system();
    let app = start_app(reminding(&Db::sqlite(&dir), &sim, &clock)).await;
    open(&sim, &app, 1, base_reminding("1"), true).await;
    open(&sim, &app, 2, base(), false).await;
    // A pull request that is reminded: the sweeps ran on the clock moved on.
    open(&sim, &app, 3, base_reminding("1"), false).await;
    assert!(!sim.requested_reviewers(REPO, 2).is_empty());
    two_sweeps(&sim, 3).await;
    clock.advance(DAY * 2);
    wait_for("the reminders of #3", || !reminders(&sim, 3).is_empty()).await;
    two_sweeps(&sim, 3).await;
    assert!(reminders(&sim, 1).is_empty(), "a draft");
    assert!(reminders(&sim, 2).is_empty(), "not configured");
    app.kill();
}

#[tokio::test]
async fn the_schedule_survives_a_restart_and_replicas_send_each_reminder_once() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let clock = Clock::system();
    let first = start_app(reminding(&db, &sim, &clock)).await;
    open(&sim, &first, 1, base_reminding("1"), false).await;
    two_sweeps(&sim, 1).await;
    first.kill();
    let requested = sim.requested_reviewers(REPO, 1);
    clock.advance(DAY);
    let one = start_app(reminding(&db, &sim, &clock)).await;
    let two = start_app(reminding(&db, &sim, &clock)).await;
    wait_for("the reminders", || each_reminded(&sim, 1, &requested)).await;
    two_sweeps(&sim, 1).await;
    assert_eq!(reminders(&sim, 1).len(), requested.len(), "each once: {:?}", reminders(&sim, 1));
    one.kill();
    two.kill();
}
