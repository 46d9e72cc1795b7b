//! The dashboard issue on the simulated GitHub: opt-in in the config, one
//! issue per repository kept current in a single edit after an evaluation,
//! listing what each open pull request waits on and, from the documents of
//! the default branch, the voting sections within reach of quorum or lock,
//! the open decisions by tier and the specs by stage, nothing of another
//! repository's or of a pull request's branch; closing it turns it off
//! until it is reopened or the config turns it off and on.

mod common;

use common::*;
use gatehouse_sim::{Faults, Issue, PrRefs, Sim, Tree, tree_from_dir};

const REPO: &str = "acme/docs";

fn with_dashboard(enabled: bool) -> Tree {
    let mut tree = base();
    let config = format!("{REVIEW_POLICY}dashboard:\n  enabled: {enabled}\n");
    tree.insert(".github/gatehouse.yml".into(), config.into_bytes());
    tree
}

const GUIDE: &str = "dark-factory/guidelines/backup-scripts@v1.md";

/// `tree` with a vote of `weight` by `voter` on argument A of the demo's
/// `backup-retention` section, after its vote by lin.
fn add_vote(tree: &mut Tree, voter: &str, weight: &str) {
    let lin = "        rationale: \"Thirty days matched every restore request we had in the last year.\"\n";
    let vote = format!(
        "      - voter: {voter}\n        vote: +1\n        weight: {weight}\n        ts: 2026-05-12T09:00:00Z\n        \
         rationale: \"Thirty days held through both restore drills and the audit of the last year.\"\n"
    );
    let text = String::from_utf8(tree[GUIDE].clone()).unwrap();
    assert!(text.contains(lin));
    tree.insert(GUIDE.into(), text.replacen(lin, &format!("{lin}{vote}"), 1).into_bytes());
}

/// [`with_dashboard`] with the demo repository's voting docs, specs and
/// decisions, and one more vote in its `backup-retention` ledger: A +6.5, B
/// +1.5 over 8 weighted votes, 2 from quorum and from lock.
fn with_documents() -> Tree {
    let mut tree = with_dashboard(true);
    let demo = tree_from_dir(&manifest_dir().join("fixtures/demo-repo")).unwrap();
    let documents = ["dark-factory/guidelines/", "fondue/specs/", ".harnery/decisions/"];
    tree.extend(demo.into_iter().filter(|(path, _)| documents.iter().any(|d| path.starts_with(d))));
    add_vote(&mut tree, "dana/opus-4.7", "4.5");
    tree
}

/// A brief over the review threshold on `base`: the gate waits on approvals.
fn big_change(base: &Tree, cites: &str) -> Tree {
    let mut head = base.clone();
    head.insert(BRIEF.into(), brief("AR", 400).replace("ADR-095]", &format!("{cites}]")).into_bytes());
    head
}

async fn evaluated(sim: &Sim, repo: &str, sha: &str) {
    let names = gatehouse::publish::check_names();
    wait_for("the head evaluated", || {
        let runs = sim.check_runs(repo, sha);
        runs.len() >= names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
}

async fn open(sim: &Sim, app: &gatehouse::app::Running, repo: &str, number: u64, base: Tree, head: Tree) -> PrRefs {
    let pr = sim.open_pr(repo, number, base, head, "Backups.");
    let event = sim.pull_request_event(repo, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("{repo}-opened-{number}"), &event).await, 202);
    evaluated(sim, repo, &pr.head_sha).await;
    pr
}

fn writes(sim: &Sim, method: &str, suffix: &str) -> usize {
    sim.requests()
        .iter()
        .filter(|r| r.method == method && r.path.starts_with("/repos/acme/docs/issues") && r.path.ends_with(suffix))
        .count()
}

fn dashboard(sim: &Sim) -> Option<Issue> {
    sim.issues(REPO).into_iter().find(|i| i.body.starts_with("<!-- gatehouse:dashboard -->"))
}

/// Waits for the jobs, the dashboard's among them (due a moment after the
/// evaluation that queued it).
async fn settled(app: &gatehouse::app::Running) {
    jobs_idle(&app.store).await;
    tokio::time::sleep(gatehouse::store::DASHBOARD_COALESCE + std::time::Duration::from_millis(300)).await;
    jobs_idle(&app.store).await;
}

#[tokio::test]
async fn one_issue_lists_what_each_pull_request_waits_on_and_is_edited_once_per_evaluation() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let app = start_app(config(&db, &sim.url())).await;
    let enabled = with_documents();
    // Both opened before either is evaluated: the issue is numbered after them.
    // The draft's branch adds a decision the default branch does not have.
    let mut draft_head = big_change(&enabled, "ADR-404");
    let pr_only = r#"{"status": "filed", "tier": 2, "question": "Only on a branch?"}"#;
    draft_head.insert(".harnery/decisions/branch-only-2026-07-11-0000.json".into(), pr_only.into());
    let draft = sim.open_pr(REPO, 2, enabled.clone(), draft_head, "Draft.");
    sim.set_draft(REPO, 2, true);
    sim.set_ref(REPO, "main", &draft.base_sha);
    open(&sim, &app, REPO, 1, enabled.clone(), big_change(&enabled, "ADR-095")).await;
    let event = sim.pull_request_event(REPO, 2, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened-2", &event).await, 202);
    evaluated(&sim, REPO, &draft.head_sha).await;
    // Another repository's pull request is never on this one's dashboard.
    let other = with_dashboard(true);
    open(&sim, &app, "acme/ops", 7, other.clone(), big_change(&other, "ADR-095")).await;
    settled(&app).await;
    let issue = dashboard(&sim).expect("a dashboard issue");
    assert_eq!(
        (issue.title.as_str(), issue.state.as_str(), issue.user.as_str()),
        ("gatehouse dashboard", "open", "gatehouse[bot]")
    );
    assert_eq!(writes(&sim, "POST", "/issues"), 1, "one issue");
    let body = &issue.body;
    assert!(body.contains("### #1 Change #1\n"), "{body}");
    assert!(body.contains("- **Review gate**: Review gate: "), "{body}");
    assert!(body.contains(", waiting since "), "{body}");
    assert!(body.contains("gyrum-priya"), "whom: {body}");
    assert!(body.contains("### #2 Change #2 (draft)\n"), "{body}");
    assert!(body.contains("- `gatehouse/briefs` fails: "), "{body}");
    assert!(!body.contains("#7") && !body.contains("acme/ops"), "{body}");
    assert_eq!(sim.issues("acme/ops").len(), 1, "acme/ops has its own");
    // The default branch's documents.
    assert!(
        body.contains("## Voting sections within reach\n\n")
            && body.contains(
                "\n- `dark-factory/guidelines/backup-scripts@v1.md` section `backup-retention` (Retention): 8 of 10 \
             weighted votes; `A` leads `B` by +5 (lock needs +5); quorum and lock 2 weighted votes away\n"
            ),
        "{body}"
    );
    assert!(!body.contains("`backup-dry-run`") && !body.contains("`api-error-body`"), "locked or far: {body}");
    assert!(
        body.contains(
            "\n### Tier 2: a human decides before enactment (1)\n\n- Which queue backend should the job runner use? — \
             `queue-backend-2026-07-10-7d21`, deliberating, stakes high, filed 2026-07-10T13:00:00Z\n\n### Tier 1 (2)\n\n\
             - When should the nightly Postgres backup run? — `pg-backup-window-2026-07-06-1a2b`, resolved, awaiting \
             enactment, stakes medium, filed 2026-07-06T08:10:00Z\n- Should the product cache be invalidated by events \
             instead of a TTL? — `cache-invalidation-2026-07-21-5e02`, resolved, awaiting enactment, stakes medium, \
             filed 2026-07-21T10:00:00Z\n"
        ),
        "{body}"
    );
    assert!(!body.contains("Only on a branch?") && !body.contains("cache-ttl"), "{body}");
    assert!(
        body.contains(
            "\n### pre-plan (1)\n\n- `fondue/specs/search-index` Search index for the docs site: `pre-plan:Review`\n\
             \n### plan (1)\n\n- `fondue/specs/csv-export` CSV export of invoices: `plan:Review`\n\nDone: 0; \
             abandoned: 0.\n"
        ),
        "{body}"
    );

    // A review: one evaluation, one edit of the issue.
    let edits = writes(&sim, "PATCH", &format!("/issues/{}", issue.number));
    let review = sim.add_review(REPO, 1, "gyrum-priya", "APPROVED");
    assert_eq!(deliver(app.addr, "pull_request_review", "priya-approves", &review).await, 202);
    wait_for("the dashboard edited", || writes(&sim, "PATCH", &format!("/issues/{}", issue.number)) > edits).await;
    settled(&app).await;
    assert_eq!(writes(&sim, "PATCH", &format!("/issues/{}", issue.number)), edits + 1, "a single edit");
    assert_eq!(writes(&sim, "POST", "/issues"), 1);
    assert_ne!(dashboard(&sim).unwrap().body, issue.body, "the approval shows");

    // Another pull request merged into the default branch with a vote that
    // locks `backup-retention` (A +8.5, B +1.5 over 10): the push brings the
    // dashboard up to date, with no pull request evaluated again.
    let runs = sim.all_check_runs().len();
    let mut main = with_documents();
    add_vote(&mut main, "sasha/opus-4.7", "2");
    let push = sim.push_to_default_branch(REPO, 1, main, "Merge pull request #9");
    assert_eq!(deliver(app.addr, "push", "push-9", &push).await, 202);
    let locked = "None of the 1 open section of 2 voting docs is within reach.";
    wait_for("the dashboard follows the default branch", || dashboard(&sim).unwrap().body.contains(locked)).await;
    settled(&app).await;
    assert!(!dashboard(&sim).unwrap().body.contains("`backup-retention`"));
    assert_eq!(sim.all_check_runs().len(), runs, "no pull request evaluated");
    app.kill();
}

#[tokio::test]
async fn closing_turns_it_off_until_reopened_or_the_config_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let enabled = with_dashboard(true);
    open(&sim, &app, REPO, 1, enabled.clone(), big_change(&enabled, "ADR-095")).await;
    settled(&app).await;
    let issue = dashboard(&sim).expect("a dashboard issue");
    sim.set_issue_state(REPO, issue.number, "closed");
    let requests = sim.requests().len();
    let review = sim.add_review(REPO, 1, "gyrum-priya", "APPROVED");
    assert_eq!(deliver(app.addr, "pull_request_review", "closed-1", &review).await, 202);
    settled(&app).await;
    assert!(sim.requests().len() > requests, "evaluated");
    assert_eq!(writes(&sim, "PATCH", &format!("/issues/{}", issue.number)), 0, "left alone");
    assert_eq!(writes(&sim, "POST", "/issues"), 1, "none opened");
    assert_eq!(dashboard(&sim).unwrap().state, "closed");

    // Reopened by someone: kept current again.
    sim.set_issue_state(REPO, issue.number, "open");
    let review = sim.add_review(REPO, 1, "gyrum-lin", "APPROVED");
    assert_eq!(deliver(app.addr, "pull_request_review", "reopened-1", &review).await, 202);
    wait_for("the reopened dashboard edited", || writes(&sim, "PATCH", &format!("/issues/{}", issue.number)) == 1)
        .await;

    // Closed again, then the config turns it off (a pull request on a base
    // without it) and on: a new issue.
    settled(&app).await;
    sim.set_issue_state(REPO, issue.number, "closed");
    let disabled = with_dashboard(false);
    open(&sim, &app, REPO, 20, disabled.clone(), big_change(&disabled, "ADR-095")).await;
    settled(&app).await;
    assert_eq!(writes(&sim, "POST", "/issues"), 1, "off: nothing opened");
    open(&sim, &app, REPO, 30, enabled.clone(), big_change(&enabled, "ADR-095")).await;
    wait_for("a new dashboard", || writes(&sim, "POST", "/issues") == 2).await;
    settled(&app).await;
    let issues = sim.issues(REPO);
    assert_eq!(issues.len(), 2);
    assert_eq!((issues[0].state.as_str(), issues[1].state.as_str()), ("closed", "open"));
    app.kill();
}

#[tokio::test]
async fn without_the_config_there_is_no_dashboard() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    open(&sim, &app, REPO, 1, base(), big_change(&base(), "ADR-095")).await;
    settled(&app).await;
    assert!(sim.issues(REPO).is_empty());
    assert_eq!(writes(&sim, "POST", "/issues"), 0);
    app.kill();
}

#[tokio::test]
async fn an_unconfirmed_create_is_found_not_repeated_and_no_pull_request_is_taken_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let enabled = with_dashboard(true);
    let pr = sim.open_pr(REPO, 1, enabled.clone(), big_change(&enabled, "ADR-095"), "Backups.");
    // GitHub makes the issue but answers after the client gave up waiting.
    let delay = std::time::Duration::from_secs(7);
    sim.set_faults(Faults { slow_next: 1, delay, only: "POST /repos/acme/docs/issues".into(), ..Faults::default() });
    let event = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "opened-1", &event).await, 202);
    evaluated(&sim, REPO, &pr.head_sha).await;
    wait_for("the issue made", || !sim.issues(REPO).is_empty()).await;
    // Meanwhile a pull request whose body starts as the dashboard's does is
    // opened: "List repository issues" lists it first, and it is not the
    // dashboard.
    sim.open_pr(REPO, 3, enabled.clone(), big_change(&enabled, "ADR-095"), "<!-- gatehouse:dashboard -->\nMine.");
    wait_for("the dashboard's job ran again", || writes(&sim, "GET", "/issues") > 0).await;
    settled(&app).await;
    // The slow create is never logged as answered: the client hung up.
    assert_eq!(writes(&sim, "POST", "/issues"), 0, "the create is not repeated");
    assert_eq!(sim.issues(REPO).len(), 1, "one issue, made by the create the client gave up on");
    let issue = dashboard(&sim).expect("the issue made");
    assert_eq!(issue.number, 2);
    assert_eq!(writes(&sim, "PATCH", "/issues/2"), 1, "found and brought up to date");
    assert_eq!(writes(&sim, "PATCH", "/issues/3"), 0, "the pull request is left alone");
    assert!(issue.body.contains("### #1 Change #1\n"), "{}", issue.body);
    app.kill();
}
