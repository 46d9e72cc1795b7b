//! Gate attestations on the simulated GitHub: a pull request merged with
//! every check green gets one `gatehouse/attestation` run on its merge
//! commit whose text is a DSSE envelope the App's key signed, naming the
//! brief it changed and the approvals that counted, also served over HTTP;
//! one merged past a red check by an administrator gets none, one comment
//! and a line on the dashboard. Redelivered `closed` events write nothing
//! twice. `gatehouse verify`, asking the App, answers `verified`,
//! `unattested` and `changed after the gate` on a checkout of the default
//! branch after a gated merge, a bypass and a direct push.

mod common;

use common::*;
use gatehouse::attest::{ATTESTATION_CHECK, PREDICATE_TYPE, STATEMENT_TYPE};
use gatehouse::attestation::{AttestationKeys, Envelope, Opened, SigningKey, TrustedKey};
use gatehouse_sim::{Sim, Tree, blob_sha};

const REPO: &str = "acme/docs";

fn signing_key() -> SigningKey {
    let pem = std::fs::read_to_string(manifest_dir().join("fixtures/attest/signing-key.pem")).unwrap();
    SigningKey::from_pem(&pem).unwrap()
}

fn trusted() -> Vec<TrustedKey> {
    let pem = std::fs::read_to_string(manifest_dir().join("fixtures/attest/signing-key.pub.pem")).unwrap();
    TrustedKey::all_from_pem(&pem).unwrap()
}

async fn app_with_key(db: &Db, sim: &Sim) -> gatehouse::app::Running {
    let mut config = config(db, &sim.url());
    config.attestation = AttestationKeys { key: Some(signing_key()), trusted: Vec::new() };
    start_app(config).await
}

fn attestation_runs(sim: &Sim, merge: &str) -> Vec<gatehouse_sim::CheckRun> {
    sim.check_runs(REPO, merge).into_iter().filter(|r| r.name == ATTESTATION_CHECK).collect()
}

fn with_dashboard(tree: &Tree) -> Tree {
    let mut tree = tree.clone();
    let config = format!("{REVIEW_POLICY}dashboard:\n  enabled: true\n");
    tree.insert(".github/gatehouse.yml".into(), config.into_bytes());
    tree
}

/// The same merge in another body: a job of its own, as a retried or
/// crashed job's second attempt is.
fn reported_again(event: &serde_json::Value) -> serde_json::Value {
    let mut again = event.clone();
    again["sender"]["login"] = "gyrum-lin".into();
    again
}

#[tokio::test]
async fn a_gated_merge_is_attested_once_on_its_merge_commit() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::sqlite(&dir);
    let sim = sim().await;
    let app = app_with_key(&db, &sim).await;
    // A brief over the review threshold: the gate applies and needs 2 approvals and Dana.
    let text = brief("AR", 400);
    let pr = sim.open_pr(REPO, 1, base(), with_brief(&text), "Backups.");
    for (login, state) in [("gyrum-lin", "APPROVED"), ("gyrum-priya", "APPROVED"), ("gyrum-dana", "COMMENTED")] {
        sim.add_review(REPO, 1, login, state);
    }
    assert_eq!(deliver(app.addr, "pull_request", "opened", &sim.pull_request_event(REPO, 1, "opened")).await, 202);
    head_evaluated(&sim, REPO, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    let merge = sim.merge_pr(REPO, 1).expect("every required check is green");
    let closed = sim.pull_request_event(REPO, 1, "closed");
    assert_eq!(closed["pull_request"]["merged"], true);
    assert_eq!(deliver(app.addr, "pull_request", "closed", &closed).await, 202);
    wait_for("the attestation run", || !attestation_runs(&sim, &merge).is_empty()).await;
    jobs_idle(&app.store).await;

    let run = attestation_runs(&sim, &merge).remove(0);
    assert_eq!(run.conclusion.as_deref(), Some("success"));
    assert!(run.summary.contains(BRIEF), "{}", run.summary);
    let envelope: Envelope = serde_json::from_str(&run.text).expect("the run's text is the envelope");
    assert_eq!(envelope.signatures[0].keyid, signing_key().keyid());
    let Opened::Trusted { statement, keyid } = envelope.open(&trusted()) else { panic!("the fixture key verifies it") };
    assert_eq!(keyid, signing_key().keyid());
    assert_eq!(
        (statement.statement_type.as_str(), statement.predicate_type.as_str()),
        (STATEMENT_TYPE, PREDICATE_TYPE)
    );
    assert_eq!(statement.subject.len(), 1, "the brief, not the README");
    assert_eq!(statement.subject[0].name, BRIEF);
    assert_eq!(statement.subject[0].git_blob(), Some(blob_sha(text.as_bytes()).as_str()));
    let sha256 = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes()));
    assert_eq!(statement.subject[0].digest.get("sha256"), Some(&sha256));
    let gate = &statement.predicate;
    assert_eq!((gate.repository.as_str(), gate.pull_request.number), (REPO, 1));
    assert_eq!(
        (gate.pull_request.head.as_str(), gate.pull_request.merge.as_str()),
        (pr.head_sha.as_str(), merge.as_str())
    );
    let checks: Vec<&str> = gate.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(checks, gatehouse::publish::check_names());
    assert!(gate.checks.iter().any(|c| c.name == "gatehouse/review" && c.conclusion == "success"));
    let approvals: Vec<&str> = gate.approvals.iter().map(|a| a.login.as_str()).collect();
    assert_eq!(approvals, ["gyrum-priya", "gyrum-lin"]);
    for approval in &gate.approvals {
        assert_eq!(approval.commit.as_deref(), Some(pr.head_sha.as_str()));
        assert_eq!(approval.approved[BRIEF]["gitBlob"], blob_sha(text.as_bytes()), "the content it approved");
        assert!(approval.submitted_at.is_some());
    }
    assert!(gate.rules.config.is_some(), "the base's config, by blob");

    // Served by repository and by blob, with the public key.
    let base_url = format!("http://{}", app.addr);
    let by_blob: Vec<Envelope> = reqwest::get(format!("{base_url}/attestations/{REPO}/{}", blob_sha(text.as_bytes())))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(by_blob, std::slice::from_ref(&envelope));
    let other: Vec<Envelope> =
        reqwest::get(format!("{base_url}/attestations/{REPO}/{}", "0".repeat(40))).await.unwrap().json().await.unwrap();
    assert!(other.is_empty());
    let keys = reqwest::get(format!("{base_url}/attestations/keys")).await.unwrap().text().await.unwrap();
    assert_eq!(TrustedKey::all_from_pem(&keys).unwrap()[0].keyid(), signing_key().keyid());
    let bad = reqwest::get(format!("{base_url}/attestations/{REPO}/not-hex")).await.unwrap();
    assert_eq!(bad.status().as_u16(), 400);

    // GitHub redelivers the event (200: known), and a second job for the
    // same merge (another body reporting it) writes nothing again.
    assert_eq!(deliver(app.addr, "pull_request", "closed-again", &closed).await, 200);
    assert_eq!(deliver(app.addr, "pull_request", "closed-other", &reported_again(&closed)).await, 202);
    jobs_idle(&app.store).await;
    assert_eq!(attestation_runs(&sim, &merge).len(), 1);
    assert_eq!(app.store.attestations(REPO, None).await.unwrap().len(), 1);
    // A direct push to the default branch is no merge: no attestation for it.
    let mut pushed = sim.commit_tree(REPO, &merge).unwrap();
    pushed.insert(BRIEF.into(), format!("{text}\nEdited on main.\n").into_bytes());
    let tip = sim.push_direct(REPO, pushed, "Edit the brief on main");
    assert_eq!(sim.default_branch_tip(REPO).as_deref(), Some(tip.as_str()));
    assert!(attestation_runs(&sim, &tip).is_empty());
    app.kill();
}

#[tokio::test]
async fn a_merge_past_a_red_check_is_not_attested_and_is_said_once() {
    let Some(db) = Db::postgres() else { return };
    let sim = sim().await;
    let app = app_with_key(&db, &sim).await;
    let base = with_dashboard(&base());
    let mut head = base.clone();
    let broken = brief("AR", 40).replace("lines_estimate: 40", "lines_estimate: \"sixty\"");
    head.insert(BRIEF.into(), broken.into_bytes());
    let pr = sim.open_pr(REPO, 2, base, head, "Backups.");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &sim.pull_request_event(REPO, 2, "opened")).await, 202);
    head_evaluated(&sim, REPO, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    let refused = sim.merge_pr(REPO, 2).expect_err("a required check is red");
    assert!(refused.contains("gatehouse/briefs"), "{refused}");
    let merge = sim.merge_pr_as_admin(REPO, 2).expect("an administrator merges past it");
    let closed = sim.pull_request_event(REPO, 2, "closed");
    assert_eq!(deliver(app.addr, "pull_request", "closed", &closed).await, 202);
    wait_for("the bypass comment", || !sim.issue_comments(REPO, 2).is_empty()).await;
    jobs_idle(&app.store).await;
    assert_eq!(deliver(app.addr, "pull_request", "closed-other", &reported_again(&closed)).await, 202);
    jobs_idle(&app.store).await;

    let comments = sim.issue_comments(REPO, 2);
    assert_eq!(comments.len(), 1, "one comment, redelivery or not");
    assert!(comments[0].body.contains("`gatehouse/briefs` (failure)"), "{}", comments[0].body);
    assert!(comments[0].body.contains(&merge[..7]), "{}", comments[0].body);
    assert!(attestation_runs(&sim, &merge).is_empty(), "no attestation");
    assert!(app.store.attestations(REPO, None).await.unwrap().is_empty());
    wait_for("the dashboard names the bypass", || {
        sim.issues(REPO).iter().any(|i| {
            i.body.starts_with("<!-- gatehouse:dashboard -->")
                && i.body.contains(&format!("- #2 merged as `{}` past `gatehouse/briefs` (failure)", &merge[..7]))
        })
    })
    .await;
    app.kill();
}

/// Opens PR `number` adding `path` with `text` to [`base`], and evaluates it.
async fn opened(sim: &Sim, app: &gatehouse::app::Running, number: u64, path: &str, text: &str) -> String {
    let mut head = base();
    head.insert(path.into(), text.as_bytes().to_vec());
    let pr = sim.open_pr(REPO, number, base(), head, "A brief.");
    let event = sim.pull_request_event(REPO, number, "opened");
    assert_eq!(deliver(app.addr, "pull_request", &format!("opened-{number}"), &event).await, 202);
    head_evaluated(sim, REPO, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    pr.head_sha
}

async fn closed(sim: &Sim, app: &gatehouse::app::Running, number: u64) {
    let event = sim.pull_request_event(REPO, number, "closed");
    assert_eq!(deliver(app.addr, "pull_request", &format!("closed-{number}"), &event).await, 202);
    jobs_idle(&app.store).await;
}

/// A git checkout of `trees` committed in order (the blob ids are GitHub's).
fn checkout(dir: &std::path::Path, trees: &[Tree]) {
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=Lin", "-c", "user.email=lin@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&status.stderr));
    };
    git(&["init", "-q", "-b", "main"]);
    for (n, tree) in trees.iter().enumerate() {
        git(&["rm", "-rqf", "--ignore-unmatch", "."]);
        for (path, bytes) in tree {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, bytes).unwrap();
        }
        git(&["add", "-A"]);
        git(&["commit", "-qm", &format!("tip {n}")]);
    }
}

#[tokio::test]
async fn verify_asks_the_app_and_answers_every_case_on_a_checkout_of_the_default_branch() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = app_with_key(&Db::sqlite(&dir), &sim).await;
    const GATED: &str = "dark-factory/briefs/SWARM-AR-backups.md";
    const BYPASSED: &str = "dark-factory/briefs/SWARM-AS-restore.md";
    const EDITED: &str = "dark-factory/briefs/SWARM-AT-drill.md";
    let broken = brief("AS", 40).replace("lines_estimate: 40", "lines_estimate: \"sixty\"");
    opened(&sim, &app, 1, GATED, &brief("AR", 40)).await;
    opened(&sim, &app, 2, BYPASSED, &broken).await;
    opened(&sim, &app, 3, EDITED, &brief("AT", 40)).await;
    sim.merge_pr(REPO, 1).expect("green");
    closed(&sim, &app, 1).await;
    sim.merge_pr(REPO, 2).expect_err("red");
    sim.merge_pr_as_admin(REPO, 2).expect("an administrator's bypass");
    closed(&sim, &app, 2).await;
    let merged = sim.merge_pr(REPO, 3).expect("green");
    closed(&sim, &app, 3).await;
    let mut edited = sim.commit_tree(REPO, &merged).unwrap();
    assert_eq!(edited.len(), base().len() + 3, "all three briefs merged");
    let text = format!("{}\nAlso drill the restore of the config.\n", brief("AT", 40));
    edited.insert(EDITED.into(), text.into_bytes());
    let tip = sim.push_direct(REPO, edited.clone(), "Widen the drill on main");
    assert_eq!(sim.default_branch_tip(REPO), Some(tip));

    let clone = dir.path().join("clone");
    std::fs::create_dir(&clone).unwrap();
    checkout(&clone, &[sim.commit_tree(REPO, &merged).unwrap(), edited]);
    let keys = reqwest::get(format!("http://{}/attestations/keys", app.addr)).await.unwrap().text().await.unwrap();
    std::fs::write(dir.path().join("keys.pem"), keys).unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .current_dir(&clone)
        .args(["verify", GATED, BYPASSED, EDITED, "--format", "json", "--key"])
        .arg(dir.path().join("keys.pem"))
        .args(["--from", &format!("http://{}/attestations/{REPO}", app.addr)])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let statuses: Vec<&str> =
        report["documents"].as_array().unwrap().iter().map(|d| d["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["verified", "unattested", "changed_after_gate"], "{report:#}");
    assert_eq!(report["documents"][0]["pull_request"]["number"], 1);
    assert_eq!(report["documents"][2]["pull_request"]["number"], 3);
    assert!(report["documents"][2]["diff"].as_str().unwrap().contains("+Also drill the restore of the config."));
    app.kill();
}

#[tokio::test]
async fn without_a_key_a_gated_merge_is_not_signed() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let pr = sim.open_pr(REPO, 3, base(), with_brief(&brief("AR", 40)), "Backups.");
    assert_eq!(deliver(app.addr, "pull_request", "opened", &sim.pull_request_event(REPO, 3, "opened")).await, 202);
    head_evaluated(&sim, REPO, &pr.head_sha).await;
    jobs_idle(&app.store).await;
    let merge = sim.merge_pr(REPO, 3).unwrap();
    assert_eq!(deliver(app.addr, "pull_request", "closed", &sim.pull_request_event(REPO, 3, "closed")).await, 202);
    jobs_idle(&app.store).await;
    assert!(attestation_runs(&sim, &merge).is_empty());
    assert!(sim.issue_comments(REPO, 3).is_empty(), "green: no bypass to say");
    let keys = reqwest::get(format!("http://{}/attestations/keys", app.addr)).await.unwrap();
    assert_eq!(keys.status().as_u16(), 404);
    app.kill();
}
