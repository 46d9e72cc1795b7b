//! File contents read from GitHub for an evaluation, and the process-wide
//! cache that makes an evaluation cost what its pull request changes.
//!
//! The rules need every relevant document of the head tree (repository-wide
//! rules compare a touched brief's agent id with every other brief's, cite
//! ADRs by the number in their text, and so on), and their findings must be
//! the same whatever was read before. Three ways to cut the reads were
//! weighed: deriving facts from the tree listing is exact only where a
//! rule's input is the path itself (a brief's agent is in its frontmatter,
//! an ADR's number in its heading, so a listing cannot stand in for them);
//! reading only the candidate documents a touched one could clash with is
//! exact only for rules that name their candidates, and every new
//! repository-wide rule would have to state its own. A cache of contents
//! keyed by blob id is exact for every rule at once, because a blob's
//! content never changes: the recursive tree listing gives each head file's
//! blob id, a file whose blob was read before is taken from the cache, and
//! GitHub is asked only for the blobs no evaluation has read yet (a touched
//! document's new side, its base side, the config).
//!
//! What the rules derive from every document is kept the same way: each
//! blob's agent id is read once, when the blob is, and a commit's documents
//! are gathered once into a shared map with its [`AgentIndex`]
//! ([`Documents`], kept with the commit's listing). An evaluation then
//! costs what its pull request touches: the head is that map, the base is
//! that map with the touched paths laid over it (see `model::Files`). The
//! ChangeSet reads as the one a full read builds (every rule fixture is
//! evaluated both ways), so the pure rules find the same.
//!
//! Given what the job runner keeps ([`KeptReads`], the App's store, through
//! [`ReadCache::with_kept`]), the cache looks there for what this process
//! has not read, and notes every blob and every path it reads from GitHub
//! as [`UnkeptReads`]: the job runner keeps them once the job's answer is
//! published ([`ReadCache::take_unkept`]),
//! so a restarted process or another replica takes from it what any of
//! them read before, and no store write stands between a delivery and its
//! answer. Only the first evaluation of a repository, in any process, reads
//! all of its documents from GitHub. A database fault there costs GitHub
//! reads, never the evaluation.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::json;

use super::Relevance;
use crate::docs::brief::agent_of;
use crate::github::{ApiError, RepoClient};
use crate::model::{AgentIndex, FileContent, RepoTree};

/// Expressions per GraphQL query.
pub(crate) const BATCH: usize = 250;

/// Text kept in the blob cache before it starts over (bytes).
const BLOB_CACHE_BYTES: usize = 256 << 20;

/// Paths listed in the kept trees before the tree cache starts over (a
/// listing of 100,000 files, with its documents, holds about 20 MB).
const TREE_CACHE_PATHS: usize = 1_000_000;

/// A commit's recursive listing: its files, each file's blob id, and its
/// documents once gathered.
#[derive(Debug)]
pub(crate) struct Listing {
    pub tree: Arc<RepoTree>,
    /// The blob id of each of `tree`'s files, in its order.
    blobs: Vec<String>,
    /// The documents gathered for each way of choosing them.
    documents: Mutex<Vec<(DocumentsKey, Arc<Documents>)>>,
}

/// What decides a commit's documents: the config's document paths (as
/// [`Relevance`] reads them) and its size limit.
type DocumentsKey = ((Vec<String>, Vec<String>), u64);

/// The relevant documents of one commit, gathered once for every
/// evaluation of it.
#[derive(Debug)]
pub(crate) struct Documents {
    pub files: Arc<BTreeMap<String, FileContent>>,
    pub agents: Arc<AgentIndex>,
}

impl Listing {
    pub(crate) fn new(mut blobs: Vec<(String, String)>) -> Listing {
        blobs.sort_unstable();
        blobs.dedup_by(|a, b| a.0 == b.0);
        // Sorted and without repeats, the paths keep their order in the tree.
        let (paths, blobs): (Vec<String>, Vec<String>) = blobs.into_iter().unzip();
        let tree = Arc::new(RepoTree::new(paths));
        Listing { tree, blobs, documents: Mutex::default() }
    }

    /// The blob id of the file at `path`.
    pub(crate) fn blob(&self, path: &str) -> Option<&str> {
        let at = self.tree.files().binary_search_by(|p| p.as_str().cmp(path)).ok()?;
        Some(&self.blobs[at])
    }

    /// Each file's path and blob id, in path order.
    fn entries(&self) -> impl Iterator<Item = (&String, &String)> {
        self.tree.files().iter().zip(&self.blobs)
    }
}

/// The documents of the commit `sha` that `relevance` wants, each read from
/// the cache when its blob was read before; gathered once per listing.
pub(crate) async fn documents(
    repo: &RepoClient,
    sha: &str,
    listing: &Listing,
    relevance: &Relevance,
    limit: u64,
    cache: &ReadCache,
) -> Result<Arc<Documents>, ApiError> {
    let key = (relevance.key(), limit);
    let kept = |listing: &Listing| {
        let documents = listing.documents.lock().unwrap_or_else(|e| e.into_inner());
        documents.iter().find(|(k, _)| *k == key).map(|(_, d)| d.clone())
    };
    if let Some(documents) = kept(listing) {
        return Ok(documents);
    }
    let wanted: Vec<Wanted> = listing
        .entries()
        .filter(|(path, _)| relevance.wants(path))
        .map(|(path, blob)| Wanted { commit: sha, path, blob: Some(blob) })
        .collect();
    let blobs = read(repo, &wanted, limit, cache).await?;
    let mut agents = Vec::new();
    let mut files = Vec::with_capacity(wanted.len());
    for (wanted, blob) in wanted.into_iter().zip(blobs) {
        let Some(Blob { content, agent }) = blob else { continue };
        if let Some(agent) = agent {
            agents.push((agent, Box::from(wanted.path)));
        }
        files.push((wanted.path.to_string(), content));
    }
    let documents =
        Arc::new(Documents { files: Arc::new(files.into_iter().collect()), agents: Arc::new(AgentIndex::new(agents)) });
    let mut kept = listing.documents.lock().unwrap_or_else(|e| e.into_inner());
    kept.retain(|(k, _)| *k != key);
    kept.push((key, documents.clone()));
    Ok(documents)
}

/// An answer from [`KeptReads`].
pub type Kept<'a, T> = Pin<Box<dyn Future<Output = anyhow::Result<T>> + Send + 'a>>;

/// What processes read from GitHub before and the job runner kept (the
/// App's store): the read step looks there through this, and knows no more
/// of where it is kept.
pub trait KeptReads: std::fmt::Debug + Send + Sync {
    /// The merge base of `base` and `head` in `repo`, when kept.
    fn merge_base<'a>(&'a self, repo: &'a str, base: &'a str, head: &'a str) -> Kept<'a, Option<String>>;
    /// The blob id at each of `paths` of `commit` that is kept, as (path,
    /// blob id; `None`: no file there).
    fn paths<'a>(&'a self, commit: &'a str, paths: &'a [&'a str]) -> Kept<'a, Vec<(String, Option<String>)>>;
    /// The blobs of `oids` read under `limit` that are kept, as (blob id, blob).
    fn blobs<'a>(&'a self, limit: u64, oids: &'a [&'a str]) -> Kept<'a, Vec<(String, Blob)>>;
}

/// What a process read from GitHub that is not kept yet.
#[derive(Debug, Default)]
pub struct UnkeptReads {
    /// By size limit.
    pub blobs: BTreeMap<u64, ReadBlobs>,
    /// (repo, base, head, merge base).
    pub merge_bases: Vec<(String, String, String, String)>,
}

/// Blobs read under one size limit.
#[derive(Debug, Default)]
pub struct ReadBlobs {
    /// (blob id, blob).
    pub blobs: Vec<(String, Blob)>,
    /// What was at each path read by commit.
    pub paths: Vec<ReadPath>,
}

/// The blob at `path` of `commit` (`None`: no file there).
#[derive(Debug)]
pub struct ReadPath {
    pub commit: String,
    pub path: String,
    pub oid: Option<String>,
}

impl UnkeptReads {
    pub fn is_empty(&self) -> bool {
        self.blobs.is_empty() && self.merge_bases.is_empty()
    }
}

/// Listings by (repo, commit), contents by (blob id, size limit) and merge
/// bases by (repo, base, head), shared by the jobs of one process, the
/// contents and merge bases also looked for in `kept` when given. Neither a
/// commit's tree, a blob's content nor two commits' merge base ever
/// changes, so entries never go stale. `policy` is where repositories find
/// their organisation's policy, and which policies were found absent;
/// `teams` keeps the teams' members the review gates read.
#[derive(Debug, Default)]
pub struct ReadCache {
    pub(crate) policy: super::policy::PolicyReads,
    pub(crate) teams: super::teams::TeamCache,
    trees: Mutex<TreeCache>,
    blobs: Mutex<BlobCache>,
    kept: Option<Box<dyn KeptReads>>,
    merge_bases: Mutex<HashMap<(String, String, String), String>>,
    unkept: Mutex<UnkeptReads>,
}

/// Merge bases kept before the map is emptied (each entry is three ids).
const MERGE_BASES: usize = 100_000;

#[derive(Debug, Default)]
struct TreeCache {
    listings: HashMap<(String, String), Arc<Listing>>,
    paths: usize,
}

#[derive(Debug, Default)]
struct BlobCache {
    /// Size limit → blob id → blob: another limit may classify a blob otherwise.
    contents: HashMap<u64, HashMap<String, Blob>>,
    /// Commit id → path → blob id (`None`: no file there), for files read
    /// without a listing (the config and the base side of touched files):
    /// a commit never changes.
    at: HashMap<String, HashMap<String, Option<String>>>,
    bytes: usize,
}

/// A blob's content, and its agent id (read once, with the content).
#[derive(Clone, Debug)]
pub struct Blob {
    pub content: FileContent,
    pub agent: Option<Arc<str>>,
}

impl Blob {
    fn new(content: FileContent) -> Blob {
        let agent = content.text().and_then(agent_of).map(Arc::from);
        Blob { content, agent }
    }
}

impl ReadCache {
    /// A cache that looks in `kept` for what this process has not read,
    /// and notes what it reads for the job runner to keep there.
    pub fn with_kept(kept: impl KeptReads + 'static) -> ReadCache {
        ReadCache { kept: Some(Box::new(kept)), ..ReadCache::default() }
    }

    /// The same cache, repositories finding their organisation's policy
    /// where `policy` says.
    pub fn with_org_policy(mut self, policy: super::policy::OrgPolicy) -> ReadCache {
        self.policy = super::policy::PolicyReads::new(policy);
        self
    }

    /// The merge base of `base` and `head` in `repo` when this process or
    /// (through what is kept) any other found it before.
    pub(crate) async fn merge_base(&self, repo: &str, base: &str, head: &str) -> Option<String> {
        let key = (repo.to_string(), base.to_string(), head.to_string());
        if let Some(known) = self.merge_bases.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Some(known.clone());
        }
        let found = match self.kept.as_ref()?.merge_base(repo, base, head).await {
            Ok(found) => found?,
            Err(err) => {
                tracing::warn!(error = %format!("{err:#}"), "cannot read the kept merge base; asking GitHub");
                return None;
            }
        };
        self.remember_merge_base(key, found.clone());
        Some(found)
    }

    /// Keeps the merge base found for `base` and `head` in `repo`, noted
    /// to be kept too when reads are.
    pub(crate) fn put_merge_base(&self, repo: &str, base: &str, head: &str, merge_base: String) {
        if self.kept.is_some() {
            let noted = (repo.to_string(), base.to_string(), head.to_string(), merge_base.clone());
            self.unkept.lock().unwrap_or_else(|e| e.into_inner()).merge_bases.push(noted);
        }
        self.remember_merge_base((repo.to_string(), base.to_string(), head.to_string()), merge_base);
    }

    /// What was read from GitHub since the last call, for the job runner to keep.
    pub fn take_unkept(&self) -> UnkeptReads {
        std::mem::take(&mut *self.unkept.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn remember_merge_base(&self, key: (String, String, String), merge_base: String) {
        let mut kept = self.merge_bases.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= MERGE_BASES {
            kept.clear();
        }
        kept.insert(key, merge_base);
    }

    pub(crate) fn tree(&self, repo: &str, sha: &str) -> Option<Arc<Listing>> {
        let trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees.listings.get(&(repo.to_string(), sha.to_string())).cloned()
    }

    pub(crate) fn put_tree(&self, repo: &str, sha: &str, listing: Arc<Listing>) {
        let paths = listing.blobs.len();
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        if trees.paths + paths > TREE_CACHE_PATHS {
            trees.listings.clear();
            trees.paths = 0;
        }
        trees.paths += paths;
        trees.listings.insert((repo.to_string(), sha.to_string()), listing);
    }

    /// What is known of `wanted` from earlier reads, under one lock: the
    /// blob, `Some(None)` when no file is there, `None` when not read.
    fn blobs(&self, wanted: &[Wanted], limit: u64) -> Vec<Option<Option<Blob>>> {
        let cache = self.blobs.lock().unwrap_or_else(|e| e.into_inner());
        let held = cache.contents.get(&limit);
        let found = |w: &Wanted| {
            let oid = match w.blob {
                Some(oid) => oid,
                None => match cache.at.get(w.commit)?.get(w.path)? {
                    Some(oid) => oid,
                    None => return Some(None),
                },
            };
            held?.get(oid).cloned().map(Some)
        };
        wanted.iter().map(found).collect()
    }

    /// Keeps what was read as `wanted` (whose commit is named by its id):
    /// blob `oid`, or nothing there.
    fn put(&self, wanted: &Wanted, limit: u64, read: Option<(String, Blob)>) {
        let size = read.as_ref().map_or(0, |(oid, blob)| blob.content.text().map_or(0, str::len) + oid.len())
            + wanted.path.len();
        let mut cache = self.blobs.lock().unwrap_or_else(|e| e.into_inner());
        if cache.bytes + size > BLOB_CACHE_BYTES {
            *cache = BlobCache::default();
        }
        cache.bytes += size;
        if wanted.blob.is_none() {
            let paths = cache.at.entry(wanted.commit.to_string()).or_default();
            paths.insert(wanted.path.to_string(), read.as_ref().map(|(oid, _)| oid.clone()));
        }
        if let Some((oid, blob)) = read {
            cache.contents.entry(limit).or_default().insert(oid, blob);
        }
    }

    /// Fills what `out` lacks of `wanted` from what is kept: the blob at
    /// each path read by commit before, then the blobs by id.
    async fn load(
        &self,
        kept: &dyn KeptReads,
        wanted: &[Wanted<'_>],
        limit: u64,
        out: &mut [Option<Option<Blob>>],
    ) -> anyhow::Result<()> {
        let mut oids: Vec<(usize, String)> = Vec::new();
        let mut by_commit: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for i in (0..wanted.len()).filter(|i| out[*i].is_none()) {
            match wanted[i].blob {
                Some(oid) => oids.push((i, oid.to_string())),
                None => by_commit.entry(wanted[i].commit).or_default().push(i),
            }
        }
        for (commit, at) in by_commit {
            let paths: Vec<&str> = at.iter().map(|i| wanted[*i].path).collect();
            let found = kept.paths(commit, &paths).await?;
            let found: HashMap<&str, &Option<String>> = found.iter().map(|(path, oid)| (path.as_str(), oid)).collect();
            for i in at {
                match found.get(wanted[i].path) {
                    Some(Some(oid)) => oids.push((i, oid.clone())),
                    Some(None) => {
                        out[i] = Some(None);
                        self.put(&wanted[i], limit, None);
                    }
                    None => {}
                }
            }
        }
        if oids.is_empty() {
            return Ok(());
        }
        let mut unique: Vec<&str> = oids.iter().map(|(_, oid)| oid.as_str()).collect();
        unique.sort_unstable();
        unique.dedup();
        let kept: HashMap<String, Blob> = kept.blobs(limit, &unique).await?.into_iter().collect();
        for (i, oid) in oids {
            if let Some(blob) = kept.get(&oid) {
                out[i] = Some(Some(blob.clone()));
                self.put(&wanted[i], limit, Some((oid, blob.clone())));
            }
        }
        Ok(())
    }

    /// Blobs held, for tests and the bench.
    pub fn blobs_held(&self) -> usize {
        self.blobs.lock().unwrap_or_else(|e| e.into_inner()).contents.values().map(HashMap::len).sum()
    }
}

/// One file to read: `path` at `commit` (a commit id: what a ref names
/// moves), and its blob id when the listing gave it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wanted<'w> {
    pub commit: &'w str,
    pub path: &'w str,
    pub blob: Option<&'w str>,
}

/// `repository { alias: object(expression: …) … }`: the aliased objects.
/// `repository` is null when GitHub cannot see the repository.
#[derive(Debug, Deserialize)]
pub(crate) struct Aliased<T> {
    repository: Option<HashMap<String, Option<T>>>,
}

impl<T> Aliased<T> {
    /// The object under `alias`, taken out.
    pub(crate) fn take(&mut self, alias: &str) -> Option<T> {
        self.repository.as_mut()?.remove(alias).flatten()
    }
}

/// A batched `object(expression:)` query on the repository: `selection`
/// of each expression, the i-th passed as `$<var>i` and answered as `<alias>i`.
pub(crate) fn objects_query<'e>(
    repo: &RepoClient,
    name: &str,
    (var, alias): (&str, &str),
    selection: &str,
    batch: impl Iterator<Item = &'e str>,
) -> (String, serde_json::Value) {
    let mut query = format!("query {name}($owner: String!, $name: String!");
    let mut fields = String::new();
    let mut variables = serde_json::Map::new();
    variables.insert("owner".into(), json!(repo.repo.owner));
    variables.insert("name".into(), json!(repo.repo.name));
    for (i, expression) in batch.enumerate() {
        query.push_str(&format!(", ${var}{i}: String!"));
        fields.push_str(&format!(" {alias}{i}: object(expression: ${var}{i}) {{ {selection} }}"));
        variables.insert(format!("{var}{i}"), json!(expression));
    }
    query.push_str(&format!(") {{ repository(owner: $owner, name: $name) {{{fields} }} }}"));
    (query, serde_json::Value::Object(variables))
}

/// `... on Blob { … }` of an object: the fields GitHub's `Blob` type has
/// (`isBinary` and `text` nullable), tagged by `__typename`.
#[derive(Debug, Deserialize)]
#[serde(tag = "__typename")]
enum GitObject {
    Blob {
        oid: String,
        #[serde(rename = "byteSize")]
        byte_size: u64,
        #[serde(rename = "isBinary")]
        is_binary: Option<bool>,
        #[serde(rename = "isTruncated")]
        is_truncated: bool,
        text: Option<String>,
    },
    Tree,
    Commit,
    Tag,
}

/// Reads the wanted files, from the cache where their blob was read
/// before, the rest in batched GraphQL queries; `None` where no file is.
pub(crate) async fn read(
    repo: &RepoClient,
    wanted: &[Wanted<'_>],
    limit: u64,
    cache: &ReadCache,
) -> Result<Vec<Option<Blob>>, ApiError> {
    let mut out = cache.blobs(wanted, limit);
    if let Some(kept) = &cache.kept
        && let Err(err) = cache.load(kept.as_ref(), wanted, limit, &mut out).await
    {
        tracing::warn!(error = %format!("{err:#}"), "cannot read kept contents; reading them from GitHub");
    }
    let missing: Vec<usize> = (0..wanted.len()).filter(|i| out[*i].is_none()).collect();
    let selection = "__typename ... on Blob { oid byteSize isBinary isTruncated text }";
    for batch in missing.chunks(BATCH) {
        let expressions: Vec<String> =
            batch.iter().map(|i| format!("{}:{}", wanted[*i].commit, wanted[*i].path)).collect();
        let (query, variables) =
            objects_query(repo, "Blobs", ("e", "f"), selection, expressions.iter().map(String::as_str));
        let mut data: Aliased<GitObject> = repo.graphql(&query, variables).await?;
        // A repository GitHub does not show says nothing about its files.
        let answered = data.repository.is_some();
        let (mut kept_blobs, mut kept_paths) = (Vec::new(), Vec::new());
        for (n, i) in batch.iter().enumerate() {
            let read = match data.take(&format!("f{n}")) {
                Some(GitObject::Blob { oid, byte_size, is_binary, is_truncated, text }) => {
                    Some((oid, Blob::new(classify(byte_size, is_binary, is_truncated, text, limit))))
                }
                _ if !answered => continue,
                _ => None,
            };
            out[*i] = Some(read.as_ref().map(|(_, blob)| blob.clone()));
            if cache.kept.is_some() {
                let w = &wanted[*i];
                if w.blob.is_none() {
                    let oid = read.as_ref().map(|(oid, _)| oid.clone());
                    kept_paths.push(ReadPath { commit: w.commit.to_string(), path: w.path.to_string(), oid });
                }
                kept_blobs.extend(read.clone());
            }
            cache.put(&wanted[*i], limit, read);
        }
        if !kept_blobs.is_empty() || !kept_paths.is_empty() {
            let mut unkept = cache.unkept.lock().unwrap_or_else(|e| e.into_inner());
            let read = unkept.blobs.entry(limit).or_default();
            read.blobs.append(&mut kept_blobs);
            read.paths.append(&mut kept_paths);
        }
    }
    Ok(out.into_iter().map(Option::flatten).collect())
}

/// A GraphQL blob as the content rules see.
fn classify(
    byte_size: u64,
    is_binary: Option<bool>,
    is_truncated: bool,
    text: Option<String>,
    limit: u64,
) -> FileContent {
    if byte_size > limit || is_truncated {
        return FileContent::TooLarge { bytes: byte_size, limit };
    }
    if is_binary == Some(true) {
        return FileContent::Binary;
    }
    FileContent::from_bytes(text.unwrap_or_default().as_bytes(), limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_gives_each_files_blob_id() {
        let entry = |p: &str, sha: &str| (p.to_string(), sha.to_string());
        let listing = Listing::new(vec![entry("b/2.md", "22"), entry("a.md", "11"), entry("b/1.md", "21")]);
        assert_eq!(listing.tree.files(), ["a.md", "b/1.md", "b/2.md"]);
        assert_eq!((listing.blob("b/1.md"), listing.blob("b/2.md"), listing.blob("b")), (Some("21"), Some("22"), None));
    }

    #[test]
    fn contents_are_cached_per_blob_and_size_limit() {
        let cache = ReadCache::default();
        let text = FileContent::from_bytes(b"---\nagent: SWARM-AB\n---\n# x\n", 100);
        let wanted = |blob| Wanted { commit: "c0ffee", path: "a.md", blob };
        cache.put(&wanted(Some("aa")), 100, Some(("aa".into(), Blob::new(text.clone()))));
        let found = cache.blobs(&[wanted(Some("aa")), wanted(Some("bb")), wanted(None)], 100);
        let seen = |b: Option<Option<Blob>>| b.map(|b| b.map(|b| (b.content, b.agent)));
        let found: Vec<_> = found.into_iter().map(seen).collect();
        let agent = Some(Arc::from("SWARM-AB"));
        assert_eq!(found, [Some(Some((text.clone(), agent.clone()))), None, None]);
        assert!(cache.blobs(&[wanted(Some("aa"))], 2)[0].is_none(), "another limit may classify the blob otherwise");
        // Read without its blob id, it is found again by commit and path,
        // and so is a path where nothing was.
        cache.put(&wanted(None), 100, Some(("aa".into(), Blob::new(text.clone()))));
        let nothing = Wanted { path: "b.md", ..wanted(None) };
        cache.put(&nothing, 100, None);
        let found: Vec<_> = cache.blobs(&[wanted(None), nothing], 100).into_iter().map(seen).collect();
        assert_eq!(found, [Some(Some((text, agent))), Some(None)]);
    }
}
