//! A verified fix on the simulated GitHub: the review comment carries a
//! suggestion block on the lines it rewrites, and a head with the suggested
//! text applied (what GitHub's "Commit suggestion" pushes) clears the
//! finding and resolves its thread.

mod common;

use common::*;

const REPO: &str = "acme/docs";

#[tokio::test]
async fn a_suggestion_is_posted_and_applying_it_clears_the_finding() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let text = brief("AR", 40).replace("lines_estimate: 40", "lines_estimate: \"40\"");
    sim.open_pr(REPO, 1, base(), with_brief(&text), "Adds the backup brief.");
    let payload = sim.pull_request_event(REPO, 1, "opened");
    assert_eq!(deliver(app.addr, "pull_request", "suggest-1", &payload).await, 202);
    wait_for("the review", || !sim.reviews(REPO, 1).is_empty()).await;

    let reviews = sim.reviews(REPO, 1);
    let comment =
        reviews[0].comments.iter().find(|c| c.body.contains("brief/field-type")).expect("a comment on the estimate");
    let line = text.lines().position(|l| l.starts_with("lines_estimate")).unwrap() as u32 + 1;
    assert_eq!((comment.path.as_str(), comment.start_line, comment.line), (BRIEF, None, line));
    assert!(comment.body.contains("\n```suggestion\nlines_estimate: 40\n```"), "{}", comment.body);

    // GitHub's "Commit suggestion": the commented lines become the block's.
    let block = comment.body.split("```suggestion\n").nth(1).unwrap().split("```").next().unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.splice((line - 1) as usize..line as usize, block.lines());
    let applied = format!("{}\n", lines.join("\n"));
    let fixed = sim.push(REPO, 1, with_brief(&applied));
    let payload = sim.pull_request_event(REPO, 1, "synchronize");
    assert_eq!(deliver(app.addr, "pull_request", "suggest-2", &payload).await, 202);
    wait_for("the thread resolved", || sim.threads(REPO, 1).iter().all(|t| t.resolved)).await;
    let names = gatehouse::publish::check_names();
    wait_for("check runs to complete", || {
        let runs = sim.check_runs(REPO, &fixed);
        runs.len() == names.len() && runs.iter().all(|r| r.status == "completed")
    })
    .await;
    let runs = sim.check_runs(REPO, &fixed);
    let briefs = runs.iter().find(|r| r.name == "gatehouse/briefs").unwrap();
    assert_eq!(briefs.conclusion.as_deref(), Some("success"), "{}", briefs.summary);
    assert!(!briefs.annotations.iter().any(|a| a["title"] == "brief/field-type"), "{:#?}", briefs.annotations);
    app.kill();
}
