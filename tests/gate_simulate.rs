//! `gatehouse gate simulate` on GitHub-shaped JSON, as `gh api` saves it.

use std::path::Path;
use std::process::{Command, Output};

const CONFIG: &str =
    "review:\n  core: { reviewers: [marcus, priya, lin], required: 2 }\n  advisory: [dana]\n  stale_on_push: true\n";

fn review(login: &str, state: &str, commit: &str, at: &str) -> String {
    format!(
        r#"{{"id": 1, "user": {{"login": "{login}", "type": "User"}}, "body": "", "state": "{state}", "commit_id": "{commit}", "submitted_at": "{at}"}}"#
    )
}

fn commit(sha: &str, login: &str) -> String {
    format!(
        r#"{{"sha": "{sha}", "commit": {{"author": {{"name": "{login}", "email": "{login}@x"}}, "message": "m"}}, "author": {{"login": "{login}"}}}}"#
    )
}

fn simulate(dir: &Path, reviews: &[String], commits: &[String], extra: &[&str]) -> Output {
    std::fs::write(dir.join("gatehouse.yml"), CONFIG).unwrap();
    std::fs::write(dir.join("reviews.json"), format!("[{}]", reviews.join(","))).unwrap();
    std::fs::write(dir.join("commits.json"), format!("[{}]", commits.join(","))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["gate", "simulate", "--config"])
        .arg(dir.join("gatehouse.yml"))
        .arg("--reviews")
        .arg(dir.join("reviews.json"))
        .arg("--commits")
        .arg(dir.join("commits.json"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_brief_pr_goes_green_as_reviews_arrive_and_red_on_a_new_push() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let c1 = "1111111aaaaaaa";
    let commits = vec![commit(c1, "jon")];
    let mut reviews = vec![review("marcus", "APPROVED", c1, "2026-05-01T10:00:00Z")];
    let out = simulate(dir, &reviews, &commits, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], false);
    assert_eq!(
        v["missing_text"],
        serde_json::json!(["1 more approval from priya or lin on 1111111", "dana has not reviewed"])
    );
    assert_eq!(
        v["missing"][0],
        serde_json::json!({"kind": "approvals", "needed": 1, "from": ["priya", "lin"], "on": c1})
    );

    reviews.push(review("Lin", "APPROVED", c1, "2026-05-01T11:00:00Z"));
    reviews.push(review("dana[bot]", "COMMENTED", c1, "2026-05-01T11:30:00Z"));
    let out = simulate(dir, &reviews, &commits, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Review gate passed: 2 of 2 core approvals on `1111111`."));

    // A new push makes both approvals stale.
    let commits = vec![commit(c1, "jon"), commit("2222222bbbbbbb", "jon")];
    let out = simulate(dir, &reviews, &commits, &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 more approvals from marcus, priya or lin on 2222222"), "{text}");
    // Without the documents' blob ids, nothing shows an approval still covers what it approved.
    assert!(
        text.contains(
            "- marcus on `1111111`: no longer counts: the documents that made the gate apply were not compared"
        ),
        "{text}"
    );
}

#[test]
fn recusal_from_commit_authors_and_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let c = "3333333ccccccc";
    let commits = vec![commit(c, "marcus")];
    let reviews = vec![
        review("priya", "APPROVED", c, "1"),
        review("lin", "APPROVED", c, "2"),
        review("dana", "APPROVED", c, "3"),
    ];
    let out = simulate(dir, &reviews, &commits, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("marcus authored commits here and is recused: the quorum is 2 of 2.")
    );

    std::fs::write(dir.join("bad.json"), "{\"not\": \"an array\"}").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["gate", "simulate", "--config"])
        .arg(dir.join("gatehouse.yml"))
        .arg("--reviews")
        .arg(dir.join("bad.json"))
        .args(["--head", c])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected the JSON array GitHub returns"));

    std::fs::write(dir.join("gatehouse.yml"), "review:\n  core: { required: two }\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["gate", "simulate", "--config"])
        .arg(dir.join("gatehouse.yml"))
        .arg("--reviews")
        .arg(dir.join("reviews.json"))
        .args(["--head", c])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("gatehouse.yml:2:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    std::fs::write(dir.join("gatehouse.yml"), "briefs:\n  paths: [\"briefs/*.md\"]\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["gate", "simulate", "--config"])
        .arg(dir.join("gatehouse.yml"))
        .arg("--reviews")
        .arg(dir.join("reviews.json"))
        .args(["--head", c])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("has no `review:` policy") && stderr.contains("core: { reviewers: ["), "{stderr}");
}

#[test]
fn a_head_that_is_none_of_the_commits_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let commits = vec![commit("1111111aaaaaaa", "jon"), commit("2222222bbbbbbb", "jon")];
    let reviews = vec![review("marcus", "APPROVED", "2222222bbbbbbb", "2026-05-01T10:00:00Z")];
    let out = simulate(tmp.path(), &reviews, &commits, &["--head", "3333333"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--head 3333333 is none of the 2 commits in"), "{stderr}");
    assert!(stderr.contains("(the last, the usual head, is 2222222bbbbbbb)"), "{stderr}");
    let out = simulate(tmp.path(), &reviews, &commits, &["--head", "1111111aaaaaaa"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn help_keeps_the_gh_api_example_on_one_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(["gate", "simulate", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("`gh api repos/OWNER/REPO/pulls/NUMBER/reviews > reviews.json`"), "{help}");
}

#[test]
fn codeowners_teams_and_an_agents_assignee_decide_as_the_app_would() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("CODEOWNERS"), "*.md @lead\n/infra/ @acme/sre\n").unwrap();
    std::fs::write(
        dir.join("files.json"),
        r#"[{"filename": "infra/a.tf", "additions": 3, "deletions": 1, "status": "modified"}]"#,
    )
    .unwrap();
    let c = "1111111aaaaaaa";
    let commits = vec![commit(c, "swarm-runner")];
    let reviews = vec![
        review("marcus", "APPROVED", c, "2026-05-01T10:00:00Z"),
        review("priya", "APPROVED", c, "2026-05-01T10:01:00Z"),
        review("dana", "COMMENTED", c, "2026-05-01T10:02:00Z"),
        review("sam", "APPROVED", c, "2026-05-01T10:03:00Z"),
    ];
    let codeowners = dir.join("CODEOWNERS").display().to_string();
    let files = dir.join("files.json").display().to_string();
    let args = ["--codeowners", &codeowners, "--files", &files, "--team", "@acme/sre=sam,sid", "--format", "json"];
    // The policy of `CONFIG` with `owners: codeowners`.
    let out = simulate(dir, &reviews, &commits, &args);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["groups"], serde_json::Value::Null, "without `review.owners` CODEOWNERS is not the gate's: {v}");
    assert_eq!(out.status.code(), Some(0), "{v}");

    let with_owners = CONFIG.replace("review:\n", "review:\n  owners: codeowners\n  agents: [swarm-runner]\n");
    std::fs::write(dir.join("owners.yml"), with_owners).unwrap();
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
            .args(["gate", "simulate", "--config"])
            .arg(dir.join("owners.yml"))
            .arg("--reviews")
            .arg(dir.join("reviews.json"))
            .arg("--commits")
            .arg(dir.join("commits.json"))
            .args(args)
            .args(["--author", "swarm-runner"])
            .args(extra)
            .output()
            .unwrap();
        (out.status.code(), serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap())
    };
    let (code, v) = run(&[]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["groups"][0]["rule"], "`CODEOWNERS`:2");
    assert_eq!(v["groups"][0]["approved_by"], serde_json::json!(["sam"]));
    let (code, v) = run(&["--assignee", "sam"]);
    assert_eq!(code, Some(1), "the agent's person alone cannot approve: {v}");
    let text = v["missing_text"][0].as_str().unwrap();
    assert!(text.contains("swarm-runner opened this pull request for sam, who cannot approve it alone"), "{text}");
}
