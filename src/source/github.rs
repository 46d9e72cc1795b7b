//! Reading a pull request from GitHub into a ChangeSet: the PR (base and head
//! commits, body), its file list (paginated; over 3000 files the evaluation
//! fails closed), the repo config at the BASE commit, one recursive tree per
//! commit (cached), and the relevant files' contents in batched GraphQL
//! `object(expression: "<sha>:<path>")` queries, and, when briefs pin paths
//! to a revision or specs name commits in `landed.md`, one more batched query
//! for exactly those. Six calls for a typical PR.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::{Value, json};

use super::Relevance;
use crate::config::{CONFIG_PATH, Config};
use crate::gate;
use crate::github::{ApiError, Call, GitHub, HeadSha, RepoName};
use crate::model::{ChangeSet, ChangedFile, FileContent, Files, Object, PrInfo, RepoIndex, RepoTree};
use crate::rules::brief::{PinnedPath, pinned_paths};
use crate::rules::spec::SpecView;

/// GitHub lists at most 3000 files of a pull request: past that, gatehouse
/// cannot see the whole change and fails closed.
pub const MAX_FILES: u64 = 3000;

/// Expressions per GraphQL query.
const BATCH: usize = 250;

/// The PR as GitHub describes it.
#[derive(Clone, Debug)]
pub struct PullRequest {
    pub number: u64,
    pub base_sha: HeadSha,
    pub head_sha: HeadSha,
    pub body: Option<String>,
    pub changed_files: u64,
}

/// One entry of the PR's file list.
#[derive(Clone, Debug)]
pub struct PrFile {
    pub path: String,
    pub status: String,
    pub previous: Option<String>,
    /// The unified diff GitHub shows (absent for binary or huge files).
    pub patch: Option<String>,
    pub additions: u64,
    pub deletions: u64,
}

/// Everything read for one evaluation.
#[derive(Debug)]
pub struct PrSnapshot {
    pub pr: PullRequest,
    pub files: Vec<PrFile>,
    pub changes: ChangeSet,
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

/// Recursive trees by (repo, commit), shared by the jobs of one process.
/// A commit's tree never changes, so entries never go stale.
#[derive(Debug, Default)]
pub struct TreeCache {
    trees: Mutex<HashMap<(String, String), Arc<RepoTree>>>,
}

/// Trees kept before the cache starts over.
const TREE_CACHE_LIMIT: usize = 256;

impl TreeCache {
    fn get(&self, repo: &str, sha: &str) -> Option<Arc<RepoTree>> {
        self.trees.lock().unwrap_or_else(|e| e.into_inner()).get(&(repo.to_string(), sha.to_string())).cloned()
    }

    fn put(&self, repo: &str, sha: &str, tree: Arc<RepoTree>) {
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        if trees.len() >= TREE_CACHE_LIMIT {
            trees.clear();
        }
        trees.insert((repo.to_string(), sha.to_string()), tree);
    }
}

fn str_at<'v>(v: &'v Value, pointer: &str) -> Option<&'v str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// Reads PR `number`.
pub async fn pull_request(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    number: u64,
) -> Result<PullRequest, ApiError> {
    let path = format!("/repos/{}/{}/pulls/{number}", repo.owner, repo.name);
    let body = gh.rest(installation, Method::GET, &path, None, Call::Idempotent).await?.body;
    let missing =
        |what: &str| ApiError::Status { status: 200, what: format!("GET {path}"), message: format!("no {what}") };
    Ok(PullRequest {
        number,
        base_sha: HeadSha(str_at(&body, "/base/sha").ok_or_else(|| missing("base sha"))?.to_string()),
        head_sha: HeadSha(str_at(&body, "/head/sha").ok_or_else(|| missing("head sha"))?.to_string()),
        body: str_at(&body, "/body").map(str::to_string),
        changed_files: body.get("changed_files").and_then(Value::as_u64).unwrap_or(0),
    })
}

/// The open PRs whose head is `sha` (a fork's check suite names none).
pub async fn pulls_for_head(gh: &GitHub, installation: u64, repo: &RepoName, sha: &str) -> Result<Vec<u64>, ApiError> {
    let mut url = format!("/repos/{}/{}/pulls?state=open&per_page=100", repo.owner, repo.name);
    let mut found = Vec::new();
    for _ in 0..10 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        for pull in response.body.as_array().into_iter().flatten() {
            if str_at(pull, "/head/sha") == Some(sha) {
                found.extend(pull.get("number").and_then(Value::as_u64));
            }
        }
        match response.next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(found)
}

/// The PR's reviews and its commit authors, for the review gate.
pub async fn reviews_and_authors(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    number: u64,
) -> Result<(Vec<gate::Review>, Vec<String>), ApiError> {
    let base = format!("/repos/{}/{}/pulls/{number}", repo.owner, repo.name);
    let (reviews, commits) = tokio::join!(
        all_pages(gh, installation, format!("{base}/reviews?per_page=100")),
        all_pages(gh, installation, format!("{base}/commits?per_page=100")),
    );
    let malformed = |what: &str, err: anyhow::Error| ApiError::Status {
        status: 200,
        what: format!("GET {base}/{what}"),
        message: format!("{err:#}"),
    };
    let reviews = crate::github::reviews::parse_reviews(&Value::Array(reviews?).to_string())
        .map_err(|e| malformed("reviews", e))?;
    let (authors, _) = crate::github::reviews::commit_authors(&Value::Array(commits?).to_string())
        .map_err(|e| malformed("commits", e))?;
    Ok((reviews, authors))
}

/// Every element of a paginated array (at most 30 pages).
async fn all_pages(gh: &GitHub, installation: u64, mut url: String) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::new();
    for _ in 0..30 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        if let Value::Array(items) = response.body {
            out.extend(items);
        }
        match response.next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(out)
}

/// Reads the PR (as [`pull_request`] described it) into a ChangeSet.
pub async fn read(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    pr: PullRequest,
    trees: &TreeCache,
) -> Result<Read, ApiError> {
    if pr.changed_files > MAX_FILES {
        return Ok(Read::TooManyFiles { pr });
    }
    let listed = files(gh, installation, repo, pr.number);
    read_changes(gh, installation, repo, pr, listed, trees).await
}

/// Reads the change from `pr.base_sha` to `pr.head_sha` into a ChangeSet,
/// `listed` answering for its changed files (read while the tree and the
/// config are).
pub(crate) async fn read_changes(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    pr: PullRequest,
    listed: impl std::future::Future<Output = Result<Vec<PrFile>, ApiError>>,
    trees: &TreeCache,
) -> Result<Read, ApiError> {
    let config_expr = vec![format!("{}:{CONFIG_PATH}", pr.base_sha)];
    let (files, tree, config) = tokio::join!(
        listed,
        tree(gh, installation, repo, &pr.head_sha.0, trees),
        blobs(gh, installation, repo, &config_expr, u64::MAX),
    );
    let (files, head_tree, config) = (files?, tree?, config?);
    let config = match config.into_iter().next().flatten() {
        Some(FileContent::Text(text)) => crate::rules::read_config(&text).0,
        _ => Config::default(),
    };
    let limit = config.limits.max_file_bytes;
    let relevance = Relevance::new(&config);

    // Base listing = head listing − added + removed/renamed-from.
    let changed: BTreeMap<&str, &PrFile> = files.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut wanted: Vec<(String, Side)> = Vec::new();
    for path in head_tree.files().iter().filter(|p| relevance.wants(p)) {
        let side = match changed.get(path.as_str()).map(|f| f.status.as_str()) {
            None | Some("unchanged") => Side::Both,
            Some("added") | Some("renamed") | Some("copied") => Side::Head,
            Some(_) => Side::Each,
        };
        wanted.push((path.clone(), side));
    }
    for f in &files {
        if f.status == "removed" && relevance.wants(&f.path) {
            wanted.push((f.path.clone(), Side::Base));
        }
        if let Some(previous) = f.previous.as_ref().filter(|p| relevance.wants(p)) {
            wanted.push((previous.clone(), Side::Base));
        }
    }
    let mut expressions = Vec::new();
    for (path, side) in &wanted {
        if matches!(side, Side::Base | Side::Each) {
            expressions.push(format!("{}:{path}", pr.base_sha));
        }
        if matches!(side, Side::Head | Side::Each | Side::Both) {
            expressions.push(format!("{}:{path}", pr.head_sha));
        }
    }
    let mut contents = blobs(gh, installation, repo, &expressions, limit).await?.into_iter();
    let (mut base, mut head) = (Files::new(), Files::new());
    for (path, side) in wanted {
        if matches!(side, Side::Base | Side::Each)
            && let Some(content) = contents.next().flatten()
        {
            base.insert(path.clone(), content);
        }
        if matches!(side, Side::Head | Side::Each | Side::Both)
            && let Some(content) = contents.next().flatten()
        {
            if side == Side::Both {
                base.insert(path.clone(), content.clone());
            }
            head.insert(path, content);
        }
    }
    let mut repos = RepoIndex::default();
    repos.insert(&repo.full(), None, head_tree);
    let mut changes = ChangeSet {
        repo: Some(repo.full()),
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
        history: None,
    };
    pinned_and_commits(gh, installation, repo, &mut changes).await?;
    Ok(Read::Snapshot(Box::new(PrSnapshot { pr, files, changes })))
}

/// Asks GitHub, in one batched query, for what the head tree cannot answer
/// and a checkout can: the paths changed briefs pin to a revision of this
/// repository (`owner/repo@rev:path`, each revision resolved too), and which
/// of the commits the touched specs' `landed.md` names exist. The answers
/// are data in the ChangeSet (pinned paths in its RepoIndex, found commits
/// as its history); a query GitHub refuses leaves them unknown, as a
/// checkout without that revision would.
async fn pinned_and_commits(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    changes: &mut ChangeSet,
) -> Result<(), ApiError> {
    let own = repo.full();
    let pins: Vec<PinnedPath> =
        pinned_paths(changes).into_iter().filter(|p| p.repo.eq_ignore_ascii_case(&own)).collect();
    let mut revs: Vec<&str> = pins.iter().map(|p| p.rev.as_str()).collect();
    revs.sort_unstable();
    revs.dedup();
    let mut shas: Vec<String> =
        SpecView::new(changes).specs.iter().flat_map(|s| s.landed.iter().map(|l| l.sha.clone())).collect();
    shas.sort();
    shas.dedup();
    if revs.is_empty() && shas.is_empty() {
        return Ok(());
    }
    let expressions: Vec<String> = revs
        .iter()
        .map(|r| r.to_string())
        .chain(pins.iter().map(|p| format!("{}:{}", p.rev, p.path.trim_end_matches('/'))))
        .chain(shas.iter().cloned())
        .collect();
    let answers = match objects(gh, installation, repo, &expressions).await {
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
        .filter(|(_, a)| matches!(a.typename.as_deref(), Some("Commit" | "Tag")))
        .map(|(r, _)| *r)
        .collect();
    for (pin, answer) in pins.iter().zip(pin_answers) {
        if !resolved.contains(&pin.rev.as_str()) {
            continue;
        }
        let object = match answer.typename.as_deref() {
            Some("Blob") => Object::File,
            Some("Tree") => Object::Dir,
            _ => Object::Absent,
        };
        changes.repos.insert_object(&own, &pin.rev, &pin.path, object);
    }
    if !shas.is_empty() {
        let found = commit_answers.iter().filter(|a| a.typename.as_deref() == Some("Commit"));
        changes.history = Some(found.filter_map(|a| a.oid.clone()).collect());
    }
    Ok(())
}

/// What GitHub found at one revision expression.
#[derive(Clone, Debug, Default)]
struct Found {
    /// `Commit`, `Tag`, `Tree` or `Blob`; `None` when nothing is there.
    typename: Option<String>,
    oid: Option<String>,
}

/// Looks revision expressions (`<rev>`, `<rev>:<path>`) up in batches.
async fn objects(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    expressions: &[String],
) -> Result<Vec<Found>, ApiError> {
    let mut out = Vec::with_capacity(expressions.len());
    for batch in expressions.chunks(BATCH) {
        let mut query = String::from("query Objects($owner: String!, $name: String!");
        let mut fields = String::new();
        let mut variables = serde_json::Map::new();
        variables.insert("owner".into(), json!(repo.owner));
        variables.insert("name".into(), json!(repo.name));
        for (i, expression) in batch.iter().enumerate() {
            query.push_str(&format!(", $o{i}: String!"));
            fields.push_str(&format!(" o{i}: object(expression: $o{i}) {{ __typename oid }}"));
            variables.insert(format!("o{i}"), json!(expression));
        }
        query.push_str(&format!(") {{ repository(owner: $owner, name: $name) {{{fields} }} }}"));
        let data = gh.graphql(installation, &query, Value::Object(variables)).await?;
        for i in 0..batch.len() {
            let object = data.pointer(&format!("/repository/o{i}")).filter(|o| !o.is_null());
            out.push(object.map_or_else(Found::default, |o| Found {
                typename: str_at(o, "/__typename").map(str::to_string),
                oid: str_at(o, "/oid").map(str::to_string),
            }));
        }
    }
    Ok(out)
}

/// Where a relevant file must be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// Unchanged: read once at the head, the same on the base.
    Both,
    Head,
    Base,
    /// Modified: read on each side.
    Each,
}

/// The PR's file list, every page.
async fn files(gh: &GitHub, installation: u64, repo: &RepoName, number: u64) -> Result<Vec<PrFile>, ApiError> {
    let mut url = format!("/repos/{}/{}/pulls/{number}/files?per_page=100", repo.owner, repo.name);
    let mut out = Vec::new();
    // 30 pages of 100: GitHub's 3000-file cap.
    for _ in 0..30 {
        let response = gh.rest(installation, Method::GET, &url, None, Call::Idempotent).await?;
        for f in response.body.as_array().into_iter().flatten() {
            let Some(path) = f.get("filename").and_then(Value::as_str) else { continue };
            out.push(PrFile {
                path: path.to_string(),
                status: f.get("status").and_then(Value::as_str).unwrap_or("modified").to_string(),
                previous: f.get("previous_filename").and_then(Value::as_str).map(str::to_string),
                patch: f.get("patch").and_then(Value::as_str).map(str::to_string),
                additions: f.get("additions").and_then(Value::as_u64).unwrap_or(0),
                deletions: f.get("deletions").and_then(Value::as_u64).unwrap_or(0),
            });
        }
        match response.next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(out)
}

/// The commit's recursive tree, from the cache when read before.
async fn tree(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    sha: &str,
    cache: &TreeCache,
) -> Result<Arc<RepoTree>, ApiError> {
    let key = repo.full().to_ascii_lowercase();
    if let Some(tree) = cache.get(&key, sha) {
        return Ok(tree);
    }
    let path = format!("/repos/{}/{}/git/trees/{sha}?recursive=1", repo.owner, repo.name);
    let body = gh.rest(installation, Method::GET, &path, None, Call::Idempotent).await?.body;
    let files = body
        .get("tree")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("blob"))
        .filter_map(|e| e.get("path").and_then(Value::as_str).map(str::to_string))
        .collect();
    let tree = Arc::new(RepoTree::new(files));
    cache.put(&key, sha, tree.clone());
    Ok(tree)
}

/// Reads `<sha>:<path>` expressions in batches; `None` where nothing is there.
async fn blobs(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    expressions: &[String],
    limit: u64,
) -> Result<Vec<Option<FileContent>>, ApiError> {
    let mut out = Vec::with_capacity(expressions.len());
    for batch in expressions.chunks(BATCH) {
        let mut query = String::from("query Blobs($owner: String!, $name: String!");
        let mut fields = String::new();
        let mut variables = serde_json::Map::new();
        variables.insert("owner".into(), json!(repo.owner));
        variables.insert("name".into(), json!(repo.name));
        for (i, expression) in batch.iter().enumerate() {
            query.push_str(&format!(", $e{i}: String!"));
            fields.push_str(&format!(
                " f{i}: object(expression: $e{i}) {{ ... on Blob {{ byteSize isBinary isTruncated text }} }}"
            ));
            variables.insert(format!("e{i}"), json!(expression));
        }
        query.push_str(&format!(") {{ repository(owner: $owner, name: $name) {{{fields} }} }}"));
        let data = gh.graphql(installation, &query, Value::Object(variables)).await?;
        for i in 0..batch.len() {
            let blob = data.pointer(&format!("/repository/f{i}")).filter(|b| !b.is_null());
            out.push(blob.map(|b| classify(b, limit)));
        }
    }
    Ok(out)
}

/// A GraphQL blob as the content rules see.
fn classify(blob: &Value, limit: u64) -> FileContent {
    let size = blob.get("byteSize").and_then(Value::as_u64).unwrap_or(0);
    if size > limit || blob.get("isTruncated").and_then(Value::as_bool) == Some(true) {
        return FileContent::TooLarge { bytes: size, limit };
    }
    if blob.get("isBinary").and_then(Value::as_bool) == Some(true) {
        return FileContent::Binary;
    }
    FileContent::from_bytes(blob.get("text").and_then(Value::as_str).unwrap_or("").as_bytes(), limit)
}
