//! Reading a pull request from GitHub into a ChangeSet: the PR (base and head
//! commits, body), its file list (paginated; over 3000 files the evaluation
//! fails closed), the repo config at the base branch's tip (a PR cannot
//! weaken its own gate), one recursive tree per commit, and the relevant
//! files' contents (`contents`: from the cache by blob id, the rest in
//! batched GraphQL `object(expression: "<sha>:<path>")` queries), and, when
//! briefs pin paths to a revision or specs name commits in `landed.md`, one
//! more batched query for exactly those.
//!
//! The base side of the files the PR touches is read at the merge base of
//! the base branch and the head, as GitHub's own diff is ("About comparing
//! branches in pull requests": a three-dot comparison), found with the
//! compare API's `merge_base_commit` when there is a base side to read. A
//! base branch that moved on after the PR branched (another PR appending
//! votes to the same document) is then no change of this PR's. Seven calls
//! for a typical PR's first evaluation; two (the PR and its file list) for
//! each later evaluation of the same head.

use std::sync::Arc;

use serde::Deserialize;

use super::Relevance;
use super::contents::{self, Aliased, BATCH, Listing, ReadCache, Wanted, objects_query};
use crate::config::CONFIG_PATH;
use crate::gate;
use crate::github::answers::{self, DiffEntry, FileStatus, GitTree};
use crate::github::reviews::{self, PullRequestCommit, PullRequestReview};
use crate::github::{ApiError, HeadSha, RepoClient};
use crate::model::{ChangeSet, ChangedFile, FileContent, Files, Object, PrInfo, RepoIndex};
use crate::plan::dependencies::AtBase;
use crate::reads::{self, Needs, PinnedPath};

/// GitHub lists at most 3000 files of a pull request: past that, gatehouse
/// cannot see the whole change and fails closed.
pub(crate) const MAX_FILES: u64 = 3000;

/// The PR as GitHub describes it.
#[derive(Clone, Debug)]
pub struct PullRequest {
    pub number: u64,
    /// The base branch's tip, where the config is read.
    pub base_sha: HeadSha,
    /// The base branch's name, whose rules say which checks it requires.
    pub base_branch: String,
    /// Where the head branched from the base, when known (a merge group's
    /// base); `None`: asked of the compare API when it is needed.
    pub merge_base: Option<HeadSha>,
    pub head_sha: HeadSha,
    pub body: Option<String>,
    pub changed_files: u64,
    /// A draft: no review is requested until it is ready for review.
    pub draft: bool,
    /// The author's login (empty when GitHub shows none), whether GitHub
    /// marks the account `Bot`, and the assignees: the review gate's
    /// `Directory`.
    pub author: String,
    pub author_is_bot: bool,
    pub assignees: Vec<String>,
}

/// One entry of the PR's file list.
#[derive(Clone, Debug)]
pub struct PrFile {
    pub path: String,
    pub(crate) status: FileStatus,
    pub previous: Option<String>,
    /// The unified diff GitHub shows (absent for binary or huge files).
    pub patch: Option<String>,
    pub additions: u64,
    pub deletions: u64,
}

impl From<DiffEntry> for PrFile {
    fn from(f: DiffEntry) -> PrFile {
        PrFile {
            path: f.filename,
            status: f.status,
            previous: f.previous_filename,
            patch: f.patch,
            additions: f.additions,
            deletions: f.deletions,
        }
    }
}

/// Everything read for one evaluation.
#[derive(Debug)]
pub struct PrSnapshot {
    pub pr: PullRequest,
    pub files: Vec<PrFile>,
    pub changes: ChangeSet,
    /// What the evaluation read from the base branch's tip without the PR
    /// touching it (see [`super::dependencies`]).
    pub(crate) dependencies: Vec<AtBase>,
}

/// What reading a PR produced.
#[derive(Debug)]
pub enum Read {
    Snapshot(Box<PrSnapshot>),
    /// The PR changes more files than GitHub lists: fail closed.
    TooManyFiles {
        pr: PullRequest,
    },
}

/// Reads PR `number`.
pub async fn describe(repo: &RepoClient, number: u64) -> Result<PullRequest, ApiError> {
    let pr: answers::PullRequest = repo.get(&format!("/pulls/{number}")).await?;
    Ok(PullRequest {
        number,
        base_sha: HeadSha(pr.base.sha),
        base_branch: pr.base.branch,
        merge_base: None,
        head_sha: HeadSha(pr.head.sha),
        body: pr.body,
        changed_files: pr.changed_files,
        draft: pr.draft,
        author: pr.user.as_ref().map(|u| u.login.clone()).unwrap_or_default(),
        author_is_bot: pr.user.as_ref().is_some_and(|u| u.is_bot()),
        assignees: pr.assignees.into_iter().map(|u| u.login).collect(),
    })
}

/// The open PRs whose head is `sha` (a fork's check suite names none).
pub(crate) async fn pulls_for_head(repo: &RepoClient, sha: &str) -> Result<Vec<u64>, ApiError> {
    let pulls: Vec<answers::PullRequestSimple> = repo.pages("/pulls?state=open&per_page=100", 10).await?;
    Ok(pulls.into_iter().filter(|p| p.head.sha == sha).map(|p| p.number).collect())
}

/// The repository's open PRs, newest first, at most [`MAX_OPEN_PULLS`] (an
/// install evaluates them: more are evaluated at their next push).
pub(crate) async fn open_pulls(repo: &RepoClient) -> Result<Vec<u64>, ApiError> {
    let pulls: Vec<answers::PullRequestSimple> = repo.pages("/pulls?state=open&per_page=100", 1).await?;
    Ok(pulls.into_iter().take(MAX_OPEN_PULLS).map(|p| p.number).collect())
}

/// The repository's open PRs into its default branch, at most
/// [`MAX_OPEN_PULLS`]: those ready for review first (a person waits on
/// them; nobody reviews a draft), each kind newest first.
pub(crate) async fn open_pulls_into_default(repo: &RepoClient) -> Result<Vec<u64>, ApiError> {
    let pulls: Vec<answers::PullRequestSimple> = repo.pages("/pulls?state=open&per_page=100", 1).await?;
    let mut into_default: Vec<_> =
        pulls.into_iter().filter(|p| p.base.branch == p.base.repo.default_branch).take(MAX_OPEN_PULLS).collect();
    into_default.sort_by_key(|p| p.draft);
    Ok(into_default.into_iter().map(|p| p.number).collect())
}

/// How many open PRs an install evaluates per repository.
pub(crate) const MAX_OPEN_PULLS: usize = 100;

/// GitHub lists at most this many of a pull request's commits ("List
/// commits on a pull request").
pub(crate) const MAX_COMMITS: usize = 250;

/// The PR's reviews, its commit authors and the reviewers GitHub marks
/// `Bot` (lowercase), for the review gate; `None` for the authors when
/// GitHub's list stopped at [`MAX_COMMITS`] (recusal cannot be decided: the
/// gate fails closed).
pub(crate) async fn reviews_and_authors(
    repo: &RepoClient,
    number: u64,
) -> Result<(Vec<gate::Review>, Option<Vec<String>>, Vec<String>), ApiError> {
    let (reviews_url, commits_url) =
        (format!("/pulls/{number}/reviews?per_page=100"), format!("/pulls/{number}/commits?per_page=100"));
    let (raw_reviews, commits) = tokio::join!(
        repo.pages::<PullRequestReview>(&reviews_url, 30),
        repo.pages::<PullRequestCommit>(&commits_url, 30),
    );
    let raw_reviews = raw_reviews?;
    let bots = reviews::bots(&raw_reviews);
    let reviews = reviews::reviews(raw_reviews).map_err(|e| ApiError::Malformed {
        what: format!("GET {}", repo.path(&format!("/pulls/{number}/reviews"))),
        message: format!("{e:#}"),
    })?;
    let commits = commits?;
    if commits.len() >= MAX_COMMITS {
        return Ok((reviews, None, bots));
    }
    let (authors, _) = reviews::authors(commits);
    Ok((reviews, Some(authors), bots))
}

/// Reads the PR (as [`describe`] described it) into a ChangeSet.
pub async fn read(repo: &RepoClient, pr: PullRequest, cache: &ReadCache) -> Result<Read, ApiError> {
    if pr.changed_files > MAX_FILES {
        return Ok(Read::TooManyFiles { pr });
    }
    let listed = files(repo, pr.number);
    read_changes(repo, pr, listed, cache).await
}

/// Reads the change from `pr.base_sha` to `pr.head_sha` into a ChangeSet,
/// `listed` answering for its changed files (read while the tree and the
/// config are).
pub(crate) async fn read_changes(
    repo: &RepoClient,
    pr: PullRequest,
    listed: impl std::future::Future<Output = Result<Vec<PrFile>, ApiError>>,
    cache: &ReadCache,
) -> Result<Read, ApiError> {
    // The config and the CODEOWNERS file are read at the base, in one query.
    let base_files: Vec<Wanted> = std::iter::once(CONFIG_PATH)
        .chain(crate::owners::LOCATIONS)
        .map(|path| Wanted { commit: &pr.base_sha.0, path, blob: None })
        .collect();
    let (files, tree, config) =
        tokio::join!(listed, tree(repo, &pr.head_sha.0, cache), contents::read(repo, &base_files, u64::MAX, cache),);
    let (files, listing, mut config) = (files?, tree?, config?);
    let owners = config.split_off(1);
    let codeowners = crate::owners::LOCATIONS.iter().zip(owners).find_map(|(path, blob)| {
        let text = blob?.content.text().map(str::to_string).unwrap_or_default();
        Some(crate::owners::BaseFile { path: path.to_string(), text })
    });
    let text = match config.into_iter().next().flatten().map(|blob| blob.content) {
        Some(FileContent::Text(text)) => Some(text),
        _ => None,
    };
    let mut inheritance = super::extended::read(repo, text.as_deref(), cache).await?;
    let config = reads::effective_config(text.as_deref(), &inheritance).config;
    let limit = config.limits.max_file_bytes;
    // Only the families the change needs are read (see `Needs`): a first
    // pull request that touches one brief reads no spec, ledger or docket.
    let touched = files.iter().flat_map(|f| std::iter::once(f.path.as_str()).chain(f.previous.as_deref()));
    let relevance = Relevance::of(&config, Needs::of(&config, touched, pr.body.as_deref().unwrap_or("")));

    let documents = contents::documents(repo, &pr.head_sha.0, &listing, &relevance, limit, cache).await?;
    // The base is the head's documents with what the PR touched laid over
    // them: added paths hidden, the base side of modified, removed and
    // renamed-from paths read at the merge base.
    let head = Files::over(documents.files.clone());
    let mut base = Files::over(documents.files.clone());
    let mut base_paths: Vec<&str> = Vec::new();
    for f in files.iter().filter(|f| relevance.wants(&f.path)) {
        match f.status {
            FileStatus::Unchanged => {}
            FileStatus::Added | FileStatus::Renamed | FileStatus::Copied => base.remove(&f.path),
            FileStatus::Modified | FileStatus::Changed => {
                if listing.blob(&f.path).is_some() {
                    base.remove(&f.path);
                    base_paths.push(&f.path);
                }
            }
            FileStatus::Removed => base_paths.push(&f.path),
        }
    }
    base_paths.extend(files.iter().filter_map(|f| f.previous.as_deref()).filter(|p| relevance.wants(p)));
    // Without a base side to read, the merge base is not asked for: whether
    // the base moved on since the PR branched is then unknown.
    let merge_base_assumed = pr.merge_base.is_none() && base_paths.is_empty();
    let merge_base = match (&pr.merge_base, base_paths.is_empty()) {
        (Some(known), _) => known.0.clone(),
        (None, true) => pr.base_sha.0.clone(),
        (None, false) => merge_base(repo, &pr.base_sha.0, &pr.head_sha.0, cache).await?,
    };
    let reads: Vec<Wanted> = base_paths.iter().map(|path| Wanted { commit: &merge_base, path, blob: None }).collect();
    let blobs = contents::read(repo, &reads, limit, cache).await?;
    for (path, blob) in base_paths.into_iter().zip(blobs) {
        if let Some(blob) = blob {
            base.insert(path.to_string(), blob.content);
        }
    }
    // A pull request that changes `extends:` is validated with what it names.
    let head_config = head.get(CONFIG_PATH).and_then(FileContent::text);
    super::extended::complete(repo, &mut inheritance, head_config, cache).await?;
    let mut repos = RepoIndex::default();
    repos.insert(&repo.repo.full(), None, listing.tree.clone());
    let mut changes = ChangeSet {
        repo: Some(repo.repo.full()),
        base,
        head,
        pr: PrInfo {
            body: pr.body.clone(),
            files: Some(
                files
                    .iter()
                    .map(|f| ChangedFile { path: f.path.clone(), additions: f.additions, deletions: f.deletions })
                    .collect(),
            ),
        },
        repos,
        config,
        inheritance,
        history: None,
        agents: Some(documents.agents.clone()),
        codeowners,
        github_owner_errors: Vec::new(),
        branch_rules: Default::default(),
    };
    let base_is_tip = !merge_base_assumed && merge_base == pr.base_sha.0;
    let dependencies = super::dependencies::read(repo, &mut changes, &pr.base_sha.0, base_is_tip, limit, cache).await?;
    pinned_and_commits(repo, &mut changes).await?;
    Ok(Read::Snapshot(Box::new(PrSnapshot { pr, files, changes, dependencies })))
}

/// Asks GitHub, in one batched query, for what the head tree cannot answer
/// and a checkout can: the paths changed briefs pin to a revision of this
/// repository (`owner/repo@rev:path`, each revision resolved too), and which
/// of the commits the touched specs' `landed.md` names exist. The answers
/// are data in the ChangeSet (pinned paths in its RepoIndex, found commits
/// as its history); a query GitHub refuses leaves them unknown, as a
/// checkout without that revision would.
async fn pinned_and_commits(repo: &RepoClient, changes: &mut ChangeSet) -> Result<(), ApiError> {
    let own = repo.repo.full();
    let further = reads::further(changes);
    let pins: Vec<PinnedPath> = further.pinned.into_iter().filter(|p| p.repo.eq_ignore_ascii_case(&own)).collect();
    let mut revs: Vec<&str> = pins.iter().map(|p| p.rev.as_str()).collect();
    revs.sort_unstable();
    revs.dedup();
    let shas = further.commits;
    if revs.is_empty() && shas.is_empty() {
        return Ok(());
    }
    let expressions: Vec<String> = revs
        .iter()
        .map(|r| r.to_string())
        .chain(pins.iter().map(|p| format!("{}:{}", p.rev, p.path.trim_end_matches('/'))))
        .chain(shas.iter().cloned())
        .collect();
    let answers = match objects(repo, &expressions).await {
        Ok(answers) => answers,
        Err(err) if err.is_transient() => return Err(err),
        Err(err) => {
            tracing::warn!(repo = %own, error = %err, "pinned paths and landed commits left unknown");
            return Ok(());
        }
    };
    let (rev_answers, rest) = answers.split_at(revs.len());
    let (pin_answers, commit_answers) = rest.split_at(pins.len());
    let resolved: Vec<&str> = revs
        .iter()
        .zip(rev_answers)
        .filter(|(_, a)| matches!(a.typename.as_str(), "Commit" | "Tag"))
        .map(|(r, _)| *r)
        .collect();
    for (pin, answer) in pins.iter().zip(pin_answers) {
        if !resolved.contains(&pin.rev.as_str()) {
            continue;
        }
        let object = match answer.typename.as_str() {
            "Blob" => Object::File,
            "Tree" => Object::Dir,
            _ => Object::Absent,
        };
        changes.repos.insert_object(&own, &pin.rev, &pin.path, object);
    }
    if !shas.is_empty() {
        let found = commit_answers.iter().filter(|a| a.typename == "Commit");
        changes.history = Some(found.map(|a| a.oid.clone()).collect());
    }
    Ok(())
}

/// What GitHub found at one revision expression (`{ __typename oid }` of
/// a `GitObject`, both non-null in its schema).
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct Found {
    /// `Commit`, `Tag`, `Tree` or `Blob`; empty where nothing is there.
    #[serde(rename = "__typename")]
    pub(crate) typename: String,
    pub(crate) oid: String,
}

/// Looks revision expressions (`<rev>`, `<rev>:<path>`) up in batches.
pub(crate) async fn objects(repo: &RepoClient, expressions: &[String]) -> Result<Vec<Found>, ApiError> {
    let mut out = Vec::with_capacity(expressions.len());
    for batch in expressions.chunks(BATCH) {
        let expressions = batch.iter().map(String::as_str);
        let (query, variables) = objects_query(repo, "Objects", ("o", "o"), "__typename oid", expressions);
        let mut data: Aliased<Found> = repo.graphql(&query, variables).await?;
        out.extend((0..batch.len()).map(|i| data.take(&format!("o{i}")).unwrap_or_default()));
    }
    Ok(out)
}

/// Where `head` branched from `base`: the compare API's `merge_base_commit`
/// (one commit asked for: the commits are not read, the files come with the
/// first page regardless), from the cache or its store when asked before.
async fn merge_base(repo: &RepoClient, base: &str, head: &str, cache: &ReadCache) -> Result<String, ApiError> {
    let key = repo.repo.full().to_ascii_lowercase();
    if let Some(known) = cache.merge_base(&key, base, head).await {
        return Ok(known);
    }
    let comparison: answers::Comparison = repo.get(&format!("/compare/{base}...{head}?per_page=1")).await?;
    let found = comparison.merge_base_commit.sha;
    cache.put_merge_base(&key, base, head, found.clone());
    Ok(found)
}

/// The PR's file list, every page (30 pages of 100: GitHub's 3000-file cap).
async fn files(repo: &RepoClient, number: u64) -> Result<Vec<PrFile>, ApiError> {
    let entries: Vec<DiffEntry> = repo.pages(&format!("/pulls/{number}/files?per_page=100"), 30).await?;
    Ok(entries.into_iter().map(PrFile::from).collect())
}

/// The commit's recursive listing, from the cache when read before. A
/// listing GitHub truncated is an error: rules over a partial tree would be
/// wrong.
pub(crate) async fn tree(repo: &RepoClient, sha: &str, cache: &ReadCache) -> Result<Arc<Listing>, ApiError> {
    let key = repo.repo.full().to_ascii_lowercase();
    if let Some(listing) = cache.tree(&key, sha) {
        return Ok(listing);
    }
    let path = format!("/git/trees/{sha}?recursive=1");
    let answer: GitTree = repo.get(&path).await?;
    if answer.truncated {
        return Err(ApiError::Status {
            status: 200,
            what: format!("GET {}", repo.path(&path)),
            message: format!(
                "GitHub truncated the listing of tree {}: the repository is too large to read whole",
                answer.sha
            ),
        });
    }
    let blobs = answer.tree.into_iter().filter(|e| e.kind == "blob").map(|e| (e.path, e.sha)).collect();
    let listing = Arc::new(Listing::new(blobs));
    cache.put_tree(&key, sha, listing.clone());
    Ok(listing)
}
