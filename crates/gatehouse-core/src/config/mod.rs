//! Repo configuration, `.github/gatehouse.yml`. Always read from the BASE
//! revision (a PR cannot weaken its own gate); defaults mirror the founding
//! documents. Parsing is forgiving: a bad key is reported with its line and
//! its default kept, so a broken config never stops an evaluation.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::docs::yaml::{self, Key, Map, Node};
use crate::model::{FileContent, Files, Severity};

/// Where the repo config lives.
pub const CONFIG_PATH: &str = ".github/gatehouse.yml";

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub briefs: BriefsConfig,
    pub adrs: Paths,
    /// Globs for voting docs.
    pub voting: Paths,
    /// Folders that hold spec folders (`<root>/<spec>/`, `<root>/archive/<spec>/`).
    pub specs: Paths,
    /// Folders that hold decision manifests.
    pub decisions: Paths,
    /// The team's review policy; `None` when the config has no `review:`
    /// key (the gate then requires no approval and requests nobody).
    pub review: Option<ReviewConfig>,
    /// Per-rule severity overrides.
    pub rules: BTreeMap<String, Level>,
    pub limits: Limits,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Paths {
    pub paths: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BriefsConfig {
    pub paths: Vec<String>,
    pub review_threshold: Threshold,
}

/// ADR-099's pilot cut: review when the estimate is over `lines` or more than
/// `repos` repositories are touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threshold {
    pub lines: u64,
    pub repos: u64,
}

/// A review policy. Its knobs default to ADR-099's (2 core approvals, one
/// request for changes tolerated, recusal, approvals of an older head stale);
/// the reviewers are the team's own and have no default.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewConfig {
    pub core_reviewers: Vec<String>,
    pub core_required: u64,
    pub advisory: Vec<String>,
    pub max_changes_requested: u64,
    pub recusal: bool,
    /// An approval given on an earlier head can stop counting (`false`: it
    /// counts whatever is pushed after it).
    pub stale_on_push: bool,
    /// Which pushes end the approvals given before them.
    pub approvals_end_on: ApprovalsEnd,
    pub paths: Vec<String>,
    /// The App asks the reviewers the gate still needs for their review.
    pub request_reviewers: bool,
}

/// `review.approvals_end_on`: which push ends the approvals given before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalsEnd {
    /// A push that changes a document that made the review gate apply (a
    /// brief over the threshold, a tier-2 decision being enacted, a file on a
    /// path the policy names); a rebase, a merge from the base branch or an
    /// edit to other files keeps them.
    DocumentChange,
    /// Every push: an approval counts only on the commit it was given on.
    AnyPush,
}

impl ApprovalsEnd {
    pub const NAMES: [&'static str; 2] = ["document_change", "any_push"];

    pub fn name(self) -> &'static str {
        match self {
            ApprovalsEnd::DocumentChange => "document_change",
            ApprovalsEnd::AnyPush => "any_push",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Documents larger than this are reported, never parsed.
    pub max_file_bytes: u64,
}

/// A configured rule level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
}

impl Default for Config {
    fn default() -> Self {
        Config {
            briefs: BriefsConfig {
                paths: vec!["dark-factory/briefs/*.md".into()],
                review_threshold: Threshold { lines: 100, repos: 1 },
            },
            adrs: Paths {
                paths: vec![
                    "dark-factory/docs/decisions/**/*.md".into(),
                    "docs/decisions/**/*.md".into(),
                    "docs/adr/**/*.md".into(),
                    "doc/adr/**/*.md".into(),
                    "docs/architecture/decisions/**/*.md".into(),
                ],
            },
            voting: Paths { paths: vec!["dark-factory/guidelines/*".into()] },
            specs: Paths { paths: vec!["fondue/specs".into()] },
            decisions: Paths { paths: vec![".harnery/decisions".into()] },
            review: None,
            rules: BTreeMap::new(),
            limits: Limits { max_file_bytes: 1024 * 1024 },
        }
    }
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            core_reviewers: Vec::new(),
            core_required: 2,
            advisory: Vec::new(),
            max_changes_requested: 1,
            recusal: true,
            stale_on_push: true,
            approvals_end_on: ApprovalsEnd::DocumentChange,
            paths: Vec::new(),
            request_reviewers: true,
        }
    }
}

/// The config lines a team adds for a review policy, with placeholder logins.
pub const REVIEW_EXAMPLE: &str =
    "review:\n  core: { reviewers: [alice, bob, carol], required: 2 }\n  advisory: [dana]\n";

impl ReviewConfig {
    /// The policy in one sentence, e.g. "2 of alice, bob, carol approve and
    /// dana reviews".
    pub fn describe(&self) -> String {
        let core = format!("{} of {} approve", self.core_required, self.core_reviewers.join(", "));
        match self.advisory.as_slice() {
            [] => core,
            advisory => {
                format!("{core} and {} {}", advisory.join(", "), if advisory.len() == 1 { "reviews" } else { "review" })
            }
        }
    }
}

/// A problem in the config file, with its line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{CONFIG_PATH}:{line}:{col}: {message}")]
pub struct ConfigError {
    pub line: u32,
    pub col: u32,
    /// How many characters from `col` are at fault (a key, a value as written).
    pub width: u32,
    pub message: String,
}

/// Compiles globs that match `/` only where written (`**` crosses folders).
/// Compiling a set builds its automata (some 0.1 ms each) and every family of
/// every evaluation asks for one, so the sets are kept by their patterns;
/// repositories share a handful of configs between them.
pub fn globset(patterns: &[String]) -> Arc<GlobSet> {
    static COMPILED: Mutex<Vec<(Vec<String>, Arc<GlobSet>)>> = Mutex::new(Vec::new());
    // More distinct configs than this start the memo afresh.
    const KEPT: usize = 256;
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, set)) = compiled.iter().find(|(p, _)| p.as_slice() == patterns) {
        return Arc::clone(set);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        if let Ok(glob) = globset::GlobBuilder::new(pattern).literal_separator(true).build() {
            builder.add(glob);
        }
    }
    let set = Arc::new(builder.build().unwrap_or_else(|_| GlobSet::empty()));
    if compiled.len() == KEPT {
        compiled.clear();
    }
    compiled.push((patterns.to_vec(), Arc::clone(&set)));
    set
}

/// A set of globs or folders that can pick its files out of a sorted file
/// map by their literal prefixes, without testing every path: a PR touching
/// 10 briefs in a repository of thousands of documents stays cheap.
#[derive(Clone, Debug)]
pub struct PathFilter {
    globs: Option<Arc<GlobSet>>,
    folders: Vec<String>,
    /// Literal leading folders; no prefix covers another.
    prefixes: Vec<String>,
}

impl PathFilter {
    pub fn globs(patterns: &[String]) -> PathFilter {
        let prefixes = patterns
            .iter()
            .map(|p| {
                let literal = &p[..p.find(['*', '?', '[', '{', '\\']).unwrap_or(p.len())];
                literal[..literal.rfind('/').map_or(0, |at| at + 1)].to_string()
            })
            .collect();
        PathFilter { globs: Some(globset(patterns)), folders: Vec::new(), prefixes: minimal(prefixes) }
    }

    pub fn folders(folders: &[String]) -> PathFilter {
        let prefixes = folders.iter().map(|f| format!("{}/", f.trim_end_matches('/'))).collect();
        PathFilter { globs: None, folders: folders.to_vec(), prefixes: minimal(prefixes) }
    }

    pub fn is_match(&self, path: &str) -> bool {
        match &self.globs {
            Some(globs) => globs.is_match(path),
            None => under(path, &self.folders),
        }
    }

    /// The entries of `files` this filter matches, in path order.
    pub fn select<'f, 'm>(
        &'f self,
        files: &'m Files,
    ) -> impl Iterator<Item = (&'m String, &'m FileContent)> + use<'f, 'm> {
        self.within(files).filter(move |(path, _)| self.is_match(path))
    }

    /// The entries of `files` under this filter's literal prefixes, in path
    /// order: every entry it matches, and others it does not. (The prefixes
    /// are sorted and none starts another, so their ranges come in order.)
    pub fn within<'f, 'm>(
        &'f self,
        files: &'m Files,
    ) -> impl Iterator<Item = (&'m String, &'m FileContent)> + use<'f, 'm> {
        self.prefixes.iter().flat_map(move |prefix: &'f String| files.with_prefix(prefix))
    }
}

/// Sorted prefixes with those inside another dropped, so no path is listed twice.
fn minimal(mut prefixes: Vec<String>) -> Vec<String> {
    prefixes.sort();
    prefixes.dedup();
    let mut out: Vec<String> = Vec::new();
    for prefix in prefixes {
        if !out.iter().any(|kept| prefix.starts_with(kept.as_str())) {
            out.push(prefix);
        }
    }
    out
}

/// True when `path` lies inside one of the `folders`.
pub fn under(path: &str, folders: &[String]) -> bool {
    folders.iter().any(|folder| {
        let folder = folder.trim_end_matches('/');
        path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'))
    })
}

impl Config {
    /// Parses a config file; returns the config (defaults where the file is
    /// silent or wrong) and every problem found. `is_rule` says which ids
    /// `rules:` may name: the rule registry knows them
    /// (`crate::rules::read_config`).
    pub fn parse(text: &str, is_rule: &dyn Fn(&str) -> bool) -> (Config, Vec<ConfigError>) {
        let mut config = Config::default();
        let mut errors = Vec::new();
        let tree = match yaml::parse(text, 1) {
            Ok(tree) => tree,
            Err(e) => {
                let message = format!("invalid YAML: {}", e.message);
                errors.push(ConfigError { line: e.line, col: e.col, width: e.width, message });
                return (config, errors);
            }
        };
        let root = tree.root();
        if root.is_null() {
            return (config, errors);
        }
        let mut p = Reader { text, errors: &mut errors, is_rule };
        p.section(root, "the config", |p, key, value| match key {
            "briefs" => p.section(value, "briefs", |p, k, v| match k {
                "paths" => p.globs(v, &mut config.briefs.paths),
                "review_threshold" => p.section(v, "briefs.review_threshold", |p, k, v| match k {
                    "lines" => p.uint(v, &mut config.briefs.review_threshold.lines),
                    "repos" => p.uint(v, &mut config.briefs.review_threshold.repos),
                    _ => false,
                }),
                _ => false,
            }),
            "adrs" | "voting" | "specs" | "decisions" => {
                let target = match key {
                    "adrs" => &mut config.adrs.paths,
                    "voting" => &mut config.voting.paths,
                    "specs" => &mut config.specs.paths,
                    _ => &mut config.decisions.paths,
                };
                p.section(value, key, |p, k, v| match k {
                    "paths" => p.globs(v, target),
                    _ => false,
                })
            }
            "review" => p.review(value, &mut config.review),
            "limits" => p.section(value, "limits", |p, k, v| match k {
                "max_file_bytes" => p.uint(v, &mut config.limits.max_file_bytes),
                _ => false,
            }),
            "rules" => p.rules(value, &mut config.rules),
            _ => false,
        });
        (config, errors)
    }
}

struct Reader<'e> {
    /// The config's text, for the span of what is at fault.
    text: &'e str,
    errors: &'e mut Vec<ConfigError>,
    is_rule: &'e dyn Fn(&str) -> bool,
}

impl Reader<'_> {
    /// Reads `review:`; a policy that can never pass (no core reviewers, or
    /// more approvals required than there are reviewers) is an error.
    fn review(&mut self, node: Node, out: &mut Option<ReviewConfig>) -> bool {
        let r = out.get_or_insert_with(ReviewConfig::default);
        let mut core = None;
        self.section(node, "review", |p, k, v| match k {
            "core" => {
                core = Some(v.id());
                p.section(v, "review.core", |p, k, v| match k {
                    "reviewers" => p.strings(v, &mut r.core_reviewers),
                    "required" => p.uint(v, &mut r.core_required),
                    _ => false,
                })
            }
            "advisory" => p.strings(v, &mut r.advisory),
            "max_changes_requested" => p.uint(v, &mut r.max_changes_requested),
            "recusal" => p.bool(v, &mut r.recusal),
            "stale_on_push" => p.bool(v, &mut r.stale_on_push),
            "approvals_end_on" => p.approvals_end(v, &mut r.approvals_end_on),
            "request_reviewers" => p.bool(v, &mut r.request_reviewers),
            "paths" => p.globs(v, &mut r.paths),
            _ => false,
        });
        let reviewers = r.core_reviewers.len() as u64;
        if node.as_map().is_none() {
            return true;
        }
        let message = match core {
            None => "`review` has no `core` reviewers: add `core: { reviewers: [<login>, …], required: <n> }`".into(),
            Some(_) if reviewers == 0 => {
                "`review.core.reviewers` is empty, so no approval could pass the gate: list the team's logins".into()
            }
            Some(_) if r.core_required > reviewers => format!(
                "`review.core.required` is {} but only {reviewers} core {} listed, so the gate could never pass",
                r.core_required,
                if reviewers == 1 { "reviewer is" } else { "reviewers are" }
            ),
            Some(_) => return true,
        };
        self.error(core.map_or(node, |id| node.sibling(id)), message);
        true
    }

    fn error(&mut self, node: Node, message: String) {
        let span = crate::rules::spans::node_span(self.text, node);
        let (line, col, width) = (span.line, span.col, span.end_col - span.col);
        self.errors.push(ConfigError { line, col, width, message });
    }

    fn map<'y>(&mut self, node: Node<'y>, what: &str) -> Option<Map<'y>> {
        let entries = node.as_map();
        if entries.is_none() {
            self.error(node, format!("{what} must be a mapping of `key: value`, found {}", node.type_name()));
        }
        entries
    }

    fn unknown(&mut self, key: &Key, section: &str) {
        self.errors.push(ConfigError {
            line: key.line,
            col: key.col,
            width: key.name.chars().count() as u32,
            message: format!(
                "unknown key `{}` in {section}; the README's configuration section lists every key",
                key.name
            ),
        });
    }

    /// Reads a mapping section; `field` returns false for keys it does not
    /// know. Every reader below returns true: the key was known and read
    /// (or reported).
    fn section(&mut self, node: Node, name: &str, mut field: impl FnMut(&mut Self, &str, Node) -> bool) -> bool {
        let Some(entries) = self.map(node, &format!("`{name}`")) else { return true };
        for (key, value) in entries.iter() {
            if !field(self, key.name, value) {
                self.unknown(&key, name);
            }
        }
        true
    }

    fn uint(&mut self, node: Node, out: &mut u64) -> bool {
        match node.as_i64() {
            Some(v) if v >= 0 => *out = v as u64,
            _ => self.error(node, format!("expected a non-negative integer, found {}", node.type_name())),
        }
        true
    }

    fn bool(&mut self, node: Node, out: &mut bool) -> bool {
        match node.as_bool() {
            Some(v) => *out = v,
            None => self.error(node, format!("expected true or false, found {}", node.type_name())),
        }
        true
    }

    fn approvals_end(&mut self, node: Node, out: &mut ApprovalsEnd) -> bool {
        match node.scalar_text() {
            Some("document_change") => *out = ApprovalsEnd::DocumentChange,
            Some("any_push") => *out = ApprovalsEnd::AnyPush,
            other => {
                let found = other.map_or_else(|| node.type_name().to_string(), |v| format!("`{v}`"));
                self.error(node, format!("`review.approvals_end_on` is `document_change` or `any_push`, found {found}"))
            }
        }
        true
    }

    fn strings(&mut self, node: Node, out: &mut Vec<String>) -> bool {
        let Some(items) = node.as_seq() else {
            self.error(node, format!("expected a list of strings, found {}", node.type_name()));
            return true;
        };
        let mut values = Vec::new();
        for item in items.iter() {
            match item.scalar_text() {
                Some(s) if !s.is_empty() => values.push(s.to_string()),
                _ => self.error(item, format!("expected a string, found {}", item.type_name())),
            }
        }
        *out = values;
        true
    }

    fn globs(&mut self, node: Node, out: &mut Vec<String>) -> bool {
        let mut values = Vec::new();
        self.strings(node, &mut values);
        let Some(items) = node.as_seq() else { return true };
        let mut valid = Vec::new();
        for (value, item) in
            values.into_iter().zip(items.iter().filter(|i| i.scalar_text().is_some_and(|s| !s.is_empty())))
        {
            if let Err(e) = Glob::new(&value) {
                self.error(item, format!("`{value}` is not a valid glob: {}", e.kind()));
            } else if value.starts_with('/') || value.split('/').any(|seg| seg == "..") {
                self.error(item, format!("`{value}` must be relative to the repository root, without `..`"));
            } else {
                valid.push(value);
            }
        }
        *out = valid;
        true
    }

    fn rules(&mut self, node: Node, out: &mut BTreeMap<String, Level>) -> bool {
        let Some(entries) = self.map(node, "`rules`") else { return true };
        for (key, value) in entries.iter() {
            if !(self.is_rule)(key.name) {
                self.errors.push(ConfigError {
                    line: key.line,
                    col: key.col,
                    width: key.name.chars().count() as u32,
                    message: format!("unknown rule `{}`; `gatehouse rules` lists every rule id", key.name),
                });
                continue;
            }
            let level = match value.scalar_text() {
                Some("off") => Level::Off,
                Some("error") => Level::On(Severity::Error),
                Some("warning") => Level::On(Severity::Warning),
                Some("notice") => Level::On(Severity::Notice),
                _ => {
                    self.error(
                        value,
                        format!("rule level must be off, error, warning or notice, found {}", value.type_name()),
                    );
                    continue;
                }
            };
            out.insert(key.name.to_string(), level);
        }
        true
    }
}

#[cfg(test)]
mod tests;
