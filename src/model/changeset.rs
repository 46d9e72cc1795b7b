use std::collections::BTreeMap;
use std::sync::Arc;

use crate::config::Config;

/// The content of one file at one revision, as the source could read it.
/// Sources never hand a rule more than the size limit: a larger file arrives
/// as `TooLarge` and is reported, never parsed.
#[derive(Clone, Debug, Eq)]
pub enum FileContent {
    Text(Arc<str>),
    /// Contains NUL bytes: not a document.
    Binary,
    /// Not UTF-8; `line` is where the first bad byte sits.
    InvalidUtf8 {
        line: u32,
    },
    TooLarge {
        bytes: u64,
        limit: u64,
    },
}

impl PartialEq for FileContent {
    /// Shared text (a base and a head read from one blob) compares by
    /// pointer: `Arc<str>`'s own equality always compares the bytes, and
    /// "what did the change touch" asks this for every document.
    fn eq(&self, other: &FileContent) -> bool {
        match (self, other) {
            (FileContent::Text(a), FileContent::Text(b)) => Arc::ptr_eq(a, b) || a == b,
            (FileContent::Binary, FileContent::Binary) => true,
            (FileContent::InvalidUtf8 { line: a }, FileContent::InvalidUtf8 { line: b }) => a == b,
            (FileContent::TooLarge { bytes: a, limit: x }, FileContent::TooLarge { bytes: b, limit: y }) => {
                a == b && x == y
            }
            _ => false,
        }
    }
}

impl FileContent {
    /// Classify raw bytes the way every source must.
    pub fn from_bytes(bytes: &[u8], limit: u64) -> FileContent {
        if bytes.len() as u64 > limit {
            return FileContent::TooLarge { bytes: bytes.len() as u64, limit };
        }
        if bytes.contains(&0) {
            return FileContent::Binary;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => FileContent::Text(Arc::from(text)),
            Err(err) => {
                let line = bytes[..err.valid_up_to()].iter().filter(|b| **b == b'\n').count() + 1;
                FileContent::InvalidUtf8 { line: line as u32 }
            }
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            FileContent::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// Repo-relative path → content. Ordered, so every report is deterministic.
pub type Files = BTreeMap<String, FileContent>;

/// The path findings about the pull request's body are reported under.
pub const PR_BODY: &str = "(pull request body)";

/// Optional pull-request metadata.
#[derive(Clone, Debug, Default)]
pub struct PrInfo {
    pub body: Option<String>,
    /// Every file the pull request changes, with its line counts, when the
    /// source knows them (not with `--all`).
    pub files: Option<Vec<ChangedFile>>,
}

/// One file of a pull request's diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: String,
    pub additions: u64,
    pub deletions: u64,
}

/// The file listing of one repository at one revision.
#[derive(Clone, Debug, Default)]
pub struct RepoTree {
    /// Sorted, repo-relative file paths.
    files: Vec<String>,
}

impl RepoTree {
    pub fn new(mut files: Vec<String>) -> RepoTree {
        files.sort_unstable();
        files.dedup();
        RepoTree { files }
    }

    pub fn contains_file(&self, path: &str) -> bool {
        self.files.binary_search_by(|p| p.as_str().cmp(path)).is_ok()
    }

    pub fn contains_dir(&self, dir: &str) -> bool {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let at = self.files.partition_point(|p| p.as_str() < prefix.as_str());
        self.files.get(at).is_some_and(|p| p.starts_with(&prefix))
    }

    pub fn files(&self) -> &[String] {
        &self.files
    }
}

/// What path checks may know about repositories: their trees at the
/// revisions a source could read. `rev: None` is the repo's current state (the
/// PR head for the PR's own repo).
#[derive(Clone, Debug, Default)]
pub struct RepoIndex {
    trees: BTreeMap<(String, Option<String>), Arc<RepoTree>>,
}

/// The answer to "does this path exist there?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathLookup {
    Exists,
    Missing,
    /// The repo (or that revision of it) could not be read here.
    Unknown,
}

impl RepoIndex {
    pub fn insert(&mut self, repo: &str, rev: Option<&str>, tree: Arc<RepoTree>) {
        self.trees.insert((repo.to_ascii_lowercase(), rev.map(str::to_string)), tree);
    }

    pub fn tree(&self, repo: &str, rev: Option<&str>) -> Option<&RepoTree> {
        self.trees.get(&(repo.to_ascii_lowercase(), rev.map(str::to_string))).map(Arc::as_ref)
    }

    /// Looks `path` up in `repo` at `rev`; a trailing `/` asks for a directory.
    pub fn lookup(&self, repo: &str, rev: Option<&str>, path: &str) -> PathLookup {
        let Some(tree) = self.tree(repo, rev) else {
            return PathLookup::Unknown;
        };
        let found = if path.ends_with('/') {
            tree.contains_dir(path)
        } else {
            tree.contains_file(path) || tree.contains_dir(path)
        };
        if found { PathLookup::Exists } else { PathLookup::Missing }
    }
}

/// Everything the rules may look at for one evaluation: the relevant files at
/// the base and at the head, what is known of the repositories, the PR's
/// metadata and the effective (base) configuration. Plain data.
#[derive(Clone, Debug, Default)]
pub struct ChangeSet {
    /// `owner/name` of the repository under evaluation, when known.
    pub repo: Option<String>,
    pub base: Files,
    pub head: Files,
    pub pr: PrInfo,
    pub repos: RepoIndex,
    pub config: Config,
    /// Commit ids known to be in the repository's history (git mode only);
    /// `None` when the source cannot tell.
    pub history: Option<std::collections::BTreeSet<String>>,
}

impl ChangeSet {
    /// Paths whose head content differs from the base (added or modified).
    pub fn changed(&self) -> impl Iterator<Item = (&str, &FileContent)> {
        self.head
            .iter()
            .filter(|(path, content)| self.base.get(*path) != Some(content))
            .map(|(path, content)| (path.as_str(), content))
    }

    /// Added or modified paths that `filter` matches.
    pub fn changed_in<'a, 'f>(
        &'a self,
        filter: &'f crate::config::PathFilter,
    ) -> impl Iterator<Item = (&'a str, &'a FileContent)> + use<'a, 'f> {
        filter
            .select(&self.head)
            .filter(|(path, content)| self.base.get(*path) != Some(content))
            .map(|(path, content)| (path.as_str(), content))
    }

    /// Paths that `filter` matches, on the base and gone from the head.
    pub fn deleted_in<'a, 'f>(
        &'a self,
        filter: &'f crate::config::PathFilter,
    ) -> impl Iterator<Item = &'a str> + use<'a, 'f> {
        filter.select(&self.base).filter(|(path, _)| !self.head.contains_key(*path)).map(|(path, _)| path.as_str())
    }

    /// Paths present on the base and gone from the head.
    pub fn deleted(&self) -> impl Iterator<Item = &str> {
        self.base.keys().filter(|path| !self.head.contains_key(*path)).map(String::as_str)
    }
}
