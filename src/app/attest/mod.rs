//! A merged pull request (`pull_request.closed` with `merged: true`): when
//! gatehouse's checks and review gate were green on its head, its gate
//! attestation is signed and written as the output of the check run
//! `gatehouse/attestation` on the merge commit, and kept in the store for
//! `GET /attestations/…` (`routes`); when it merged past a red check, no
//! attestation, one comment on the pull request and a line on the
//! dashboard. What is on GitHub already (the run, the comment) is not
//! written again, so a redelivered event or a retried job writes once.

pub(crate) mod routes;

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use base64::Engine;
use reqwest::Method;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use super::worker::Ctx;
use crate::attest::{ATTESTATION_CHECK, Decision, Document, Merged, Red, Run, Statement, decide};
use crate::attestation::SigningKey;
use crate::config::CONFIG_PATH;
use crate::github::check_runs::{self, external_id};
use crate::github::{ApiError, Call, HeadSha, RepoClient, comments};
use crate::plan;
use crate::source::evaluation::{self, Change};
use crate::source::pull_request::tree;
use crate::store::{BypassedMerge, Job, PrNumber};

/// How the App's bypass comment is known (an HTML comment GitHub does not show).
const BYPASS_MARK: &str = "<!-- gatehouse:bypass -->";

/// GitHub's limit on a check run's `output.text`, in characters.
const TEXT_CHARS: usize = 65_535;

/// Attests PR `number`, merged as `merge`, or says it bypassed the gate.
pub(in crate::app) async fn merged(
    ctx: &Ctx,
    job: &Job,
    repo: &RepoClient,
    number: PrNumber,
    merge: &HeadSha,
) -> Result<()> {
    let names = plan::check_names();
    let finished = BTreeSet::new();
    let checks = evaluation::Checks { names: &names, once_per_head: false, finished: &finished };
    let known = evaluation::Known { made: None, previous: None };
    let ask = evaluation::Ask { number: number.0, begun: &[], checks, known, with_review: false, fresh_teams: false };
    let (seen, _unwatched) = oneshot::channel();
    let reading = evaluation::read(repo, ask, &ctx.reads, seen).await?;
    let read = match reading.change {
        Some(Change::Read(read)) => read,
        Some(Change::TooManyFiles(files)) => bail!("{number} changes {files} files, more than GitHub lists"),
        Some(Change::Unreadable(err)) => return Err(err.into()),
        None => bail!("{number} was not read"),
    };
    let runs: Vec<Run> = names
        .iter()
        .filter_map(|name| {
            let listed = reading.head.shown.newest(name)?;
            Some(Run { name: name.clone(), status: listed.status.clone(), conclusion: listed.conclusion.clone() })
        })
        .collect();
    let head_tree = tree(repo, &read.head, &ctx.reads).await?;
    let mut documents = Vec::new();
    for file in read.files.iter().filter(|f| read.changes.config.governs(&f.path)) {
        // A document the pull request deleted is not at the head.
        let Some(blob) = head_tree.blob(&file.path) else { continue };
        let sha256 = blob_sha256(repo, blob).await?;
        documents.push(Document { path: file.path.clone(), git_blob: blob.to_string(), sha256 });
    }
    let base_tree = tree(repo, &read.base_sha, &ctx.reads).await?;
    let config = base_tree.blob(CONFIG_PATH).map(|blob| Document {
        path: CONFIG_PATH.to_string(),
        git_blob: blob.to_string(),
        sha256: None,
    });
    let name = repo.repo.full();
    let merged = Merged { repository: &name, merge: &merge.0, runs: &runs, documents, config, read: &read };
    match decide(&merged) {
        Decision::NothingGoverned => {
            tracing::info!(job = job.id, pr = number.0, "merged without changing a governed document");
            Ok(())
        }
        Decision::Attest(statement) => {
            let Some(key) = &ctx.attestation.key else {
                tracing::info!(job = job.id, pr = number.0, "no attestation key is configured: nothing signed");
                return Ok(());
            };
            attest(ctx, job, repo, number, merge, key, &statement).await
        }
        Decision::Bypassed(red) => {
            bypassed(ctx, job, repo, number, merge, &red).await?;
            ctx.store.note_dashboard(job, read.changes.config.dashboard.enabled).await
        }
    }
}

/// `GET /repos/{o}/{r}/git/blobs/{sha}` (`blob`): the content, base64.
#[derive(Deserialize)]
struct GitBlob {
    content: String,
    encoding: String,
}

/// The SHA-256 of blob `sha`'s bytes, when GitHub answers them in base64.
async fn blob_sha256(repo: &RepoClient, sha: &str) -> Result<Option<String>, ApiError> {
    let blob: GitBlob = repo.get(&format!("/git/blobs/{sha}")).await?;
    if blob.encoding != "base64" {
        return Ok(None);
    }
    let packed: String = blob.content.split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD.decode(packed).ok();
    Ok(bytes.map(|bytes| hex::encode(Sha256::digest(bytes))))
}

async fn attest(
    ctx: &Ctx,
    job: &Job,
    repo: &RepoClient,
    number: PrNumber,
    merge: &HeadSha,
    key: &SigningKey,
    statement: &Statement,
) -> Result<()> {
    let envelope = serde_json::to_string_pretty(&key.sign(statement)).context("an envelope serialises")?;
    let shown = check_runs::shown(repo, &merge.0).await?;
    if shown.newest(ATTESTATION_CHECK).is_none() {
        let body = json!({
            "name": ATTESTATION_CHECK,
            "head_sha": merge.0,
            "external_id": external_id(job.id, ATTESTATION_CHECK),
            "status": "completed",
            "conclusion": "success",
            "output": {
                "title": title(statement),
                "summary": summary(statement, key.keyid()),
                "text": if envelope.chars().count() <= TEXT_CHARS { envelope.clone() } else { too_long() },
            },
        });
        let _: IgnoredAny = repo.send(Method::POST, "/check-runs", &body, Call::Create).await?;
    }
    let subjects: Vec<(String, String)> =
        statement.subject.iter().map(|s| (s.name.clone(), s.git_blob().unwrap_or_default().to_string())).collect();
    ctx.store.record_attestation(&repo.repo.full(), number.0, &merge.0, &envelope, &subjects).await?;
    tracing::info!(job = job.id, pr = number.0, merge = %merge, documents = subjects.len(), "gate attested");
    Ok(())
}

fn title(statement: &Statement) -> String {
    let n = statement.subject.len();
    format!("Gate attested: {n} governed document{}", if n == 1 { "" } else { "s" })
}

fn summary(statement: &Statement, keyid: &str) -> String {
    let pr = &statement.predicate.pull_request;
    let mut out = format!(
        "#{} merged as `{}` with every gatehouse check green on its head `{}`. This run's text is an in-toto \
         Statement v1 in a DSSE envelope signed with the Ed25519 key `{keyid}`; `gatehouse verify` checks a \
         checkout's documents against it.\n\n| Document | git blob |\n|---|---|\n",
        pr.number,
        short(&pr.merge),
        short(&pr.head)
    );
    for subject in &statement.subject {
        out.push_str(&format!("| `{}` | `{}` |\n", subject.name, subject.git_blob().unwrap_or_default()));
    }
    let approvals: Vec<String> = statement.predicate.approvals.iter().map(|a| format!("`{}`", a.login)).collect();
    if !approvals.is_empty() {
        out.push_str(&format!("\nApproved by {}.\n", approvals.join(", ")));
    }
    out
}

fn too_long() -> String {
    "The envelope is longer than a check run's text may be: `GET /attestations/{owner}/{repo}` on the App \
     serves it."
        .to_string()
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

/// One comment saying the merge bypassed the gate, unless it is there.
async fn bypassed(
    ctx: &Ctx,
    job: &Job,
    repo: &RepoClient,
    number: PrNumber,
    merge: &HeadSha,
    red: &[Red],
) -> Result<()> {
    let listed: Vec<String> = red.iter().map(|r| format!("`{}` ({})", r.name, r.shown)).collect();
    let red_text = listed.join(", ");
    let posted = comments::bodies(repo, number.0).await?;
    if !posted.iter().any(|body| body.contains(BYPASS_MARK)) {
        let body = format!(
            "{BYPASS_MARK}\nThis pull request merged as `{}` while gatehouse's gate was not green on its head: \
             {red_text}. gatehouse wrote no gate attestation for it, so `gatehouse verify` answers its documents \
             `unattested` until a pull request that passes the gate changes them.",
            short(&merge.0)
        );
        comments::post(repo, number.0, &body).await?;
    }
    let merge_record = BypassedMerge { pr: number.0, merge_sha: merge.0.clone(), red: red_text };
    ctx.store.record_bypass(&repo.repo.full(), &merge_record).await?;
    tracing::info!(job = job.id, pr = number.0, "merged past the gate: no attestation");
    Ok(())
}
