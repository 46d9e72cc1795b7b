//! Check runs: created `in_progress` when a job starts, completed with the
//! summary and every annotation (50 per request) when it ends. A check run's
//! `external_id` names its job, so a create that may have succeeded (timeout,
//! 5xx) is looked up before it is repeated, and a job run again after a crash
//! reuses its runs instead of adding more.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};

use super::summary::CheckOutput;
use crate::github::{ApiError, Call, GitHub, RepoName};
use crate::model::{Finding, Severity};
use crate::webhook::envelope::RERUN_ACTION;

/// GitHub accepts at most 50 annotations per request.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;
/// More annotations than this are dropped, with a note in the summary.
pub const MAX_ANNOTATIONS: usize = 1000;
/// GitHub's limit on an annotation's message, in characters.
const MESSAGE_LIMIT: usize = 60_000;

/// The check runs of one job on one head, by name.
#[derive(Debug, Default)]
pub struct CheckRuns {
    pub ids: BTreeMap<String, u64>,
    /// Runs this job completed before (it ran again after a crash): how many
    /// annotations each already carries.
    pub completed: BTreeMap<String, usize>,
    /// Another job already has gatehouse runs on this head.
    pub head_evaluated: bool,
}

fn external_id(job: i64, name: &str) -> String {
    format!("gatehouse:{job}:{name}")
}

/// A check run as listed: id, status, annotations delivered.
type Listed = (u64, String, usize);

fn annotations_count(run: &Value) -> usize {
    run.pointer("/output/annotations_count").and_then(Value::as_u64).unwrap_or(0) as usize
}

/// Our check runs on `sha`, by external id.
async fn existing(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    sha: &str,
) -> Result<BTreeMap<String, Listed>, ApiError> {
    let mut url =
        format!("/repos/{}/{}/commits/{sha}/check-runs?per_page=100&app_id={}", repo.owner, repo.name, gh.app_id());
    let mut out = BTreeMap::new();
    for _ in 0..10 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        for run in response.body.get("check_runs").and_then(Value::as_array).into_iter().flatten() {
            let ext = run.get("external_id").and_then(Value::as_str).unwrap_or("");
            if let (true, Some(id)) = (ext.starts_with("gatehouse:"), run.get("id").and_then(Value::as_u64)) {
                let status = run.get("status").and_then(Value::as_str).unwrap_or("").to_string();
                out.insert(ext.to_string(), (id, status, annotations_count(run)));
            }
        }
        match response.next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(out)
}

/// Creates (or, for a job run again, finds) the job's check runs, in
/// progress. With `once_per_head`, a head another job already has runs on
/// gets none (GitHub sends `check_suite.requested` with every push, next to
/// `pull_request.synchronize`).
pub async fn start(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    sha: &str,
    job: i64,
    names: &[String],
    once_per_head: bool,
) -> Result<CheckRuns, ApiError> {
    let mut known = existing(gh, installation, repo, sha).await?;
    let own = format!("gatehouse:{job}:");
    let mut runs = CheckRuns { head_evaluated: known.keys().any(|k| !k.starts_with(&own)), ..CheckRuns::default() };
    if once_per_head && runs.head_evaluated {
        return Ok(runs);
    }
    for name in names {
        let ext = external_id(job, name);
        if let Some((id, status, annotations)) = known.get(&ext) {
            runs.ids.insert(name.clone(), *id);
            if status == "completed" {
                runs.completed.insert(name.clone(), *annotations);
            }
            continue;
        }
        let body = json!({ "name": name, "head_sha": sha, "external_id": ext, "status": "in_progress" });
        let path = format!("/repos/{}/{}/check-runs", repo.owner, repo.name);
        let mut tries = 0;
        let id = loop {
            tries += 1;
            match gh.rest(installation, Method::POST, &path, Some(&body), Call::Create).await {
                Ok(response) => break response.body.get("id").and_then(Value::as_u64),
                Err(ApiError::Uncertain { .. }) if tries < 3 => {
                    // It may exist: look before creating again.
                    known = existing(gh, installation, repo, sha).await?;
                    if let Some((id, _, _)) = known.get(&ext) {
                        break Some(*id);
                    }
                }
                Err(err) => return Err(err),
            }
        };
        let id = id.ok_or_else(|| ApiError::Status {
            status: 201,
            what: "POST check-runs".into(),
            message: "no id".into(),
        })?;
        runs.ids.insert(name.clone(), id);
    }
    Ok(runs)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "failure",
        Severity::Warning => "warning",
        Severity::Notice => "notice",
    }
}

/// A finding as a GitHub annotation.
pub fn annotation(f: &Finding) -> Value {
    let mut message: String = f.message.chars().take(MESSAGE_LIMIT).collect();
    if let Some(help) = &f.help {
        message.push_str("\n\nHow to fix: ");
        message.push_str(help);
    }
    let message: String = message.chars().take(MESSAGE_LIMIT).collect();
    let mut a = json!({
        "path": f.path,
        "start_line": f.span.line.max(1),
        "end_line": f.span.end_line.max(f.span.line).max(1),
        "annotation_level": level(f.severity),
        "title": f.rule,
        "message": message,
    });
    if f.span.col > 0 && f.span.end_line == f.span.line {
        a["start_column"] = json!(f.span.col);
        a["end_column"] = json!(f.span.end_col.max(f.span.col));
    }
    a
}

/// Completes one check run with its output and annotations. `delivered`:
/// the run was completed before with that many annotations (this job ran
/// again), so only the rest are sent.
pub async fn finish(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    id: u64,
    output: &CheckOutput,
    findings: &[&Finding],
    delivered: Option<usize>,
) -> Result<(), ApiError> {
    let path = format!("/repos/{}/{}/check-runs/{id}", repo.owner, repo.name);
    let mut summary = output.summary.clone();
    if findings.len() > MAX_ANNOTATIONS {
        summary = super::summary::fit(format!(
            "{summary}\n\n**{} annotations were dropped**: only the first {MAX_ANNOTATIONS} are shown. \
             Run `gatehouse check` locally for the full list.\n",
            findings.len() - MAX_ANNOTATIONS
        ));
    }
    let annotations: Vec<Value> = findings.iter().take(MAX_ANNOTATIONS).map(|f| annotation(f)).collect();
    // `None` until the run is completed; then how many annotations it carries.
    let mut sent = delivered.map(|n| n.min(annotations.len()));
    let mut uncertain = 0;
    loop {
        let (body, count) = match sent {
            None => {
                let first = &annotations[..annotations.len().min(ANNOTATIONS_PER_REQUEST)];
                let body = json!({
                    "status": "completed",
                    "conclusion": output.conclusion,
                    "output": { "title": output.title, "summary": summary, "annotations": first },
                    // The button GitHub shows on the run; it comes back as check_run.requested_action.
                    "actions": [{ "label": "Re-run", "description": "Evaluate this pull request again", "identifier": RERUN_ACTION }],
                });
                (body, first.len())
            }
            Some(done) if done < annotations.len() => {
                let batch = &annotations[done..(done + ANNOTATIONS_PER_REQUEST).min(annotations.len())];
                (json!({ "output": { "title": output.title, "summary": summary, "annotations": batch } }), batch.len())
            }
            Some(_) => break,
        };
        // Every update appends its annotations: one that may have landed is
        // looked up on the run before it is sent again.
        match gh.rest(installation, Method::PATCH, &path, Some(&body), Call::Create).await {
            Ok(_) => sent = Some(sent.unwrap_or(0) + count),
            Err(ApiError::Uncertain { .. }) if uncertain < 5 => {
                uncertain += 1;
                let run = gh.rest(installation, Method::GET, &path, None, Call::Idempotent).await?.body;
                if run.get("status").and_then(Value::as_str) == Some("completed") {
                    sent = Some(annotations_count(&run).min(annotations.len()));
                }
            }
            Err(err) => return Err(err),
        }
    }
    Ok(())
}
