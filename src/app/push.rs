//! Re-checks that follow dependencies. Each evaluation records in the
//! store's dependency index what it read from its base branch's tip without
//! the pull request touching it (`source::dependencies`), with a digest of
//! each document. A push to the default branch (`push` event) reads those
//! documents at the new tip and evaluates again exactly the open pull
//! requests into it whose documents changed: a brief citing a superseded
//! ADR, a PR citing an edited brief, every PR when the config changed. Each
//! evaluation's summaries name what changed on the base since the one
//! before.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use super::worker::Ctx;
use crate::config::CONFIG_PATH;
use crate::github::{HeadSha, RepoClient};
use crate::model::FileContent;
use crate::source::contents::{self, Wanted};
use crate::source::dependencies::{AtBase, digest};
use crate::source::pull_request as source;
use crate::store::{Dependencies, Dependency, Job, PrNumber};

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
    let paths: BTreeSet<&str> = tracked.iter().flat_map(|e| e.documents.iter().map(|d| d.path.as_str())).collect();
    let at_tip = read_at(ctx, repo, tip, &paths).await?;
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

/// The digests of `paths` at `commit`, read with the size limit of the
/// config there (as the evaluations on that base will read them, so they
/// find them cached).
async fn read_at<'p>(
    ctx: &Ctx,
    repo: &RepoClient,
    commit: &str,
    paths: &BTreeSet<&'p str>,
) -> Result<BTreeMap<&'p str, Option<String>>> {
    if paths.is_empty() {
        return Ok(BTreeMap::new());
    }
    let config = [Wanted { commit, path: CONFIG_PATH, blob: None }];
    let config = contents::read(repo, &config, u64::MAX, &ctx.reads).await?.into_iter().next().flatten();
    let limit = match config.map(|blob| blob.content) {
        Some(FileContent::Text(text)) => crate::reads::config(&text).0.limits.max_file_bytes,
        _ => crate::config::Config::default().limits.max_file_bytes,
    };
    let wanted: Vec<Wanted> = paths.iter().map(|path| Wanted { commit, path, blob: None }).collect();
    let blobs = contents::read(repo, &wanted, limit, &ctx.reads).await?;
    Ok(paths.iter().copied().zip(blobs.into_iter().map(|b| b.map(|b| digest(&b.content)))).collect())
}

/// What changed on the base since the pull request's last evaluation, for
/// its summaries; `None` when it was not evaluated before, its base did not
/// move, or nothing it depends on changed.
pub(super) fn base_changes(previous: Option<&Dependencies>, base_sha: &str, current: &[AtBase]) -> Option<String> {
    let previous = previous.filter(|p| p.base_sha != base_sha)?;
    let before: BTreeMap<&str, &Option<String>> =
        previous.documents.iter().map(|d| (d.path.as_str(), &d.digest)).collect();
    let lines: Vec<String> = current
        .iter()
        .filter(|now| before.get(now.dependency.path.as_str()).is_some_and(|was| **was != now.digest))
        .map(|now| {
            let what = if now.digest.is_none() { "deleted" } else { "changed" };
            format!("- `{}` {what} ({})", now.dependency.path, now.dependency.why)
        })
        .collect();
    (!lines.is_empty()).then(|| {
        format!(
            "The base branch moved from `{}` to `{}` since this pull request's last evaluation, changing what it \
             depends on:\n\n{}",
            short(&previous.base_sha),
            short(base_sha),
            lines.join("\n")
        )
    })
}

/// The index entry of an evaluation.
pub(super) fn entry(pr: u64, base_sha: &str, current: &[AtBase]) -> Dependencies {
    let documents = current
        .iter()
        .map(|d| Dependency {
            path: d.dependency.path.clone(),
            why: d.dependency.why.clone(),
            digest: d.digest.clone(),
        })
        .collect();
    Dependencies { pr, base_sha: base_sha.to_string(), documents }
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depends;

    fn at(path: &str, digest: Option<&str>) -> AtBase {
        AtBase {
            dependency: depends::Dependency { path: path.into(), why: "cited by `b.md`".into(), touched: false },
            digest: digest.map(str::to_string),
        }
    }

    #[test]
    fn the_summary_names_what_changed_on_the_base() {
        let before =
            entry(3, "aaaaaaa111", &[at("docs/adr/ADR-095.md", Some("d1")), at("docs/adr/ADR-090.md", Some("e1"))]);
        let now =
            [at("docs/adr/ADR-095.md", Some("d2")), at("docs/adr/ADR-090.md", Some("e1")), at("new.md", Some("f"))];
        let note = base_changes(Some(&before), "bbbbbbb222", &now).unwrap();
        assert_eq!(
            note,
            "The base branch moved from `aaaaaaa` to `bbbbbbb` since this pull request's last evaluation, changing \
             what it depends on:\n\n- `docs/adr/ADR-095.md` changed (cited by `b.md`)"
        );
        assert_eq!(base_changes(Some(&before), "aaaaaaa111", &now), None, "the base did not move");
        assert_eq!(base_changes(None, "bbbbbbb222", &now), None, "not evaluated before");
        let gone = [at("docs/adr/ADR-095.md", None)];
        assert!(base_changes(Some(&before), "c", &gone).unwrap().contains("`docs/adr/ADR-095.md` deleted"));
    }
}
