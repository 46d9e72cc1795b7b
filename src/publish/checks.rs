//! Check runs. A job reads what GitHub shows on its head ([`Shown`]) and
//! decides, and writes only the difference: a check whose conclusion, title,
//! summary and annotations are what the newest run of that name already
//! shows is not written again (the run's summary ends with a digest of
//! them, [`digest`]); a new run is created with its conclusion in one
//! request. A run is shown in progress only when the evaluation is slow
//! ([`start`]). A check run's `external_id` names its job, so a create that
//! may have succeeded (timeout, 5xx) is looked up before it is repeated, and
//! a job run again after a crash reuses its runs instead of adding more.

use std::collections::BTreeMap;

use reqwest::Method;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::github::answers::CheckRun;
use crate::github::check_runs::{DIGEST_MARK, Listed, Shown, check_name, external_id, shown};
use crate::github::{ApiError, Call, RepoClient};
use crate::model::{Finding, Severity};
use crate::plan::limits;
use crate::plan::summary::{self, CheckOutput};

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

/// Shows the job's checks in progress on `sha` (an evaluation taking long
/// enough for a person to see it): a run of this job (it ran before and
/// crashed) is reused; so is another job's run of the same check still in
/// progress on this head (that job was superseded or gave up: one PR is
/// evaluated by one worker at a time).
pub(crate) async fn start(
    repo: &RepoClient,
    sha: &str,
    job: i64,
    names: &[String],
    shown: &Shown,
) -> Result<CheckRuns, ApiError> {
    let mut runs = CheckRuns::default();
    for name in names {
        if let Planned::Complete { id, delivered } = plan(shown, &CheckRuns::default(), job, name, None, false) {
            runs.ids.insert(name.clone(), id);
            if let Some(n) = delivered {
                runs.completed.insert(name.clone(), n);
            }
            continue;
        }
        let ext = external_id(job, name);
        let body = json!({ "name": name, "head_sha": sha, "external_id": ext, "status": "in_progress" });
        let id = create(repo, sha, &ext, &body).await?.0;
        runs.ids.insert(name.clone(), id);
    }
    Ok(runs)
}

/// What to write for one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Planned {
    /// GitHub shows it already.
    Skip,
    /// Complete run `id`; `delivered`: it is completed already with that
    /// many annotations (this job ran again), so only the rest are sent.
    Complete { id: u64, delivered: Option<usize> },
    /// Create a run with its conclusion.
    Create,
}

/// Decides what to write for check `name` of `job`, whose output digests to
/// `digest` (`None`: any run will do), given what GitHub shows and the runs
/// the job started. With `once_per_head`, a check already completed on this
/// head is not evaluated again (a push makes several events).
pub(crate) fn plan(
    shown: &Shown,
    started: &CheckRuns,
    job: i64,
    name: &str,
    digest: Option<&str>,
    once_per_head: bool,
) -> Planned {
    if let Some(id) = started.ids.get(name) {
        return Planned::Complete { id: *id, delivered: started.completed.get(name).copied() };
    }
    if let Some(own) = shown.runs.get(&external_id(job, name)) {
        let delivered = (own.status == "completed").then_some(own.annotations);
        return Planned::Complete { id: own.id, delivered };
    }
    let of_name: Vec<&Listed> =
        shown.runs.iter().filter(|(ext, _)| check_name(ext) == Some(name)).map(|(_, l)| l).collect();
    if let Some(open) = of_name.iter().find(|l| l.status != "completed") {
        return Planned::Complete { id: open.id, delivered: None };
    }
    let newest = of_name.iter().max_by_key(|l| l.id);
    match newest {
        Some(_) if once_per_head => Planned::Skip,
        Some(l) if digest.is_some() && l.digest.as_deref() == digest => Planned::Skip,
        _ => Planned::Create,
    }
}

/// The digest of what a run shows: conclusion, title, summary and
/// annotations, before any note on the base branch is added.
pub(crate) fn digest(output: &CheckOutput, findings: &[&Finding]) -> String {
    let mut hash = Sha256::new();
    for part in [output.conclusion, &output.title, &output.summary] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    for f in findings.iter().take(MAX_ANNOTATIONS) {
        hash.update(annotation(f).to_string().as_bytes());
        hash.update([0]);
    }
    hex::encode(&hash.finalize()[..12])
}

/// Writes check `output` as planned.
pub(crate) async fn publish(
    repo: &RepoClient,
    sha: &str,
    job: i64,
    planned: Planned,
    output: &CheckOutput,
    findings: &[&Finding],
    digest: &str,
) -> Result<(), ApiError> {
    match planned {
        Planned::Skip => Ok(()),
        Planned::Complete { id, delivered } => finish(repo, id, output, findings, delivered, digest).await,
        Planned::Create => {
            let (title, summary, annotations) = parts(output, findings, digest);
            let mut body = completed_body(output.conclusion, &title, &summary, &annotations);
            let ext = external_id(job, &output.name);
            body["name"] = json!(output.name);
            body["head_sha"] = json!(sha);
            body["external_id"] = json!(ext);
            let (id, annotations) = create(repo, sha, &ext, &body).await?;
            if findings.len().min(MAX_ANNOTATIONS) > annotations {
                finish(repo, id, output, findings, Some(annotations), digest).await?;
            }
            Ok(())
        }
    }
}

/// Creates a run (`body` names it and its head); when GitHub's answer is
/// lost, looks for it before creating again. Returns its id and the
/// annotations it carries.
async fn create(repo: &RepoClient, sha: &str, ext: &str, body: &Value) -> Result<(u64, usize), ApiError> {
    let mut tries = 0;
    loop {
        tries += 1;
        match repo.send::<CheckRun>(Method::POST, "/check-runs", body, Call::Create).await {
            Ok(run) => return Ok((run.id, run.output.annotations_count as usize)),
            Err(ApiError::Uncertain { .. }) if tries < 3 => {
                // It may exist: look before creating again.
                if let Some(run) = shown(repo, sha).await?.runs.get(ext) {
                    return Ok((run.id, run.annotations));
                }
            }
            Err(err) => return Err(err),
        }
    }
}

/// A run's completed output: the summary with the dropped-annotations note
/// and the digest mark, and the first request's annotations.
fn completed_body(conclusion: &str, title: &str, summary: &str, annotations: &[Value]) -> Value {
    let batch = &annotations[..annotations.len().min(ANNOTATIONS_PER_REQUEST)];
    json!({
        "status": "completed",
        "conclusion": conclusion,
        "output": { "title": title, "summary": summary, "annotations": batch },
        "actions": [rerun_action()],
    })
}

fn parts(output: &CheckOutput, findings: &[&Finding], digest: &str) -> (String, String, Vec<Value>) {
    let mut summary = output.summary.clone();
    if findings.len() > MAX_ANNOTATIONS {
        summary = summary::fit(format!(
            "{summary}\n\n**{} annotations were dropped**: only the first {MAX_ANNOTATIONS} are shown. \
             Run `gatehouse check` locally for the full list.\n",
            findings.len() - MAX_ANNOTATIONS
        ));
    }
    let mark = format!("\n{DIGEST_MARK}{digest} -->\n");
    let mut summary = limits::chars(&summary, limits::OUTPUT_CHARS - mark.len()).into_owned();
    summary.push_str(&mark);
    let title = limits::chars(&output.title, limits::CHECK_TITLE_CHARS).into_owned();
    let annotations = findings.iter().take(MAX_ANNOTATIONS).map(|f| annotation(f)).collect();
    (title, summary, annotations)
}

/// Completes `job`'s runs that `shown` (on a head the PR has moved past)
/// has still in progress as `cancelled`, saying why.
pub(crate) async fn close_stale(repo: &RepoClient, shown: &Shown, job: i64) -> Result<usize, ApiError> {
    let own = format!("gatehouse:{job}:");
    let mut closed = 0;
    for (ext, Listed { id, status, .. }) in &shown.runs {
        if !ext.starts_with(&own) || status == "completed" {
            continue;
        }
        let output = CheckOutput {
            name: check_name(ext).unwrap_or("").to_string(),
            conclusion: "cancelled",
            title: "A newer commit replaced this one".into(),
            summary: "The pull request moved on to a newer commit before this one was evaluated; gatehouse \
                      evaluates the newest commit."
                .into(),
        };
        complete_plain(repo, *id, &output).await?;
        closed += 1;
    }
    Ok(closed)
}

/// Ends what a job leaves behind on `sha` when it fails for good: each
/// check of `names` that GitHub shows in progress, or not at all, gets
/// `failure` with what went wrong and how to retry, so a required check
/// never waits forever. Returns how many runs were written.
pub(crate) async fn conclude_failed(
    repo: &RepoClient,
    sha: &str,
    job: i64,
    names: &[String],
    error: &str,
) -> Result<usize, ApiError> {
    let shown = shown(repo, sha).await?;
    let mut concluded = 0;
    for name in names {
        let output = summary::job_failed(name, error);
        let own = shown.runs.get(&external_id(job, name));
        let open = shown.runs.iter().find(|(ext, l)| check_name(ext) == Some(name.as_str()) && l.status != "completed");
        match (own, open) {
            (Some(l), _) if l.status == "completed" => continue,
            (Some(l), _) | (None, Some((_, l))) => complete_plain(repo, l.id, &output).await?,
            (None, None) if shown.newest(name).is_some() => continue,
            (None, None) => {
                let digest = digest(&output, &[]);
                publish(repo, sha, job, Planned::Create, &output, &[], &digest).await?;
            }
        }
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
    digest: &str,
) -> Result<(), ApiError> {
    let path = format!("/check-runs/{id}");
    let (title, summary, annotations) = parts(output, findings, digest);
    // `None` until the run is completed; then how many annotations it carries.
    let mut sent = delivered.map(|n| n.min(annotations.len()));
    let mut uncertain = 0;
    loop {
        let (body, count) = match sent {
            None => (
                completed_body(output.conclusion, &title, &summary, &annotations),
                annotations.len().min(ANNOTATIONS_PER_REQUEST),
            ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::check_runs::digest_in;

    const JOB: i64 = 7;
    const BRIEFS: &str = "gatehouse/briefs";

    fn listed(id: u64, status: &str, digest: Option<&str>) -> Listed {
        Listed { id, status: status.into(), conclusion: None, annotations: 3, digest: digest.map(str::to_string) }
    }

    fn shown(runs: &[(i64, u64, &str, Option<&str>)]) -> Shown {
        let runs =
            runs.iter().map(|(job, id, status, digest)| (external_id(*job, BRIEFS), listed(*id, status, *digest)));
        Shown { runs: runs.collect() }
    }

    fn plan_of(shown: &Shown, digest: Option<&str>, once_per_head: bool) -> Planned {
        plan(shown, &CheckRuns::default(), JOB, BRIEFS, digest, once_per_head)
    }

    #[test]
    fn what_github_shows_already_is_not_written_again() {
        let earlier = shown(&[(1, 10, "completed", Some("aaa"))]);
        assert_eq!(plan_of(&earlier, Some("aaa"), false), Planned::Skip);
        assert_eq!(plan_of(&earlier, Some("bbb"), false), Planned::Create, "a changed result is written");
        assert_eq!(plan_of(&earlier, None, false), Planned::Create, "a re-run a person asked for is written");
        assert_eq!(plan_of(&Shown::default(), Some("aaa"), false), Planned::Create);
    }

    #[test]
    fn the_newest_run_of_a_name_is_what_github_shows() {
        let runs = shown(&[(1, 10, "completed", Some("aaa")), (2, 20, "completed", Some("bbb"))]);
        assert_eq!(plan_of(&runs, Some("bbb"), false), Planned::Skip);
        assert_eq!(plan_of(&runs, Some("aaa"), false), Planned::Create, "an older run with that result is hidden");
    }

    #[test]
    fn a_head_evaluated_once_is_not_written_again_whatever_the_result() {
        let earlier = shown(&[(1, 10, "completed", Some("aaa"))]);
        assert_eq!(plan_of(&earlier, Some("bbb"), true), Planned::Skip);
    }

    #[test]
    fn runs_in_progress_and_the_jobs_own_are_completed_not_duplicated() {
        let open = shown(&[(1, 10, "in_progress", None)]);
        assert_eq!(plan_of(&open, Some("aaa"), true), Planned::Complete { id: 10, delivered: None });
        let own = shown(&[(JOB, 11, "completed", Some("aaa"))]);
        assert_eq!(plan_of(&own, Some("bbb"), false), Planned::Complete { id: 11, delivered: Some(3) });
        let mut started = CheckRuns::default();
        started.ids.insert(BRIEFS.into(), 12);
        assert_eq!(
            plan(&Shown::default(), &started, JOB, BRIEFS, None, false),
            Planned::Complete { id: 12, delivered: None }
        );
    }

    #[test]
    fn the_digest_is_read_back_from_the_summary_written() {
        let output = CheckOutput { name: BRIEFS.into(), conclusion: "success", title: "t".into(), summary: "s".into() };
        let digest = digest(&output, &[]);
        let (_, summary, _) = parts(&output, &[], &digest);
        assert_eq!(digest_in(&summary).as_deref(), Some(digest.as_str()));
        let other = CheckOutput { conclusion: "failure", ..output.clone() };
        assert_ne!(super::digest(&other, &[]), digest, "the conclusion is part of it");
    }
}
