//! Re-checks that follow dependencies. Each evaluation records in the
//! store's dependency index what it read from its base branch's tip without
//! the pull request touching it (`source::dependencies`), with a digest of
//! each document. A push to the default branch (`push` event) reads those
//! documents at the new tip and evaluates again exactly the open pull
//! requests into it whose documents changed: a brief citing a superseded
//! ADR, a PR citing an edited brief, every PR when the config changed. Each
//! evaluation's summaries name what changed on the base since the one
//! before. The push also asks for the dashboard issue when the config at
//! the new tip enables it: it lists what the default branch's documents say.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use super::worker::Ctx;
use crate::github::{HeadSha, RepoClient};
use crate::source::contents::{self, Wanted};
use crate::source::default_branch;
use crate::source::dependencies::digest;
use crate::source::pull_request as source;
use crate::store::{Job, PrNumber};

/// Resolves a push job into jobs of the open pull requests whose
/// dependencies changed at the pushed tip; returns their numbers.
pub(super) async fn recheck(ctx: &Ctx, worker: &str, job: &Job, repo: &RepoClient, tip: &HeadSha) -> Result<Vec<u64>> {
    let tip = &tip.0;
    let open = source::open_pulls_into_default(repo).await?;
    let mut tracked = Vec::new();
    for entry in ctx.store.dependents(&job.repo).await? {
        if open.contains(&entry.pr) {
            tracked.push(entry);
        } else {
            ctx.store.forget_dependencies(&job.repo, entry.pr).await?;
        }
    }
    let config = default_branch::config_at(repo, tip, &ctx.reads).await?;
    // The default branch's documents may have changed, and its dashboard
    // lists what they say.
    ctx.store.note_dashboard(job, config.dashboard.enabled).await?;
    let paths: BTreeSet<&str> = tracked.iter().flat_map(|e| e.documents.iter().map(|d| d.path.as_str())).collect();
    let at_tip = read_at(ctx, repo, tip, &paths, config.limits.max_file_bytes).await?;
    let changed: Vec<u64> = tracked
        .iter()
        .filter(|entry| entry.documents.iter().any(|d| at_tip.get(d.path.as_str()) != Some(&d.digest)))
        .map(|entry| entry.pr)
        .collect();
    let prs: Vec<PrNumber> = changed.iter().copied().map(PrNumber).collect();
    if ctx.store.resolve(job, worker, &prs).await? {
        ctx.wake.notify_waiters();
    }
    tracing::info!(job = job.id, %tip, tracked = tracked.len(), ?changed, "push resolved to the pull requests it affects");
    Ok(changed)
}

/// The digests of `paths` at `commit`, read with `limit`, the size limit of
/// the config there (as the evaluations on that base will read them, so
/// they find them cached).
async fn read_at<'p>(
    ctx: &Ctx,
    repo: &RepoClient,
    commit: &str,
    paths: &BTreeSet<&'p str>,
    limit: u64,
) -> Result<BTreeMap<&'p str, Option<String>>> {
    if paths.is_empty() {
        return Ok(BTreeMap::new());
    }
    let wanted: Vec<Wanted> = paths.iter().map(|path| Wanted { commit, path, blob: None }).collect();
    let blobs = contents::read(repo, &wanted, limit, &ctx.reads).await?;
    Ok(paths.iter().copied().zip(blobs.into_iter().map(|b| b.map(|b| digest(&b.content)))).collect())
}
