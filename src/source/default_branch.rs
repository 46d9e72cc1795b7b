//! A repository's default branch, read as a pull request's head is: its
//! tip, the config there, and the documents of the families asked for (one
//! recursive tree, each document from the cache by blob id or in batched
//! GraphQL queries; see `contents`). What it reads is what anyone who can
//! read the repository reads on its default branch. The App's dashboard
//! issue lists what these documents say.

use serde::Deserialize;
use serde_json::json;

use super::Relevance;
use super::contents::{self, ReadCache, Wanted};
use super::pull_request::tree;
use crate::config::inherit::Inheritance;
use crate::config::{CONFIG_PATH, Config};
use crate::github::{ApiError, RepoClient};
use crate::model::{ChangeSet, FileContent, Files, PrInfo, RepoIndex};
use crate::reads::{self, Needs};

/// The default branch's tip and the config there.
#[derive(Debug)]
pub(crate) struct Tip {
    pub sha: String,
    pub config: Config,
    /// The configs `config` extends, as read.
    pub inheritance: Inheritance,
}

#[derive(Deserialize)]
struct Answer {
    repository: Option<Repository>,
}

#[derive(Deserialize)]
struct Repository {
    #[serde(rename = "defaultBranchRef")]
    default_branch_ref: Option<Ref>,
}

#[derive(Deserialize)]
struct Ref {
    target: Option<Target>,
}

#[derive(Deserialize)]
struct Target {
    oid: String,
}

/// The tip of the default branch and the config there, merged with the
/// configs it extends. `None` when the repository has no default branch yet
/// (it is empty) or GitHub does not show it.
pub(crate) async fn tip(repo: &RepoClient, cache: &ReadCache) -> Result<Option<Tip>, ApiError> {
    let Some(sha) = tip_sha(repo).await? else { return Ok(None) };
    let (config, inheritance) = effective_at(repo, &sha, cache).await?;
    Ok(Some(Tip { sha, config, inheritance }))
}

/// The tip of the default branch: `Repository.defaultBranchRef` ("The Ref
/// associated with the repository's default branch") and its `target` in
/// one GraphQL query; `None` for an empty repository.
pub(crate) async fn tip_sha(repo: &RepoClient) -> Result<Option<String>, ApiError> {
    let query = "query DefaultBranch($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { \
                 defaultBranchRef { target { oid } } } }";
    let variables = json!({ "owner": repo.repo.owner, "name": repo.repo.name });
    let answer: Answer = repo.graphql(query, variables).await?;
    Ok(answer.repository.and_then(|r| r.default_branch_ref?.target).map(|t| t.oid))
}

/// The text of the config at `commit`, when there is one that is text.
pub(crate) async fn config_text_at(
    repo: &RepoClient,
    commit: &str,
    cache: &ReadCache,
) -> Result<Option<String>, ApiError> {
    let wanted = [Wanted { commit, path: CONFIG_PATH, blob: None }];
    let config = contents::read(repo, &wanted, u64::MAX, cache).await?.into_iter().next().flatten();
    Ok(match config.map(|blob| blob.content) {
        Some(FileContent::Text(text)) => Some(text.to_string()),
        _ => None,
    })
}

/// The effective config at `commit`: its file merged with the configs it
/// extends; the defaults where there is none or it is not text.
pub(crate) async fn config_at(repo: &RepoClient, commit: &str, cache: &ReadCache) -> Result<Config, ApiError> {
    Ok(effective_at(repo, commit, cache).await?.0)
}

/// [`config_at`], with the configs it extends as read.
async fn effective_at(repo: &RepoClient, commit: &str, cache: &ReadCache) -> Result<(Config, Inheritance), ApiError> {
    let text = config_text_at(repo, commit, cache).await?;
    let inheritance = super::extended::read(repo, text.as_deref(), cache).await?;
    Ok((reads::effective_config(text.as_deref(), &inheritance).config, inheritance))
}

/// The documents of the families in `needs` at `tip`, as a ChangeSet in
/// which every document is new (what `gatehouse check --all` reads, and the
/// family views list whole).
pub(crate) async fn documents(
    repo: &RepoClient,
    tip: &Tip,
    needs: Needs,
    cache: &ReadCache,
) -> Result<ChangeSet, ApiError> {
    let listing = tree(repo, &tip.sha, cache).await?;
    let relevance = Relevance::of(&tip.config, needs);
    let limit = tip.config.limits.max_file_bytes;
    let documents = contents::documents(repo, &tip.sha, &listing, &relevance, limit, cache).await?;
    let mut repos = RepoIndex::default();
    repos.insert(&repo.repo.full(), None, listing.tree.clone());
    Ok(ChangeSet {
        repo: Some(repo.repo.full()),
        base: Files::new(),
        head: Files::over(documents.files.clone()),
        pr: PrInfo::default(),
        repos,
        config: tip.config.clone(),
        inheritance: tip.inheritance.clone(),
        history: None,
        agents: Some(documents.agents.clone()),
        codeowners: None,
        github_owner_errors: Vec::new(),
        branch_rules: Default::default(),
    })
}
