//! A team changed (`membership`, `team`): its members are read afresh, and
//! the open pull requests whose review gate read it (their entries in the
//! dependency index name `@org/slug`) are evaluated again.

use std::collections::BTreeMap;

use anyhow::Result;

use super::worker::{Ctx, Outcome};
use crate::github::{RepoClient, RepoName};
use crate::owners::TeamRef;
use crate::source::pull_request as source;
use crate::store::{Job, PrNumber};

pub(super) async fn recheck(ctx: &Ctx, worker: &str, job: &Job, team: &str) -> Result<Outcome> {
    if let Some(team) = TeamRef::parse(team) {
        ctx.reads.teams.forget(job.installation, &team);
    }
    let mut open: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut prs = Vec::new();
    for (repo, entry) in ctx.store.dependents_naming(team).await? {
        let Some(name) = RepoName::parse(&repo) else { continue };
        if !open.contains_key(&repo) {
            let client = RepoClient::new(ctx.github.clone(), job.installation, name).with_urgency(job.urgency());
            open.insert(repo.clone(), source::open_pulls(&client).await?);
        }
        if open.get(&repo).is_some_and(|numbers| numbers.contains(&entry.pr)) {
            prs.push((repo, PrNumber(entry.pr)));
        } else {
            ctx.store.forget_dependencies(&repo, entry.pr).await?;
        }
    }
    if ctx.store.resolve_across(job, worker, &[], &prs).await? {
        tracing::info!(job = job.id, team, prs = prs.len(), "a team changed: its pull requests evaluated again");
        ctx.wake.notify_waiters();
    }
    Ok(Outcome::Resolved)
}
