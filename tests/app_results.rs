//! No result lost or stranded: a check run the App starts always ends with a
//! conclusion, a review GitHub refuses is posted again in a form it takes,
//! texts over GitHub's limits are cut instead of failing the job, findings
//! about the PR body land in the check summary, tokens are reused for most of
//! their life, and a re-run re-runs the check that was asked for.

mod common;

use common::*;
use gatehouse_sim::{Faults, Sim, Tree};
use serde_json::json;

const REPO: &str = "acme/docs";

/// A brief over the review threshold citing a missing ADR (line 4): every
/// call of a job is made, the review gate's included.
fn failing_brief(n: u64) -> String {
    brief("AR", 400 + n as u32)
        .replace("[ADR-095]", "[ADR-095, ADR-404]")
        .replace("Follows ADR-095", "Follows ADR-095 and ADR-404")
}

async fn open(sim: &Sim, app: &gatehouse::app::Running, number: u64, head: Tree, body: &str) -> String {
    let pr = sim.open_pr(REPO, number, base(), head, body);
    let payload = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("open-{number}"), &payload).await, 202);
    pr.head_sha
}

fn fingerprint_of(body: &str) -> Option<String> {
    let at = body.find("<!-- gatehouse:fingerprint=")? + "<!-- gatehouse:fingerprint=".len();
    Some(body[at..].split(" -->").next()?.to_string())
}

#[tokio::test]
async fn a_job_that_fails_for_good_leaves_no_run_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let calls = [
        "GET /repos/acme/docs/pulls/{n}",
        "GET /repos/acme/docs/commits/",
        "POST /repos/acme/docs/check-runs",
        "GET /repos/acme/docs/pulls/{n}/files",
        "GET /repos/acme/docs/git/trees/",
        "POST /graphql",
        "GET /repos/acme/docs/pulls/{n}/reviews",
        "GET /repos/acme/docs/pulls/{n}/commits",
        "POST /repos/acme/docs/pulls/{n}/reviews",
    ];
    let mut number = 0;
    for status in [404u16, 422] {
        for call in calls {
            number += 1;
            let only = call.replace("{n}", &number.to_string());
            sim.clear_requests();
            sim.set_faults(Faults { status_next: 1, status, only: only.clone(), ..Faults::default() });
            let head = open(&sim, &app, number, with_brief(&failing_brief(number)), "A change.").await;
            jobs_idle(&app.store).await;
            let hit =
                sim.requests().iter().any(|r| r.status == status && format!("{} {}", r.method, r.path).contains(&only));
            assert!(hit, "{status} on {only} was answered");
            let runs = sim.check_runs(REPO, &head);
            let open: Vec<_> = runs.iter().filter(|r| r.status != "completed").map(|r| &r.name).collect();
            assert!(open.is_empty(), "{status} on {only}: left in progress: {open:?}");
            let ended = ["gatehouse could not finish this check", "Cannot evaluate this pull request"];
            let ended: Vec<_> = runs.iter().filter(|r| ended.contains(&r.title.as_str())).collect();
            for run in &ended {
                assert_eq!(run.conclusion.as_deref(), Some("failure"));
                assert!(run.summary.contains(&status.to_string()), "says what went wrong: {}", run.summary);
            }
            let mid_job = !runs.is_empty() && !only.starts_with("POST /repos/acme/docs/pulls/");
            if mid_job {
                assert!(!ended.is_empty(), "{status} on {only}: the runs say the job failed: {runs:#?}");
                let rerun = ended.iter().filter(|r| r.summary.contains("**Re-run**")).count();
                assert!(rerun > 0, "{status} on {only}: says how to retry");
            }
        }
    }
    app.kill();
}

#[tokio::test]
async fn a_comment_github_cannot_place_moves_into_the_review_body() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    sim.refuse_review_line(REPO, 1, BRIEF, 4);
    let head = open(&sim, &app, 1, with_brief(&failing_brief(1)), "A change.").await;
    jobs_idle(&app.store).await;
    let refused = sim.requests().iter().filter(|r| r.path.ends_with("/reviews") && r.status == 422).count();
    assert_eq!(refused, 1, "GitHub refused the first review");
    let reviews = sim.reviews(REPO, 1);
    let ours: Vec<_> = reviews.iter().filter(|r| r.user == "gatehouse[bot]").collect();
    assert_eq!(ours.len(), 1);
    assert_eq!((ours[0].commit_id.as_str(), ours[0].comments.len()), (head.as_str(), 0));
    assert!(ours[0].body.contains("brief/adr-missing") && ours[0].body.contains("could not place"), "{}", ours[0].body);
    let fingerprint = fingerprint_of(&ours[0].body).expect("the finding keeps its fingerprint");
    // The next push keeps the finding: it is not commented again.
    sim.push(REPO, 1, with_brief(&failing_brief(1).replace("# Backups", "# Backups, again")));
    let payload = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", "push-1", &payload).await, 202);
    jobs_idle(&app.store).await;
    let all: String = sim.reviews(REPO, 1).iter().map(|r| r.body.clone()).collect();
    assert_eq!(all.matches(&fingerprint).count(), 1, "commented once: {all}");
    app.kill();
}

#[tokio::test]
async fn a_refused_review_body_goes_out_as_a_comment() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    sim.set_faults(Faults {
        status_next: 2,
        status: 422,
        only: "POST /repos/acme/docs/pulls/1/reviews".into(),
        ..Faults::default()
    });
    let head = open(&sim, &app, 1, with_brief(&failing_brief(1)), "A change.").await;
    jobs_idle(&app.store).await;
    assert!(sim.reviews(REPO, 1).iter().all(|r| r.user != "gatehouse[bot]"), "both reviews refused");
    let comments = sim.issue_comments(REPO, 1);
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.contains("brief/adr-missing"), "{}", comments[0].body);
    assert!(comments[0].body.contains(&format!("gatehouse:review={head}")), "{}", comments[0].body);
    // The same head again: the comment counts as its review.
    let payload = sim.pull_request_event(REPO, 1, "reopened");
    assert_eq!(deliver(app.addr, "pull_request", "reopen-1", &payload).await, 202);
    jobs_idle(&app.store).await;
    assert_eq!(sim.issue_comments(REPO, 1).len(), 1);
    assert!(sim.reviews(REPO, 1).iter().all(|r| r.user != "gatehouse[bot]"));
    app.kill();
}

/// An English success criterion that nothing pins down, padded with `chars`
/// arrows (three bytes each): `brief/untestable-criterion` quotes it whole.
fn brief_with_long_criterion(chars: usize) -> String {
    let criterion = format!("the feature works properly {}", "→".repeat(chars));
    brief("AR", 40).replace("success_criteria:\n", &format!("success_criteria:\n  - \"{criterion}\"\n"))
}

#[tokio::test]
async fn texts_over_githubs_limits_are_cut_on_a_character_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    // 25,200 characters: 75.6 KB, over the annotation's 64 KB.
    let head = open(&sim, &app, 1, with_brief(&brief_with_long_criterion(25_200)), "A change.").await;
    jobs_idle(&app.store).await;
    let briefs = sim.check_runs(REPO, &head).into_iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    assert_eq!(briefs.conclusion.as_deref(), Some("failure"), "{}", briefs.summary);
    let cut = briefs.annotations.iter().find(|a| a["title"] == "brief/untestable-criterion").expect("annotated");
    let message = cut["message"].as_str().unwrap();
    assert!(
        message.len() <= 64_000 && message.ends_with(gatehouse::publish::limits::MARKER),
        "{} bytes",
        message.len()
    );
    assert!(message.contains("→→→→"));
    // 70,000 characters: the review comment is over 65,536 characters too.
    let head = open(&sim, &app, 2, with_brief(&brief_with_long_criterion(70_000)), "A change.").await;
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &head);
    assert!(runs.iter().all(|r| r.status == "completed"));
    for run in &runs {
        assert!(run.summary.chars().count() <= 65_535, "{}", run.name);
    }
    let review = sim.reviews(REPO, 2).into_iter().find(|r| r.user == "gatehouse[bot]").expect("a review");
    let comment = review.comments.iter().find(|c| c.body.contains("untestable-criterion")).expect("commented");
    assert!(comment.body.chars().count() <= 65_536);
    assert!(comment.body.contains(gatehouse::publish::limits::MARKER.trim_start()));
    assert!(fingerprint_of(&comment.body).is_some(), "the fingerprint survives the cut");
    assert_eq!(app.store.job_counts().await.unwrap().failed, 0);
    app.kill();
}

#[tokio::test]
async fn findings_about_the_pr_body_are_in_the_summary_not_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let body = "Implements backups.\n\nBrief: dark-factory/briefs/SWARM-AR-nowhere.md\n";
    let head = open(&sim, &app, 1, with_brief(&brief("AR", 40)), body).await;
    jobs_idle(&app.store).await;
    let runs = sim.check_runs(REPO, &head);
    for run in &runs {
        assert!(run.annotations.iter().all(|a| a["path"] != json!("(pull request body)")), "{}", run.name);
    }
    let with_body: Vec<_> = runs.iter().filter(|r| r.summary.contains("### In the pull request body")).collect();
    assert!(!with_body.is_empty(), "{runs:#?}");
    assert!(with_body[0].summary.contains("no merged brief matches"), "{}", with_body[0].summary);
    app.kill();
}

#[tokio::test]
async fn a_short_lived_token_is_reused_for_half_its_life() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    sim.set_token_life(60);
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    for n in 1..=4 {
        open(&sim, &app, n, with_brief(&failing_brief(n)), "A change.").await;
    }
    jobs_idle(&app.store).await;
    let requests = sim.requests();
    let minted = requests.iter().filter(|r| r.path.ends_with("/access_tokens")).count();
    assert!(requests.len() > 40, "{} calls", requests.len());
    // One for the repository, one for reading the organisation's policy in `acme/.github`.
    assert_eq!(minted, 2, "one token a repository for {} calls within 30 seconds", requests.len());
    app.kill();
}

#[tokio::test]
async fn a_rerequested_check_re_runs_only_that_check() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let head = open(&sim, &app, 1, with_brief(&failing_brief(1)), "A change.").await;
    jobs_idle(&app.store).await;
    let names = gatehouse::publish::check_names();
    assert_eq!(sim.check_runs(REPO, &head).len(), names.len());
    for (n, name) in ["gatehouse/briefs", "gatehouse/review"].into_iter().enumerate() {
        let payload = json!({
            "action": "rerequested",
            "check_run": { "name": name, "head_sha": head, "pull_requests": [{ "number": 1 }] },
            "repository": { "full_name": REPO },
            "installation": { "id": INSTALLATION },
        });
        assert_eq!(deliver(app.addr, "check_run", &format!("rerun-{n}"), &payload).await, 202);
        jobs_idle(&app.store).await;
        // A person asked for it: a new run, though its result is the same.
        let runs = sim.check_runs(REPO, &head);
        assert_eq!(runs.len(), names.len() + n + 1, "one more run: {name}");
        assert_eq!(runs.iter().filter(|r| r.name == name).count(), 2);
        assert!(runs.iter().all(|r| r.status == "completed"));
    }
    assert_eq!(sim.reviews(REPO, 1).iter().filter(|r| r.user == "gatehouse[bot]").count(), 1);
    app.kill();
}

#[tokio::test]
async fn runs_left_in_progress_on_a_head_the_pr_moved_past_are_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.progress_after = std::time::Duration::from_millis(100);
    let app = start_app(config).await;
    // The PR's files answer after a second: long enough for the runs to be
    // posted in progress.
    let slow = "GET /repos/acme/docs/pulls/1/files".to_string();
    let delay = std::time::Duration::from_secs(1);
    sim.set_faults(Faults { slow_next: 1, delay, only: slow, ..Faults::default() });
    let first = open(&sim, &app, 1, with_brief(&brief("AR", 40)), "A change.").await;
    let names = gatehouse::publish::check_names().len();
    for _ in 0..100 {
        if sim.check_runs(REPO, &first).len() == names {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(sim.check_runs(REPO, &first).iter().all(|r| r.status == "in_progress"), "posted in progress");
    // The PR moves on while the job waits, and the job's contents read then
    // fails through every retry of the client: the job runs again later.
    let second = sim.push(REPO, 1, with_brief(&brief("AR", 50)));
    sim.set_faults(Faults { fail_next: 5, only: "POST /graphql".into(), ..Faults::default() });
    jobs_idle(&app.store).await;
    let jobs = app.store.jobs().await.unwrap();
    assert!(jobs.iter().any(|(_, _, attempts)| *attempts >= 2), "the job ran again: {jobs:?}");
    let replaced = sim.check_runs(REPO, &first);
    assert_eq!(replaced.len(), names, "{replaced:#?}");
    for run in &replaced {
        assert_eq!((run.status.as_str(), run.conclusion.as_deref()), ("completed", Some("cancelled")), "{run:#?}");
        assert_eq!(run.title, "A newer commit replaced this one");
    }
    let current = sim.check_runs(REPO, &second);
    assert_eq!(current.len(), names, "{current:#?}");
    assert!(
        current.iter().all(|r| r.status == "completed" && r.conclusion.as_deref() != Some("failure")),
        "{current:#?}"
    );
    app.kill();
}
