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
//! A push to a repository whose file other repositories' configs extend (an
//! organisation's `.github`) evaluates again the open pull requests of
//! those repositories that read a version of it the push changed, as
//! background work within the installation's write budget.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use super::worker::Ctx;
use crate::config::inherit::Source;
use crate::github::{HeadSha, RepoClient, RepoName};
use crate::source::contents::{self, Wanted};
use crate::source::default_branch;
use crate::source::dependencies::digest;
use crate::source::pull_request as source;
use crate::store::{Dependency, Job, PrNumber};

/// Resolves a push job into jobs of the open pull requests whose
/// dependencies changed at the pushed tip; returns their numbers.
pub(super) async fn recheck(ctx: &Ctx, worker: &str, job: &Job, repo: &RepoClient, tip: &HeadSha) -> Result<Vec<u64>> {
    let tip = &tip.0;
    ctx.reads.policy.pushed(&job.repo);
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
    // A config another repository's config extends is compared where it
    // is pushed (below), not here.
    // Nor a team the review gate read (`@org/slug`): its events say when it changes.
    let own = |d: &&Dependency| Source::of_dependency(&d.path).is_none() && !d.path.starts_with('@');
    let paths: BTreeSet<&str> =
        tracked.iter().flat_map(|e| e.documents.iter().filter(own).map(|d| d.path.as_str())).collect();
    let at_tip = read_at(ctx, repo, tip, &paths, config.limits.max_file_bytes).await?;
    let mut changed: Vec<u64> = tracked
        .iter()
        .filter(|entry| entry.documents.iter().filter(own).any(|d| at_tip.get(d.path.as_str()) != Some(&d.digest)))
        .map(|entry| entry.pr)
        .collect();
    changed.sort_by_key(|pr| rank(&open, *pr));
    let prs: Vec<PrNumber> = changed.iter().copied().map(PrNumber).collect();
    let elsewhere = inheriting(ctx, job, repo, tip).await?;
    if ctx.store.resolve_across(job, worker, &prs, &elsewhere).await? {
        ctx.wake.notify_waiters();
    }
    tracing::info!(
        job = job.id,
        %tip,
        tracked = tracked.len(),
        ?changed,
        ?elsewhere,
        "push resolved to the pull requests it affects"
    );
    Ok(changed)
}

/// The open pull requests of the installation's other repositories whose
/// config extends a file of `repo` that changed at `tip`: their entries in
/// the dependency index name it (`acme/.github:gatehouse.yml`) with the
/// digest their evaluation read. Closed pull requests' entries are dropped.
async fn inheriting(ctx: &Ctx, job: &Job, repo: &RepoClient, tip: &str) -> Result<Vec<(String, PrNumber)>> {
    let entries = ctx.store.dependents_elsewhere(&job.repo).await?;
    let read_here = |d: &Dependency| {
        Source::of_dependency(&d.path)
            .filter(|s| s.repo.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(&job.repo)))
            .map(|s| s.path)
    };
    let files: BTreeSet<String> = entries.iter().flat_map(|(_, e)| e.documents.iter().filter_map(read_here)).collect();
    let files: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    let at_tip = read_at(ctx, repo, tip, &files, u64::MAX).await?;
    let mut open: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut out = Vec::new();
    for (other, entry) in entries {
        let moved =
            entry.documents.iter().any(|d| read_here(d).is_some_and(|p| at_tip.get(p.as_str()) != Some(&d.digest)));
        if !moved {
            continue;
        }
        if !open.contains_key(&other) {
            let Some(name) = RepoName::parse(&other) else { continue };
            let client = RepoClient { repo: name, ..repo.clone() };
            open.insert(other.clone(), source::open_pulls_into_default(&client).await?);
        }
        if open.get(&other).is_some_and(|prs| prs.contains(&entry.pr)) {
            out.push((other, PrNumber(entry.pr)));
        } else {
            ctx.store.forget_dependencies(&other, entry.pr).await?;
        }
    }
    // Every repository's ready pull requests before any draft.
    out.sort_by_key(|(other, pr)| open.get(other).map_or(usize::MAX, |prs| rank(prs, pr.0)));
    Ok(out)
}

/// Where `pr` stands among `open` (ready pull requests first): the jobs are
/// queued in this order, and taken in it.
fn rank(open: &[u64], pr: u64) -> usize {
    open.iter().position(|n| *n == pr).unwrap_or(usize::MAX)
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
