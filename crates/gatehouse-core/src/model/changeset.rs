use std::collections::BTreeMap;
use std::sync::Arc;

use super::{AgentIndex, Files};
use crate::config::Config;
use crate::config::inherit::Inheritance;

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
    /// A symbolic link, read as git stores it (the path it points to) and
    /// never followed; `outside` when that path leads out of the repository.
    Link {
        target: String,
        outside: bool,
    },
    /// A FIFO, socket or device ("a named pipe"): never opened.
    NotAFile {
        kind: &'static str,
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
            (FileContent::Link { target: a, outside: x }, FileContent::Link { target: b, outside: y }) => {
                a == b && x == y
            }
            (FileContent::NotAFile { kind: a }, FileContent::NotAFile { kind: b }) => a == b,
            _ => false,
        }
    }
}

/// Whether `text` has a `\r` not followed by `\n`.
fn lone_carriage_returns(text: &str) -> bool {
    memchr::memchr_iter(b'\r', text.as_bytes()).any(|at| text.as_bytes().get(at + 1) != Some(&b'\n'))
}

impl FileContent {
    /// Classify raw bytes the way every source must. A UTF-8 byte-order
    /// mark, which editors on Windows write, is no part of the text: every
    /// family reads a document without it, and positions are unchanged. A
    /// lone `\r` ends a line in CommonMark (§2.1), YAML (§5.4) and JSON's
    /// whitespace alike: it is read as `\n`, one byte for one, so that every
    /// reader counts the lines the standards count.
    pub fn from_bytes(bytes: &[u8], limit: u64) -> FileContent {
        if bytes.len() as u64 > limit {
            return FileContent::TooLarge { bytes: bytes.len() as u64, limit };
        }
        if bytes.contains(&0) {
            return FileContent::Binary;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                let text = text.strip_prefix('\u{feff}').unwrap_or(text);
                if lone_carriage_returns(text) {
                    // A text with a NUL byte is binary (above): NUL marks each `\r\n` here.
                    let ends = text.replace("\r\n", "\u{0}").replace('\r', "\n").replace('\u{0}', "\r\n");
                    FileContent::Text(Arc::from(ends))
                } else {
                    FileContent::Text(Arc::from(text))
                }
            }
            Err(err) => {
                let line = bytes[..err.valid_up_to()].iter().filter(|b| **b == b'\n').count() + 1;
                FileContent::InvalidUtf8 { line: line as u32 }
            }
        }
    }

    /// A symbolic link at `path` (repo-relative) pointing to `target`.
    pub fn link(path: &str, target: &str) -> FileContent {
        FileContent::Link { target: target.to_string(), outside: leaves_repository(path, target) }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            FileContent::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// True when a link at `path` (repo-relative, `/`-separated) pointing to
/// `target` leads out of the repository: an absolute target, or more `..`
/// than the link has folders above it.
pub(super) fn leaves_repository(path: &str, target: &str) -> bool {
    if target.starts_with('/') || target.starts_with('\\') || target.get(1..2) == Some(":") {
        return true;
    }
    let mut depth = path.split('/').count() as i64 - 1;
    for part in target.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

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

/// The repo name under which a source registers a checkout whose
/// `owner/name` it does not know.
pub const LOCAL_REPO: &str = ".";

/// What path checks may know about repositories: their trees at the
/// revisions a source could read. `rev: None` is the repo's current state (the
/// PR head for the PR's own repo).
#[derive(Clone, Debug, Default)]
pub struct RepoIndex {
    trees: BTreeMap<(String, Option<String>), Arc<RepoTree>>,
    /// Single paths at a revision whose whole tree was not listed (the App
    /// asks GitHub for exactly the paths documents pin): (repo, rev, path
    /// without a trailing `/`) → what is there.
    objects: BTreeMap<(String, String, String), Object>,
}

/// What one path is at one revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    File,
    Dir,
    Absent,
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

    /// Records what `path` is in `repo` at `rev` (the revision resolved).
    pub fn insert_object(&mut self, repo: &str, rev: &str, path: &str, object: Object) {
        let key = (repo.to_ascii_lowercase(), rev.to_string(), path.trim_end_matches('/').to_string());
        self.objects.insert(key, object);
    }

    /// Looks `path` up in `repo` at `rev`; a trailing `/` asks for a directory.
    pub fn lookup(&self, repo: &str, rev: Option<&str>, path: &str) -> PathLookup {
        let Some(tree) = self.tree(repo, rev) else {
            let key =
                rev.map(|rev| (repo.to_ascii_lowercase(), rev.to_string(), path.trim_end_matches('/').to_string()));
            return match key.and_then(|k| self.objects.get(&k)) {
                None => PathLookup::Unknown,
                Some(Object::Dir) => PathLookup::Exists,
                Some(Object::File) if !path.ends_with('/') => PathLookup::Exists,
                Some(_) => PathLookup::Missing,
            };
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
    /// The files the repository's config extends, as read; `config` is
    /// merged from them and the base's file.
    pub inheritance: Inheritance,
    /// Commit ids known to be in the repository's history: every commit
    /// reachable from a ref (git mode), or the full ids of the commits
    /// documents name that GitHub found (the App). `None` when the source
    /// cannot tell.
    pub history: Option<std::collections::BTreeSet<String>>,
    /// The agent ids of the head's documents, when the source derived them
    /// (it must cover every text document of `head` that has one); the
    /// rules derive them from `head` otherwise.
    pub agents: Option<Arc<AgentIndex>>,
    /// The CODEOWNERS file at the BASE (the first of
    /// [`crate::owners::LOCATIONS`] there), as the review gate reads it.
    pub codeowners: Option<crate::owners::BaseFile>,
    /// Errors in that file only GitHub can know ("Unknown owner"), from its
    /// "List CODEOWNERS errors" at the base.
    pub github_owner_errors: Vec<crate::owners::CodeownersError>,
    /// The base branch's review rules (rulesets, branch protection).
    pub branch_rules: crate::owners::ReviewRules,
}

impl ChangeSet {
    /// Whether the change adds, modifies or deletes the file at `path`, or
    /// it is the pull request's body (which the change always writes).
    pub fn touches(&self, path: &str) -> bool {
        path == PR_BODY || self.base.get(path) != self.head.get(path)
    }

    /// Paths whose head content differs from the base (added or modified).
    pub fn changed(&self) -> impl Iterator<Item = (&str, &FileContent)> {
        match self.touched() {
            Some(touched) => Either::Touched(self.changed_among(touched)),
            None => {
                let mut base = InOrder::new(self.base.iter());
                Either::Walked(
                    self.head
                        .iter()
                        .filter(move |(path, content)| base.get(path) != Some(content))
                        .map(|(path, content)| (path.as_str(), content)),
                )
            }
        }
    }

    /// Added or modified paths that `filter` matches.
    pub fn changed_in<'a, 'f>(
        &'a self,
        filter: &'f crate::config::PathFilter,
    ) -> impl Iterator<Item = (&'a str, &'a FileContent)> + use<'a, 'f> {
        match self.touched() {
            Some(touched) => Either::Touched(self.changed_among(touched.filter(|path| filter.is_match(path)))),
            None => {
                let mut base = InOrder::new(filter.within(&self.base));
                Either::Walked(
                    filter
                        .select(&self.head)
                        .filter(move |(path, content)| base.get(path) != Some(content))
                        .map(|(path, content)| (path.as_str(), content)),
                )
            }
        }
    }

    /// Paths that `filter` matches, on the base and gone from the head.
    pub fn deleted_in<'a, 'f>(
        &'a self,
        filter: &'f crate::config::PathFilter,
    ) -> impl Iterator<Item = &'a str> + use<'a, 'f> {
        match self.touched() {
            Some(touched) => Either::Touched(self.deleted_among(touched.filter(|path| filter.is_match(path)))),
            None => {
                let mut head = InOrder::new(filter.within(&self.head));
                Either::Walked(
                    filter
                        .select(&self.base)
                        .filter(move |(path, _)| head.get(path).is_none())
                        .map(|(path, _)| path.as_str()),
                )
            }
        }
    }

    /// Paths present on the base and gone from the head.
    pub fn deleted(&self) -> impl Iterator<Item = &str> {
        match self.touched() {
            Some(touched) => Either::Touched(self.deleted_among(touched)),
            None => {
                let mut head = InOrder::new(self.head.iter());
                Either::Walked(self.base.keys().filter(move |path| head.get(path).is_none()).map(String::as_str))
            }
        }
    }

    /// When the base and the head lie over one shared map, the paths laid
    /// over it: the only ones whose content can differ, so the questions
    /// above look at those alone. `None` when the sides share nothing and
    /// must be walked in step.
    fn touched(&self) -> Option<impl Iterator<Item = &str>> {
        self.base.touched_with(&self.head)
    }

    fn changed_among<'a>(
        &'a self,
        paths: impl Iterator<Item = &'a str>,
    ) -> impl Iterator<Item = (&'a str, &'a FileContent)> {
        let mut last = None;
        paths.filter(move |p| last.replace(*p) != Some(*p)).filter_map(|path| {
            let (path, content) = self.head.get_key_value(path)?;
            (self.base.get(path) != Some(content)).then_some((path.as_str(), content))
        })
    }

    fn deleted_among<'a>(&'a self, paths: impl Iterator<Item = &'a str>) -> impl Iterator<Item = &'a str> {
        let mut last = None;
        paths.filter(move |p| last.replace(*p) != Some(*p)).filter_map(|path| {
            let (path, _) = self.base.get_key_value(path)?;
            (!self.head.contains_key(path)).then_some(path.as_str())
        })
    }
}

/// One of two iterators of one item type.
enum Either<T, W> {
    Touched(T),
    Walked(W),
}

impl<I, T: Iterator<Item = I>, W: Iterator<Item = I>> Iterator for Either<T, W> {
    type Item = I;

    fn next(&mut self) -> Option<I> {
        match self {
            Either::Touched(it) => it.next(),
            Either::Walked(it) => it.next(),
        }
    }
}

/// Lookups in a file map walked in path order, for paths asked in ascending
/// order: "what did the change touch" pairs every path of one revision with
/// the other's, and walking both costs one comparison a path where a tree
/// search costs a dozen.
struct InOrder<'m, I: Iterator<Item = (&'m String, &'m FileContent)>> {
    entries: std::iter::Peekable<I>,
}

impl<'m, I: Iterator<Item = (&'m String, &'m FileContent)>> InOrder<'m, I> {
    fn new(entries: I) -> Self {
        InOrder { entries: entries.peekable() }
    }

    /// The content at `path`; `path` must not sort before an earlier one.
    fn get(&mut self, path: &str) -> Option<&'m FileContent> {
        while self.entries.next_if(|(p, _)| p.as_str() < path).is_some() {}
        self.entries.next_if(|(p, _)| p.as_str() == path).map(|(_, content)| content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PathFilter;

    fn files(entries: &[(&str, &str)]) -> Files {
        entries.iter().map(|(p, t)| (p.to_string(), FileContent::Text(Arc::from(*t)))).collect()
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_as_the_standards_say() {
        let read = |bytes: &[u8]| FileContent::from_bytes(bytes, u64::MAX).text().map(str::to_string);
        assert_eq!(read(b"a\rb\r\nc\r"), Some("a\nb\r\nc\n".to_string()));
        assert_eq!(read(b"\xef\xbb\xbfa\r\nb"), Some("a\r\nb".to_string()));
    }

    #[test]
    fn links_that_leave_the_repository() {
        for (path, target) in
            [("a.md", "/etc/passwd"), ("a.md", "../x.md"), ("d/a.md", "../../x"), ("d/a.md", "e/../../../x")]
        {
            assert!(leaves_repository(path, target), "{path} -> {target}");
        }
        for (path, target) in [("a.md", "b.md"), ("d/a.md", "../b.md"), ("d/a.md", "./e/../f/./b.md")] {
            assert!(!leaves_repository(path, target), "{path} -> {target}");
        }
    }

    /// The ordered walks give what a lookup per path gives.
    #[test]
    fn changed_and_deleted_paths_match_lookups() {
        let base = files(&[("a/1", "x"), ("a/2", "x"), ("a/3", "x"), ("b/1", "x"), ("c/9", "x"), ("d/1", "x")]);
        let head = files(&[("a/0", "n"), ("a/2", "x"), ("a/3", "y"), ("b/2", "n"), ("c/9", "x"), ("e/1", "n")]);
        let changes = ChangeSet { base, head, ..Default::default() };
        let changed: Vec<&str> = changes.changed().map(|(p, _)| p).collect();
        assert_eq!(changed, ["a/0", "a/3", "b/2", "e/1"]);
        assert_eq!(changes.deleted().collect::<Vec<_>>(), ["a/1", "b/1", "d/1"]);
        let filter = PathFilter::folders(&["b".into(), "a".into(), "d".into()]);
        let changed: Vec<&str> = changes.changed_in(&filter).map(|(p, _)| p).collect();
        assert_eq!(changed, ["a/0", "a/3", "b/2"]);
        assert_eq!(changes.deleted_in(&filter).collect::<Vec<_>>(), ["a/1", "b/1", "d/1"]);
        let globs = PathFilter::globs(&["a/[13]".into(), "d/*".into()]);
        assert_eq!(changes.changed_in(&globs).map(|(p, _)| p).collect::<Vec<_>>(), ["a/3"]);
        assert_eq!(changes.deleted_in(&globs).collect::<Vec<_>>(), ["a/1", "d/1"]);
    }

    #[test]
    fn single_objects_answer_lookups_at_their_revision() {
        let mut index = RepoIndex::default();
        index.insert_object("Acme/Docs", "v1.2", "scripts/", Object::Dir);
        index.insert_object("acme/docs", "v1.2", "scripts/a.sh", Object::File);
        index.insert_object("acme/docs", "v1.2", "b.sh", Object::Absent);
        assert_eq!(index.lookup("acme/docs", Some("v1.2"), "scripts/"), PathLookup::Exists);
        assert_eq!(index.lookup("ACME/docs", Some("v1.2"), "scripts"), PathLookup::Exists);
        assert_eq!(index.lookup("acme/docs", Some("v1.2"), "scripts/a.sh"), PathLookup::Exists);
        assert_eq!(index.lookup("acme/docs", Some("v1.2"), "scripts/a.sh/"), PathLookup::Missing);
        assert_eq!(index.lookup("acme/docs", Some("v1.2"), "b.sh"), PathLookup::Missing);
        assert_eq!(index.lookup("acme/docs", Some("v1.2"), "c.sh"), PathLookup::Unknown);
        assert_eq!(index.lookup("acme/docs", Some("main"), "b.sh"), PathLookup::Unknown);
        assert_eq!(index.lookup("acme/docs", None, "b.sh"), PathLookup::Unknown);
    }

    proptest::proptest! {
        /// What the change touched, asked of two maps walked in step or of
        /// two overlays on one shared map, is what looking each path up says.
        #[test]
        fn walks_and_overlays_equal_lookups(
            shared in proptest::collection::btree_map("[ab]/[0-3]", "[xy]", 0..10),
            base_over in proptest::collection::btree_map("[ab]/[0-3]", proptest::option::of("[xy]"), 0..6),
            head_over in proptest::collection::btree_map("[ab]/[0-3]", proptest::option::of("[xy]"), 0..6),
            layered in proptest::bool::ANY,
        ) {
            let text = |t: String| FileContent::Text(Arc::from(t));
            let shared: Arc<BTreeMap<String, FileContent>> =
                Arc::new(shared.into_iter().map(|(p, t)| (p, text(t))).collect());
            let side = |over: BTreeMap<String, Option<String>>| {
                let mut files = Files::over(shared.clone());
                for (path, t) in over {
                    match t {
                        Some(t) => files.insert(path, text(t)),
                        None => files.remove(&path),
                    }
                }
                if layered { files } else { files.into_iter().collect() }
            };
            let changes = ChangeSet { base: side(base_over), head: side(head_over), ..Default::default() };
            let (base, head) = (&changes.base, &changes.head);
            let changed: Vec<&str> =
                head.iter().filter(|(p, c)| base.get(p) != Some(c)).map(|(p, _)| p.as_str()).collect();
            let deleted: Vec<&str> = base.keys().filter(|p| !head.contains_key(p)).map(String::as_str).collect();
            proptest::prop_assert_eq!(changes.changed().map(|(p, _)| p).collect::<Vec<_>>(), changed.clone());
            proptest::prop_assert_eq!(changes.deleted().collect::<Vec<_>>(), deleted.clone());
            let a = PathFilter::folders(&["a".into()]);
            let under_a = |p: &&str| p.starts_with("a/");
            let changed_a: Vec<&str> = changed.into_iter().filter(under_a).collect();
            let deleted_a: Vec<&str> = deleted.into_iter().filter(under_a).collect();
            proptest::prop_assert_eq!(changes.changed_in(&a).map(|(p, _)| p).collect::<Vec<_>>(), changed_a);
            proptest::prop_assert_eq!(changes.deleted_in(&a).collect::<Vec<_>>(), deleted_a);
        }
    }
}
