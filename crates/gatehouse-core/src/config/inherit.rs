//! One policy for many repositories: a config that `extends:` another file
//! (an organisation's `gatehouse.yml`, which may extend one more), merged
//! key by key, with the keys an extended file locks or floors.
//!
//! Pure: the caller reads the files. [`wanted`] names the next file the
//! chain needs that the caller has not supplied; [`resolve`] merges what
//! was supplied. Every problem (a file that cannot be read, a cycle, a
//! chain too long, a refused value) is a [`Problem`] positioned in the
//! repository's own file, so it is reported on the repository's
//! `gatehouse/config` check and never passes unseen.

use std::collections::BTreeMap;
use std::fmt;

use super::keys::{self, KEY_RULES, RULES_PREFIX, Value, level_rank};
use super::read::{FileRead, Pos, Reader, read_over, unpassable_review};
use super::{CONFIG_PATH, Config, ConfigError, Level};
use crate::docs::yaml::{self, Node};
use crate::model::Severity;
use crate::suggest::{did_you_mean, nearest};

/// The most files one chain may extend above the repository's own.
pub const MAX_EXTENDED: usize = 4;

/// The file an `extends: OWNER/REPO` names: `gatehouse.yml` at the root of
/// that repository's default branch.
pub const SHARED_CONFIG_PATH: &str = "gatehouse.yml";

/// A file a config extends: a repository's file (`acme/.github` is
/// `acme/.github:gatehouse.yml`), or a file given on the command line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Source {
    /// `owner/name`; `None` for a file on disk.
    pub repo: Option<String>,
    pub path: String,
}

impl Source {
    /// Reads `OWNER/REPO` or `OWNER/REPO:PATH`; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Source, String> {
        let (repo, path) = text.split_once(':').unwrap_or((text, SHARED_CONFIG_PATH));
        let valid_part = |part: &str| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        match repo.split_once('/') {
            Some((owner, name)) if valid_part(owner) && valid_part(name) => {}
            _ => return Err(format!("must name a repository as `owner/name`, found `{repo}`")),
        }
        if path.is_empty() || path.starts_with('/') || path.split('/').any(|seg| seg == "..") {
            return Err(format!("must name a file relative to the repository's root, found `{path}`"));
        }
        Ok(Source { repo: Some(repo.to_string()), path: path.to_string() })
    }

    /// A file on disk, named as given.
    pub fn file(path: impl Into<String>) -> Source {
        Source { repo: None, path: path.into() }
    }

    /// The source a dependency index entry's path names (`acme/.github:
    /// gatehouse.yml`, as [`Source`] displays), when it names one rather
    /// than a file of the repository.
    pub fn of_dependency(path: &str) -> Option<Source> {
        path.contains(':').then(|| Source::parse(path).ok()).flatten()
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repo {
            Some(repo) => write!(f, "{repo}:{}", self.path),
            None => f.write_str(&self.path),
        }
    }
}

/// An extended file as its reader found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parent {
    Text(String),
    /// Why it cannot be read (no such repository, no access, no such file,
    /// not text), in words a person acts on.
    Unreadable(String),
    /// The organisation keeps no policy there: its `.github` repository,
    /// read by default rather than named, has no such file the App can
    /// see. Said in words, so the config's check can show it.
    Absent(String),
}

/// The extended files read, by source.
pub type Parents = BTreeMap<Source, Parent>;

/// What a repository's config may extend, as its source read it: the
/// organisation's policy (the App's default or the one it is told, or
/// `--org-config`), which every chain ends at, and every extended file
/// read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inheritance {
    pub default_parent: Option<Source>,
    pub parents: Parents,
}

/// What a lock allows the files that extend its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// The value the locking file's chain gives the key, and no other.
    Locked,
    /// A number or rule level at least this strict.
    AtLeast(Value),
    /// A number at most this.
    AtMost(Value),
}

impl fmt::Display for LockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockKind::Locked => f.write_str("locked"),
            LockKind::AtLeast(v) => write!(f, "at least {v}"),
            LockKind::AtMost(v) => write!(f, "at most {v}"),
        }
    }
}

/// A `locks:` entry of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lock {
    pub key: String,
    pub kind: LockKind,
    pub pos: Pos,
}

/// Reads `locks:`: `KEY: locked`, `KEY: { at_least: N }` (a number or a
/// rule level) or `KEY: { at_most: N }` (a number).
pub(super) fn read_locks(p: &mut Reader, node: Node) -> Vec<Lock> {
    let mut locks = Vec::new();
    let Some(entries) = p.map(node, "locks", &["review.core.required"]) else { return locks };
    for (key, value) in entries.iter() {
        let known = KEY_RULES.iter().any(|r| r.key == key.name)
            || key.name.strip_prefix(RULES_PREFIX).is_some_and(|id| p.knows_rule(id));
        if !known {
            let names = KEY_RULES.iter().map(|r| r.key);
            let help = did_you_mean(&nearest(key.name, names)).unwrap_or_else(|| {
                "a lock names a key as `section.key` (`review.core.required`) or a rule as `rules.<id>`".into()
            });
            p.key_error(&key, format!("`locks` names no key of the config: `{}`", key.name), help);
            continue;
        }
        let pos = Pos { line: value.line(), col: value.col(), width: 1 };
        let kind = match (value.scalar_text(), value.as_map()) {
            (Some("locked"), _) => Some(LockKind::Locked),
            (_, Some(bound)) if bound.len() == 1 => {
                let (name, limit) = bound.iter().next().expect("one entry");
                match (name.name, bound_value(key.name, limit)) {
                    ("at_least", Some(v)) => Some(LockKind::AtLeast(v)),
                    ("at_most", Some(v @ Value::Number(_))) => Some(LockKind::AtMost(v)),
                    _ => None,
                }
            }
            _ => None,
        };
        match kind {
            Some(kind) => locks.push(Lock { key: key.name.to_string(), kind, pos }),
            None => p.error(
                value,
                format!("a lock of `{}` is `locked`, `{{ at_least: … }}` or `{{ at_most: … }}`", key.name),
                match key.name.starts_with(RULES_PREFIX) {
                    true => format!("e.g. `{}: {{ at_least: error }}`", key.name),
                    false => format!("e.g. `{}: locked`, or `{{ at_least: 2 }}` for a number", key.name),
                },
            ),
        }
    }
    locks
}

/// The bound of a floor or ceiling: a level for a rule, a number for a
/// numeric key.
fn bound_value(key: &str, node: Node) -> Option<Value> {
    if key.starts_with(RULES_PREFIX) {
        return match node.scalar_text()? {
            "off" => Some(Value::Level(Level::Off)),
            "notice" => Some(Value::Level(Level::On(Severity::Notice))),
            "warning" => Some(Value::Level(Level::On(Severity::Warning))),
            "error" => Some(Value::Level(Level::On(Severity::Error))),
            _ => None,
        };
    }
    let policy = Config { review: Some(Default::default()), ..Config::default() };
    match keys::get(&policy, key)? {
        Value::Number(_) => node.as_i64().filter(|n| *n >= 0).map(|n| Value::Number(n as u64)),
        _ => None,
    }
}

/// Whether `value` breaks `kind` (`locked`: any value but `fixed`).
fn breaks(kind: &LockKind, value: Option<&Value>, fixed: Option<&Value>) -> bool {
    match (kind, value) {
        (LockKind::Locked, _) => value != fixed,
        (LockKind::AtLeast(Value::Number(min)), Some(Value::Number(n))) => n < min,
        (LockKind::AtLeast(Value::Level(min)), Some(Value::Level(level))) => level_rank(*level) < level_rank(*min),
        (LockKind::AtMost(Value::Number(max)), Some(Value::Number(n))) => n > max,
        _ => false,
    }
}

/// Which rule reports a problem of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// A problem in the repository's own file (`config/invalid`).
    Invalid,
    /// A value an extended file's lock refuses (`config/locked`).
    Locked,
    /// An extended file that cannot be read or is wrong, a cycle, a chain
    /// too long (`config/extends`).
    Extends,
}

/// A problem of the chain, positioned in the repository's own file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub error: ConfigError,
    /// The file it is in (see [`Effective::files`]); an extended file's
    /// problem is positioned at the repository's `extends:`.
    pub file: usize,
}

/// Where an effective value came from: the file (0: the repository's own,
/// then each file extended in turn) and the value's position there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: usize,
    pub pos: Pos,
}

/// A lock in force on the repository's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockInForce {
    pub kind: LockKind,
    /// The value a `locked` key keeps.
    pub fixed: Option<Value>,
    pub origin: Origin,
}

/// The effective config of a repository and how it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Effective {
    pub config: Config,
    /// The files merged, the repository's own first (`None` when it has
    /// none), then each one extended.
    pub files: Vec<Option<Source>>,
    /// Where each key a file set came from (leaves by dotted key).
    pub origins: BTreeMap<String, Origin>,
    pub locks: BTreeMap<String, LockInForce>,
    pub problems: Vec<Problem>,
}

impl Effective {
    /// How messages name file `index` of [`Effective::files`].
    pub fn file_name(&self, index: usize) -> String {
        match self.files.get(index) {
            Some(Some(source)) => source.to_string(),
            _ => CONFIG_PATH.to_string(),
        }
    }
}

/// The source `text`'s `extends:` names, when it names one well.
fn extends_of(text: &str) -> Option<Source> {
    let tree = yaml::parse(text, 1).ok()?;
    Source::parse(tree.root().get("extends")?.scalar_text()?).ok()
}

/// The chain from the repository's file up, as far as it can be followed.
struct Walk<'p> {
    chain: Vec<(Source, &'p str)>,
    /// The first file of the chain not among the parents supplied.
    missing: Option<Source>,
    /// Why the chain stops short: message and help.
    broken: Option<(String, String)>,
    /// The organisation's policy is in the chain only because the chain
    /// ended short of it: no file of the chain names it.
    policy_by_default: bool,
}

/// Follows `extends:` from `first`; a chain that ends short of the
/// organisation's policy (`policy`) goes on to it, so no repository leaves
/// the organisation's locks by extending some other file.
fn walk<'p>(first: Option<Source>, policy: Option<&Source>, parents: &'p Parents) -> Walk<'p> {
    let mut walk = Walk { chain: Vec::new(), missing: None, broken: None, policy_by_default: first.is_none() };
    let mut next = first.or_else(|| policy.cloned());
    let mut policy_followed = false;
    while let Some(source) = next.take() {
        policy_followed |= policy == Some(&source);
        if walk.chain.iter().any(|(seen, _)| *seen == source) {
            let names: Vec<String> = walk.chain.iter().map(|(s, _)| format!("`{s}`")).collect();
            walk.broken = Some((
                format!("the extended configs form a cycle: {} extends `{source}` again", names.join(" → ")),
                "one file of the chain must extend nothing: remove its `extends:`".into(),
            ));
        } else if walk.chain.len() == MAX_EXTENDED {
            walk.broken = Some((
                format!("the chain of extended configs is longer than {MAX_EXTENDED} files at `{source}`"),
                format!("extend at most {MAX_EXTENDED} files in a row: merge two of them"),
            ));
        } else {
            match parents.get(&source) {
                None => walk.missing = Some(source),
                Some(Parent::Unreadable(why)) if policy == Some(&source) => {
                    walk.broken = Some((
                        format!("the organisation's policy `{source}` cannot be read: {why}"),
                        "the checks are not evaluated until it can: every repository of the organisation \
                         inherits it, whatever its own `extends:` says; fix the file or the App's access to its \
                         repository"
                            .into(),
                    ))
                }
                Some(Parent::Unreadable(why)) => {
                    walk.broken = Some((
                        format!("the extended config `{source}` cannot be read: {why}"),
                        "the checks are not evaluated until it can: fix the file or the App's access to its \
                         repository, or remove `extends:`"
                            .into(),
                    ))
                }
                Some(Parent::Absent(_)) => {}
                Some(Parent::Text(text)) => {
                    next = extends_of(text);
                    walk.chain.push((source, text.as_str()));
                }
            }
        }
        let ended = walk.missing.is_none() && walk.broken.is_none();
        if next.is_none() && ended && !policy_followed {
            next = policy.cloned();
            walk.policy_by_default = true;
        }
    }
    walk
}

/// The first file the chain of `repo_text` (the repository's own config, if
/// any) needs that `parents` lacks. `default_parent` is what a config
/// without `extends:` extends (an organisation policy the App or the
/// command line names), if any.
pub fn wanted(repo_text: Option<&str>, default_parent: Option<&Source>, parents: &Parents) -> Option<Source> {
    walk(repo_text.and_then(extends_of), default_parent, parents).missing
}

/// Whether the organisation's policy `default_parent` is reached only
/// because the chain of `repo_text` ends short of it, no file naming it: a
/// policy read by default may be absent, one a file names may not.
pub fn policy_by_default(repo_text: Option<&str>, default_parent: Option<&Source>, parents: &Parents) -> bool {
    walk(repo_text.and_then(extends_of), default_parent, parents).policy_by_default
}

/// The file the repository's config extends first: its `extends:`, else
/// `default_parent`.
pub fn first(repo_text: Option<&str>, default_parent: Option<&Source>) -> Option<Source> {
    repo_text.and_then(extends_of).or_else(|| default_parent.cloned())
}

/// Merges the chain of `repo_text`: the defaults, then each extended file
/// from the farthest, then the repository's own; locks of a file hold for
/// every file below it.
pub fn resolve(
    repo_text: Option<&str>,
    default_parent: Option<&Source>,
    parents: &Parents,
    rule_ids: &[&str],
) -> Effective {
    let walk = walk(repo_text.and_then(extends_of), default_parent, parents);
    let mut effective = Effective {
        config: Config::default(),
        files: std::iter::once(None).chain(walk.chain.iter().map(|(s, _)| Some(s.clone()))).collect(),
        origins: BTreeMap::new(),
        locks: BTreeMap::new(),
        problems: Vec::new(),
    };
    let own = repo_text.map(|text| (0, text));
    let extended = walk.chain.iter().enumerate().map(|(i, (_, text))| (i + 1, *text)).rev();
    let mut extends_at = None;
    for (index, text) in extended.chain(own) {
        let before = effective.config.clone();
        let file = read_over(text, rule_ids, &mut effective.config);
        if index == 0 {
            extends_at = file.extends.as_ref().map(|(_, pos)| *pos);
        }
        merge_file(&mut effective, index, &before, file);
    }
    let at = extends_at.unwrap_or(Pos { line: 1, col: 1, width: 1 });
    if let Some((message, help)) = walk.broken {
        let error = ConfigError { line: at.line, col: at.col, width: at.width, message, help };
        effective.problems.push(Problem { kind: ProblemKind::Extends, error, file: 0 });
    } else if let Some(source) = walk.missing {
        let error = ConfigError {
            line: at.line,
            col: at.col,
            width: at.width,
            message: format!("the extended config `{source}` was not read"),
            help: "`gatehouse check` reads it with `--org-config PATH`, or from a checkout of its repository \
                   given with `--repo-root OWNER/NAME=DIR`"
                .into(),
        };
        effective.problems.push(Problem { kind: ProblemKind::Extends, error, file: 0 });
    }
    let review_keys: BTreeMap<String, Pos> = ["review", "review.core"]
        .into_iter()
        .filter_map(|key| effective.origins.get(key).map(|o| (key.to_string(), o.pos)))
        .collect();
    if let Some(error) = unpassable_review(&effective.config, &review_keys) {
        let file = effective.origins.get("review.core").or(effective.origins.get("review")).map_or(0, |o| o.file);
        place(&mut effective, file, ProblemKind::Invalid, error);
    }
    for problem in effective.problems.iter_mut().filter(|p| p.file > 0) {
        (problem.error.line, problem.error.col, problem.error.width) = (at.line, at.col, at.width);
    }
    effective.problems.sort_by_key(|p| (p.error.line, p.error.col));
    effective
}

/// Adds what file `index` set, read over `before`: values a lock of a
/// farther file refuses are put back and reported, the others recorded
/// with their origin, and the file's own locks put in force.
fn merge_file(effective: &mut Effective, index: usize, before: &Config, file: FileRead) {
    let FileRead { set, errors, locks, .. } = file;
    for error in errors {
        place(effective, index, ProblemKind::Invalid, error);
    }
    for (key, pos) in set {
        if let Some(lock) = effective.locks.get(&key) {
            let value = keys::get(&effective.config, &key);
            if breaks(&lock.kind, value.as_ref(), lock.fixed.as_ref()) {
                let kept = match lock.kind {
                    LockKind::Locked => lock.fixed.clone(),
                    _ => keys::get(before, &key),
                };
                let shown = |v: Option<&Value>| v.map_or_else(|| "its default".to_string(), Value::to_string);
                let locker =
                    format!("a lock in `{}` line {}", effective.file_name(lock.origin.file), lock.origin.pos.line);
                let rule = match &lock.kind {
                    LockKind::Locked => format!("is locked at {}", shown(lock.fixed.as_ref())),
                    kind => format!("must be {kind}"),
                };
                let error = ConfigError {
                    line: pos.line,
                    col: pos.col,
                    width: pos.width,
                    message: format!("`{key}` {rule} ({locker}); this file asks for {}", shown(value.as_ref())),
                    help: format!(
                        "remove `{key}` from this file, or ask for what the lock allows; {} applies meanwhile",
                        shown(kept.as_ref())
                    ),
                };
                keys::set(&mut effective.config, &key, kept);
                place(effective, index, ProblemKind::Locked, error);
                continue;
            }
        }
        effective.origins.insert(key, Origin { file: index, pos });
    }
    for lock in locks {
        let origin = Origin { file: index, pos: lock.pos };
        let fixed = keys::get(&effective.config, &lock.key);
        effective.locks.entry(lock.key).or_insert(LockInForce { kind: lock.kind, fixed, origin });
    }
}

/// Records `error` of file `index`; an extended file's problem names its
/// file and line, and is moved to the repository's `extends:` once that is
/// read.
fn place(effective: &mut Effective, index: usize, kind: ProblemKind, error: ConfigError) {
    let problem = match index {
        0 => Problem { kind, error, file: 0 },
        _ => {
            let message = format!(
                "in the extended config `{}` line {}: {}",
                effective.file_name(index),
                error.line,
                error.message
            );
            let kind = if kind == ProblemKind::Locked { ProblemKind::Locked } else { ProblemKind::Extends };
            Problem { kind, error: ConfigError { message, ..error }, file: index }
        }
    };
    effective.problems.push(problem);
}

#[cfg(test)]
mod tests;
