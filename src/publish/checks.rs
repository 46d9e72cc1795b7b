//! Check runs: created `in_progress` when a job starts, completed with the
//! summary and every annotation (50 per request) when it ends. A check run's
//! `external_id` names its job, so a create that may have succeeded (timeout,
//! 5xx) is looked up before it is repeated, and a job run again after a crash
//! reuses its runs instead of adding more.

use std::collections::BTreeMap;

use reqwest::Method;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::limits;
use super::summary::CheckOutput;
use crate::github::answers::{CheckRun, CheckRunList};
use crate::github::{ApiError, Call, RepoClient};
use crate::model::{Finding, Severity};

/// The identifier of the check runs' `Re-run` button.
pub(crate) const RERUN_ACTION: &str = "rerun";

/// GitHub accepts at most 50 annotations per request.
pub(crate) const ANNOTATIONS_PER_REQUEST: usize = 50;
/// More annotations than this are dropped, with a note in the summary.
pub(crate) const MAX_ANNOTATIONS: usize = 1000;

/// The check runs of one job on one head, by name.
#[derive(Debug, Default)]
pub(crate) struct CheckRuns {
    pub ids: BTreeMap<String, u64>,
    /// Runs this job completed before (it ran again after a crash): how many
    /// annotations each already carries.
    pub completed: BTreeMap<String, usize>,
}

fn external_id(job: i64, name: &str) -> String {
    format!("gatehouse:{job}:{name}")
}

/// The check name in an external id `gatehouse:{job}:{name}`.
fn check_name(external_id: &str) -> Option<&str> {
    external_id.strip_prefix("gatehouse:")?.split_once(':').map(|(_, name)| name)
}

/// A check run as listed: id, status, annotations delivered.
type Listed = (u64, String, usize);

/// Our check runs on `sha`, by external id.
async fn existing(repo: &RepoClient, sha: &str) -> Result<BTreeMap<String, Listed>, ApiError> {
    // `filter=all`: by default GitHub lists only the latest run of each
    // name, which would hide an earlier job's runs of the same name.
    let mut url = format!("/commits/{sha}/check-runs?per_page=100&filter=all&app_id={}", repo.app_id());
    let mut out = BTreeMap::new();
    for _ in 0..10 {
        let (list, next) = repo.page::<CheckRunList>(&url).await?;
        for run in list.check_runs {
            if let Some(ext) = run.external_id.filter(|ext| ext.starts_with("gatehouse:")) {
                out.insert(ext, (run.id, run.status, run.output.annotations_count as usize));
            }
        }
        match next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(out)
}

/// Creates (or finds) the job's check runs on `sha`, in progress. A run of
/// this job (it ran before and crashed) is reused; so is another job's run
/// of the same check still in progress on this head (that job was
/// superseded or gave up: one PR is evaluated by one worker at a time).
/// With `once_per_head`, a check another job already completed on this head
/// gets no new run: a push makes several events (`pull_request.synchronize`,
/// `check_suite.requested`) and the head is evaluated once.
pub(crate) async fn start(
    repo: &RepoClient,
    sha: &str,
    job: i64,
    names: &[String],
    once_per_head: bool,
) -> Result<CheckRuns, ApiError> {
    let mut known = existing(repo, sha).await?;
    let own = format!("gatehouse:{job}:");
    let mut runs = CheckRuns::default();
    for name in names {
        let ext = external_id(job, name);
        if let Some((id, status, annotations)) = known.get(&ext) {
            runs.ids.insert(name.clone(), *id);
            if status == "completed" {
                runs.completed.insert(name.clone(), *annotations);
            }
            continue;
        }
        let others: Vec<&Listed> = known
            .iter()
            .filter(|(k, _)| !k.starts_with(&own) && check_name(k) == Some(name.as_str()))
            .map(|(_, listed)| listed)
            .collect();
        if let Some((id, _, _)) = others.iter().find(|(_, status, _)| status != "completed") {
            runs.ids.insert(name.clone(), *id);
            continue;
        }
        if once_per_head && !others.is_empty() {
            continue;
        }
        let body = json!({ "name": name, "head_sha": sha, "external_id": ext, "status": "in_progress" });
        let mut tries = 0;
        let id = loop {
            tries += 1;
            match repo.send::<CheckRun>(Method::POST, "/check-runs", &body, Call::Create).await {
                Ok(run) => break run.id,
                Err(ApiError::Uncertain { .. }) if tries < 3 => {
                    // It may exist: look before creating again.
                    known = existing(repo, sha).await?;
                    if let Some((id, _, _)) = known.get(&ext) {
                        break *id;
                    }
                }
                Err(err) => return Err(err),
            }
        };
        runs.ids.insert(name.clone(), id);
    }
    Ok(runs)
}

/// Completes `job`'s runs still in progress on `sha` (a head the PR has
/// moved past) as `cancelled`, saying why.
pub(crate) async fn close_stale(repo: &RepoClient, sha: &str, job: i64) -> Result<usize, ApiError> {
    let own = format!("gatehouse:{job}:");
    let mut closed = 0;
    for (ext, (id, status, _)) in existing(repo, sha).await? {
        if !ext.starts_with(&own) || status == "completed" {
            continue;
        }
        let output = CheckOutput {
            name: check_name(&ext).unwrap_or("").to_string(),
            conclusion: "cancelled",
            title: "A newer commit replaced this one".into(),
            summary: "The pull request moved on to a newer commit before this one was evaluated; gatehouse \
                      evaluates the newest commit."
                .into(),
        };
        complete_plain(repo, id, &output).await?;
        closed += 1;
    }
    Ok(closed)
}

/// Ends runs a job leaves behind when it fails for good: each run not yet
/// completed gets `failure` with what went wrong and how to retry, so a
/// required check never waits forever.
pub(crate) async fn conclude_failed(
    repo: &RepoClient,
    runs: &BTreeMap<String, u64>,
    error: &str,
) -> Result<usize, ApiError> {
    let mut concluded = 0;
    for (name, id) in runs {
        let run: CheckRun = repo.get(&format!("/check-runs/{id}")).await?;
        if run.status == "completed" {
            continue;
        }
        complete_plain(repo, *id, &super::summary::job_failed(name, error)).await?;
        concluded += 1;
    }
    Ok(concluded)
}

/// Completes a run with an output and no annotations.
pub(crate) async fn complete_plain(repo: &RepoClient, id: u64, output: &CheckOutput) -> Result<(), ApiError> {
    let body = json!({
        "status": "completed",
        "conclusion": output.conclusion,
        "output": {
            "title": limits::chars(&output.title, limits::CHECK_TITLE_CHARS),
            "summary": limits::chars(&output.summary, limits::OUTPUT_CHARS),
        },
        "actions": [rerun_action()],
    });
    repo.send::<IgnoredAny>(Method::PATCH, &format!("/check-runs/{id}"), &body, Call::Idempotent).await?;
    Ok(())
}

/// The button GitHub shows on a run; it comes back as `check_run.requested_action`.
fn rerun_action() -> Value {
    json!({ "label": "Re-run", "description": "Evaluate this pull request again", "identifier": RERUN_ACTION })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "failure",
        Severity::Warning => "warning",
        Severity::Notice => "notice",
    }
}

/// A finding as a GitHub annotation.
pub(crate) fn annotation(f: &Finding) -> Value {
    let message = match &f.help {
        Some(help) => format!("{}\n\nHow to fix: {help}", f.message),
        None => f.message.clone(),
    };
    let mut a = json!({
        "path": f.path,
        "start_line": f.span.line.max(1),
        "end_line": f.span.end_line.max(f.span.line).max(1),
        "annotation_level": level(f.severity),
        "title": limits::chars(f.rule, limits::ANNOTATION_TITLE_CHARS),
        "message": limits::bytes(&message, limits::ANNOTATION_BYTES),
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
pub(crate) async fn finish(
    repo: &RepoClient,
    id: u64,
    output: &CheckOutput,
    findings: &[&Finding],
    delivered: Option<usize>,
) -> Result<(), ApiError> {
    let path = format!("/check-runs/{id}");
    let mut summary = output.summary.clone();
    if findings.len() > MAX_ANNOTATIONS {
        summary = super::summary::fit(format!(
            "{summary}\n\n**{} annotations were dropped**: only the first {MAX_ANNOTATIONS} are shown. \
             Run `gatehouse check` locally for the full list.\n",
            findings.len() - MAX_ANNOTATIONS
        ));
    }
    let summary = limits::chars(&summary, limits::OUTPUT_CHARS).into_owned();
    let title = limits::chars(&output.title, limits::CHECK_TITLE_CHARS);
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
                    "output": { "title": title, "summary": summary, "annotations": first },
                    "actions": [rerun_action()],
                });
                (body, first.len())
            }
            Some(done) if done < annotations.len() => {
                let batch = &annotations[done..(done + ANNOTATIONS_PER_REQUEST).min(annotations.len())];
                (json!({ "output": { "title": title, "summary": summary, "annotations": batch } }), batch.len())
            }
            Some(_) => break,
        };
        // Every update appends its annotations: one that may have landed is
        // looked up on the run before it is sent again.
        match repo.send::<IgnoredAny>(Method::PATCH, &path, &body, Call::Create).await {
            Ok(_) => sent = Some(sent.unwrap_or(0) + count),
            Err(ApiError::Uncertain { .. }) if uncertain < 5 => {
                uncertain += 1;
                let run: CheckRun = repo.get(&path).await?;
                if run.status == "completed" {
                    sent = Some((run.output.annotations_count as usize).min(annotations.len()));
                }
            }
            Err(err) => return Err(err),
        }
    }
    Ok(())
}
