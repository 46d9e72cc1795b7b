//! Commands in pull request comments on the simulated GitHub: 👀 at once and
//! one answer; `recheck` for the author and collaborators with the triage
//! role only; `why` and `explain` for anyone; the App's own comments, edited
//! comments and commands in quotes or code are not commands; a command on a
//! fork's pull request; two replicas given the same command answer once.

mod common;

use common::*;
use gatehouse_sim::{IssueComment, PrRefs, Sim, Tree};
use serde_json::Value;

const REPO: &str = "acme/docs";

/// A brief over the review threshold (400 lines): the gate applies and
/// waits on two core approvals.
fn big_change() -> Tree {
    let mut head = base();
    head.insert(BRIEF.into(), brief("AR", 400).into_bytes());
    head
}

fn gate_runs(sim: &Sim, sha: &str) -> Vec<u64> {
    sim.check_runs(REPO, sha).iter().filter(|r| r.name == "gatehouse/review").map(|r| r.id).collect()
}

async fn evaluated(sim: &Sim, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(REPO, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

/// Opens PR `number` and waits for its evaluation.
async fn opened(sim: &Sim, app: &gatehouse::app::Running, number: u64, fork: bool) -> PrRefs {
    let pr = sim.open_pr(REPO, number, base(), big_change(), "Backups.");
    if fork {
        sim.set_fork(REPO, number);
    }
    let event = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("opened-{number}"), &event).await, 202);
    evaluated(sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    pr
}

/// The App's answers on PR `number`.
fn answers(sim: &Sim, number: u64) -> Vec<IssueComment> {
    sim.issue_comments(REPO, number)
        .into_iter()
        .filter(|c| c.user == "gatehouse[bot]" && c.body.starts_with("<!-- gatehouse:answer "))
        .collect()
}

/// `login` comments `body` on PR `number`, delivered as `delivery`; the
/// comment's id.
async fn ask(sim: &Sim, app: &gatehouse::app::Running, number: u64, login: &str, body: &str, delivery: &str) -> u64 {
    let event = sim.comment(REPO, number, login, body);
    assert_eq!(deliver(app.addr, "issue_comment", delivery, &event).await, 202);
    event["comment"]["id"].as_u64().unwrap()
}

fn eyes(sim: &Sim, comment: u64) -> usize {
    sim.reactions(comment).iter().filter(|r| r.content == "eyes" && r.user == "gatehouse[bot]").count()
}

#[tokio::test]
async fn why_and_explain_answer_anyone_once_after_eyes() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = opened(&sim, &app, 1, false).await;
    let why = ask(&sim, &app, 1, "passer-by", "/gatehouse why\n\nIs this stuck?", "why-1").await;
    wait_for("the why answer", || answers(&sim, 1).len() == 1).await;
    jobs_idle(&app.store).await;
    assert_eq!(eyes(&sim, why), 1);
    let answer = &answers(&sim, 1)[0].body;
    assert!(
        answer.contains(&format!("<!-- gatehouse:answer {why} -->\n@passer-by on `{}`", &pr.head_sha[..7])),
        "{answer}"
    );
    assert!(answer.contains("#### `gatehouse/review`: Review gate: "), "{answer}");
    assert!(answer.contains("Waits on the reviewers it names."), "{answer}");
    assert!(answer.contains("Still missing:") && answer.contains("gyrum-priya"), "whom: {answer}");
    assert!(!answer.contains("Why the gate applies"), "only what it waits on: {answer}");
    assert!(answer.contains("Passing: ") && answer.contains("`gatehouse/briefs` ("), "{answer}");

    let explain = ask(&sim, &app, 1, "passer-by", "/gatehouse explain brief/adr-missing", "explain-1").await;
    wait_for("the explain answer", || answers(&sim, 1).len() == 2).await;
    let answer = &answers(&sim, 1)[1].body;
    assert!(answer.contains(&format!("<!-- gatehouse:answer {explain} -->")), "{answer}");
    assert!(answer.contains("```text\nbrief/adr-missing (error by default)"), "{answer}");
    assert_eq!(eyes(&sim, explain), 1);

    ask(&sim, &app, 1, "passer-by", "/gatehouse explain adr-mising", "explain-typo").await;
    ask(&sim, &app, 1, "passer-by", "/gatehouse merge", "unknown").await;
    wait_for("two more answers", || answers(&sim, 1).len() == 4).await;
    jobs_idle(&app.store).await;
    let bodies: Vec<String> = answers(&sim, 1).into_iter().map(|c| c.body).collect();
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("gatehouse has no rule `adr-mising`. Did you mean ")
                && b.contains("`brief/adr-missing`")),
        "{bodies:?}"
    );
    assert!(bodies.iter().any(|b| b.contains("`/gatehouse merge` is not a command gatehouse knows.")), "{bodies:?}");
    assert_eq!(answers(&sim, 1).len(), 4, "one answer per command");
    app.kill();
}

#[tokio::test]
async fn recheck_is_for_the_author_and_triagers_and_others_are_told_who_may() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let pr = opened(&sim, &app, 1, false).await;
    let before = gate_runs(&sim, &pr.head_sha);

    sim.set_role(REPO, "reader", "read");
    let refused = ask(&sim, &app, 1, "reader", "/gatehouse recheck", "recheck-reader").await;
    wait_for("the refusal", || answers(&sim, 1).len() == 1).await;
    jobs_idle(&app.store).await;
    assert_eq!(eyes(&sim, refused), 1);
    let answer = &answers(&sim, 1)[0].body;
    assert!(answer.contains("@reader `/gatehouse recheck` evaluates this pull request again, which only its author (`author`) or a collaborator with at least the triage role"), "{answer}");
    assert_eq!(gate_runs(&sim, &pr.head_sha), before, "nothing evaluated");

    sim.set_role(REPO, "triager", "triage");
    let asked = ask(&sim, &app, 1, "triager", "/gatehouse recheck", "recheck-triager").await;
    wait_for("the head evaluated again", || gate_runs(&sim, &pr.head_sha).len() > before.len()).await;
    evaluated(&sim, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    assert_eq!(eyes(&sim, asked), 1);
    assert_eq!(answers(&sim, 1).len(), 1, "a recheck's answer is the evaluation");

    let by_author = ask(&sim, &app, 1, "author", "/gatehouse recheck", "recheck-author").await;
    let runs = gate_runs(&sim, &pr.head_sha).len();
    wait_for("the author's recheck", || gate_runs(&sim, &pr.head_sha).len() > runs).await;
    jobs_idle(&app.store).await;
    assert_eq!(eyes(&sim, by_author), 1);
    assert_eq!(answers(&sim, 1).len(), 1);
    app.kill();
}

#[tokio::test]
async fn a_forks_author_may_recheck_its_pull_request() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = opened(&sim, &app, 2, true).await;
    let before = gate_runs(&sim, &pr.head_sha).len();
    let asked = ask(&sim, &app, 2, "author", "/gatehouse recheck", "fork-recheck").await;
    wait_for("the fork's head evaluated again", || gate_runs(&sim, &pr.head_sha).len() > before).await;
    jobs_idle(&app.store).await;
    assert_eq!(eyes(&sim, asked), 1);
    // Someone else with no role on the base repository is told who may.
    ask(&sim, &app, 2, "fork-friend", "/gatehouse recheck", "fork-friend").await;
    wait_for("the refusal", || answers(&sim, 2).len() == 1).await;
    jobs_idle(&app.store).await;
    assert_eq!(gate_runs(&sim, &pr.head_sha).len(), before + 1);
    app.kill();
}

#[tokio::test]
async fn two_replicas_given_the_same_command_answer_once() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let one = start_app(config(&db, &sim.url())).await;
    let two = start_app(config(&db, &sim.url())).await;
    opened(&sim, &one, 1, false).await;
    let event = sim.comment(REPO, 1, "passer-by", "/gatehouse why");
    let comment = event["comment"]["id"].as_u64().unwrap();
    let (a, b) = tokio::join!(
        deliver(one.addr, "issue_comment", "why-both", &event),
        deliver(two.addr, "issue_comment", "why-both", &event)
    );
    let mut statuses = [a, b];
    statuses.sort();
    assert_eq!(statuses, [200, 202], "stored once, the other a duplicate");
    wait_for("the answer", || answers(&sim, 1).len() == 1).await;
    jobs_idle(&one.store).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(answers(&sim, 1).len(), 1);
    assert_eq!(eyes(&sim, comment), 1);
    one.kill();
    two.kill();
}

#[tokio::test]
async fn own_edited_quoted_and_coded_commands_are_not_commands() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    opened(&sim, &app, 1, false).await;
    let mut sent: Vec<(String, Value)> = Vec::new();
    for (n, body) in ["> /gatehouse why", "```\n/gatehouse why\n```", "`/gatehouse why`", "Thanks!\n/gatehouse why"]
        .into_iter()
        .enumerate()
    {
        sent.push((format!("quoted-{n}"), sim.comment(REPO, 1, "lin", body)));
    }
    sent.push(("own".into(), sim.comment(REPO, 1, "gatehouse[bot]", "/gatehouse why")));
    let mut edited = sim.comment(REPO, 1, "lin", "/gatehouse why");
    edited["action"] = "edited".into();
    edited["changes"] = serde_json::json!({ "body": { "from": "/gatehouse hwy" } });
    sent.push(("edited".into(), edited));
    let before = app.store.job_counts().await.unwrap();
    for (delivery, event) in &sent {
        assert_eq!(deliver(app.addr, "issue_comment", delivery, event).await, 202, "{delivery}");
    }
    let after = app.store.job_counts().await.unwrap();
    assert_eq!((after.queued, after.running, after.done), (before.queued, before.running, before.done), "no job");
    assert_eq!(app.store.deliveries().await.unwrap(), 1 + sent.len() as i64, "each stored all the same");
    for (_, event) in &sent {
        assert!(sim.reactions(event["comment"]["id"].as_u64().unwrap()).is_empty());
    }
    assert!(answers(&sim, 1).is_empty());
    app.kill();
}
