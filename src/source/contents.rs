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
//! document's new side, its base side, the config). The ChangeSet is then
//! the one a full read builds, so the pure rules see the same input.
//! The first evaluation of a repository still reads all of its documents.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::json;

use crate::github::{ApiError, RepoClient};
use crate::model::{FileContent, RepoTree};

/// Expressions per GraphQL query.
pub(crate) const BATCH: usize = 250;

/// Text kept in the blob cache before it starts over (bytes).
const BLOB_CACHE_BYTES: usize = 256 << 20;

/// Trees kept before the tree cache starts over.
const TREE_CACHE_LIMIT: usize = 64;

/// A commit's recursive listing: its files, and each file's blob id.
#[derive(Debug)]
pub struct Listing {
    pub tree: Arc<RepoTree>,
    /// (path, blob id), sorted by path.
    blobs: Vec<(String, String)>,
}

impl Listing {
    pub fn new(mut blobs: Vec<(String, String)>) -> Listing {
        blobs.sort_unstable();
        blobs.dedup_by(|a, b| a.0 == b.0);
        let tree = Arc::new(RepoTree::new(blobs.iter().map(|(path, _)| path.clone()).collect()));
        Listing { tree, blobs }
    }

    /// The blob id of the file at `path`.
    pub fn blob(&self, path: &str) -> Option<&str> {
        let at = self.blobs.binary_search_by(|(p, _)| p.as_str().cmp(path)).ok()?;
        Some(&self.blobs[at].1)
    }
}

/// Listings by (repo, commit) and contents by (blob id, size limit), shared
/// by the jobs of one process. Neither a commit's tree nor a blob's content
/// ever changes, so entries never go stale.
#[derive(Debug, Default)]
pub struct ReadCache {
    trees: Mutex<HashMap<(String, String), Arc<Listing>>>,
    blobs: Mutex<BlobCache>,
}

#[derive(Debug, Default)]
struct BlobCache {
    contents: HashMap<(String, u64), FileContent>,
    bytes: usize,
}

impl ReadCache {
    pub(crate) fn tree(&self, repo: &str, sha: &str) -> Option<Arc<Listing>> {
        self.trees.lock().unwrap_or_else(|e| e.into_inner()).get(&(repo.to_string(), sha.to_string())).cloned()
    }

    pub(crate) fn put_tree(&self, repo: &str, sha: &str, listing: Arc<Listing>) {
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        if trees.len() >= TREE_CACHE_LIMIT {
            trees.clear();
        }
        trees.insert((repo.to_string(), sha.to_string()), listing);
    }

    fn blob(&self, oid: &str, limit: u64) -> Option<FileContent> {
        let cache = self.blobs.lock().unwrap_or_else(|e| e.into_inner());
        cache.contents.get(&(oid.to_string(), limit)).cloned()
    }

    fn put_blob(&self, oid: String, limit: u64, content: FileContent) {
        let size = content.text().map_or(0, str::len) + oid.len();
        let mut cache = self.blobs.lock().unwrap_or_else(|e| e.into_inner());
        if cache.bytes + size > BLOB_CACHE_BYTES {
            cache.contents.clear();
            cache.bytes = 0;
        }
        cache.bytes += size;
        cache.contents.insert((oid, limit), content);
    }

    /// Blobs held, for tests and the bench.
    pub fn blobs_held(&self) -> usize {
        self.blobs.lock().unwrap_or_else(|e| e.into_inner()).contents.len()
    }
}

/// One file to read: `<commit>:<path>`, and its blob id when the listing
/// gave it (then the cache may answer).
#[derive(Debug)]
pub struct Wanted {
    pub expression: String,
    pub blob: Option<String>,
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
pub async fn read(
    repo: &RepoClient,
    wanted: &[Wanted],
    limit: u64,
    cache: &ReadCache,
) -> Result<Vec<Option<FileContent>>, ApiError> {
    let mut out: Vec<Option<FileContent>> =
        wanted.iter().map(|w| w.blob.as_deref().and_then(|oid| cache.blob(oid, limit))).collect();
    let missing: Vec<usize> = (0..wanted.len()).filter(|i| out[*i].is_none()).collect();
    let selection = "__typename ... on Blob { oid byteSize isBinary isTruncated text }";
    for batch in missing.chunks(BATCH) {
        let expressions = batch.iter().map(|i| wanted[*i].expression.as_str());
        let (query, variables) = objects_query(repo, "Blobs", ("e", "f"), selection, expressions);
        let mut data: Aliased<GitObject> = repo.graphql(&query, variables).await?;
        for (n, i) in batch.iter().enumerate() {
            let Some(GitObject::Blob { oid, byte_size, is_binary, is_truncated, text }) = data.take(&format!("f{n}"))
            else {
                continue;
            };
            let content = classify(byte_size, is_binary, is_truncated, text, limit);
            cache.put_blob(oid, limit, content.clone());
            out[*i] = Some(content);
        }
    }
    Ok(out)
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
        cache.put_blob("aa".into(), 100, FileContent::from_bytes(b"# x\n", 100));
        assert_eq!(cache.blob("aa", 100), Some(FileContent::from_bytes(b"# x\n", 100)));
        assert_eq!(cache.blob("aa", 2), None, "another limit may classify the blob otherwise");
        assert_eq!(cache.blob("bb", 100), None);
    }
}
