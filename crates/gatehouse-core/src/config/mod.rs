//! Repo configuration, `.github/gatehouse.yml`. Always read from the BASE
//! revision (a PR cannot weaken its own gate); defaults mirror the founding
//! documents. Parsing is forgiving: a bad key is reported with its line and
//! its default kept, so a broken config never stops an evaluation.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

pub mod explain;
pub mod inherit;
pub mod keys;
mod read;
mod rosters;

pub use read::Pos;

use globset::{GlobSet, GlobSetBuilder};

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
    /// The App's dashboard issue (`dashboard:`), off unless enabled.
    pub dashboard: Dashboard,
}

/// `dashboard:`: one issue per repository, kept current by the App, listing
/// what each open pull request waits on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dashboard {
    pub enabled: bool,
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
    /// Days the gate waits on a requested reviewer before the App reminds
    /// them, once per this many days; 0: no reminders.
    pub remind_after_days: u64,
    /// Whose approval each changed file needs besides the core's:
    /// `codeowners` reads the base's CODEOWNERS as GitHub does.
    pub owners: OwnersFrom,
    /// Reviewers per path, for what CODEOWNERS cannot say.
    pub rosters: Vec<Roster>,
    /// Logins that open pull requests for a person (besides accounts
    /// GitHub marks as bots): such a pull request is never approved by that
    /// person alone.
    pub agents: Vec<String>,
}

/// `review.owners`: where the owners of each changed file come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnersFrom {
    /// Nobody besides the core reviewers and the rosters.
    None,
    /// The base's CODEOWNERS, as GitHub reads it.
    Codeowners,
}

impl OwnersFrom {
    pub const NAMES: [&'static str; 2] = ["none", "codeowners"];

    pub fn name(self) -> &'static str {
        match self {
            OwnersFrom::None => "none",
            OwnersFrom::Codeowners => "codeowners",
        }
    }
}

/// One entry of `review.rosters`: the approvals a change of `paths` needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roster {
    pub paths: Vec<String>,
    /// Every quorum must be met.
    pub all_of: Vec<Quorum>,
    /// Reviewers who must review (any review), not approve.
    pub advisory: Vec<String>,
    /// Bot accounts whose approval counts for this roster; elsewhere a bot's
    /// approval never counts.
    pub bots: Vec<String>,
    /// The line of `.github/gatehouse.yml` the entry starts on.
    pub line: u32,
}

/// `{ n_of: 2, from: [alice, bob, "@acme/sre"] }`: `n_of` approvals from
/// the logins and teams listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quorum {
    pub n_of: u64,
    pub from: Vec<String>,
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
            dashboard: Dashboard::default(),
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
            remind_after_days: 0,
            owners: OwnersFrom::None,
            rosters: Vec::new(),
            agents: Vec::new(),
        }
    }
}

/// The config lines a team adds for a review policy, with placeholder logins.
pub const REVIEW_EXAMPLE: &str =
    "review:\n  core: { reviewers: [alice, bob, carol], required: 2 }\n  advisory: [dana]\n";

impl Config {
    /// Whether `path` is a document a check gates: a brief, a voting doc, a
    /// file of a spec folder or a decision docket, or the config itself.
    pub fn governs(&self, path: &str) -> bool {
        path == CONFIG_PATH
            || PathFilter::globs(&self.briefs.paths).is_match(path)
            || PathFilter::globs(&self.voting.paths).is_match(path)
            || under(path, &self.specs.paths)
            || under(path, &self.decisions.paths)
    }
}

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

/// A problem in the config file, with its position and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{CONFIG_PATH}:{line}:{col}: {message}")]
pub struct ConfigError {
    pub line: u32,
    pub col: u32,
    /// The characters at fault, from `col` (at least 1).
    pub width: u32,
    pub message: String,
    /// What to write instead, in the author's terms.
    pub help: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &[&str] = &["brief/out-of-scope-empty"];

    #[test]
    fn empty_config_is_the_defaults() {
        assert_eq!(Config::parse("", RULES).0, Config::default());
        assert_eq!(Config::parse("# nothing\n", RULES).1, vec![]);
    }

    #[test]
    fn reads_every_section() {
        let text = "briefs: { paths: [\"briefs/*.md\"], review_threshold: { lines: 200, repos: 2 } }\n\
                    review:\n  core: { reviewers: [a, b], required: 1 }\n  stale_on_push: false\n\
                    limits: { max_file_bytes: 10 }\n";
        let (c, errors) = Config::parse(text, RULES);
        assert_eq!(errors, vec![]);
        assert_eq!(c.briefs.paths, vec!["briefs/*.md"]);
        assert_eq!(c.briefs.review_threshold, Threshold { lines: 200, repos: 2 });
        let review = c.review.expect("a review policy");
        assert_eq!(review.core_reviewers, vec!["a", "b"]);
        assert!(!review.stale_on_push);
        assert_eq!(review.describe(), "1 of a, b approve");
        assert_eq!(c.limits.max_file_bytes, 10);
    }

    #[test]
    fn approvals_end_on_a_document_change_unless_configured() {
        assert_eq!(ReviewConfig::default().approvals_end_on, ApprovalsEnd::DocumentChange);
        let (c, errors) =
            Config::parse("review:\n  core: { reviewers: [a, b] }\n  approvals_end_on: any_push\n", RULES);
        assert_eq!((c.review.as_ref().expect("a policy").approvals_end_on, errors), (ApprovalsEnd::AnyPush, vec![]));
        let (c, errors) =
            Config::parse("review:\n  core: { reviewers: [a, b] }\n  approvals_end_on: sometimes\n", RULES);
        assert_eq!(c.review.as_ref().expect("a policy").approvals_end_on, ApprovalsEnd::DocumentChange);
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].col), (3, 21));
        assert!(errors[0].message.contains("found `sometimes`"), "{}", errors[0].message);
    }

    #[test]
    fn no_review_key_is_no_policy_and_a_policy_that_cannot_pass_is_an_error() {
        assert_eq!(Config::default().review, None);
        let (c, errors) = Config::parse(REVIEW_EXAMPLE, RULES);
        assert_eq!(errors, vec![]);
        assert_eq!(c.review.expect("a policy").describe(), "2 of alice, bob, carol approve and dana reviews");
        let (_, errors) = Config::parse("review:\n  request_reviewers: false\n", RULES);
        assert_eq!((errors.len(), errors[0].line), (1, 2), "{errors:?}");
        assert!(errors[0].message.contains("no `core` reviewers"), "{errors:?}");
        let (_, errors) = Config::parse("review:\n  core: { reviewers: [a], required: 2 }\n", RULES);
        assert_eq!((errors.len(), errors[0].line), (1, 2), "{errors:?}");
        assert!(errors[0].message.contains("only 1 core reviewer is listed"), "{errors:?}");
        let (_, errors) = Config::parse("review: yes\n", RULES);
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn the_dashboard_is_off_unless_enabled() {
        assert!(!Config::default().dashboard.enabled);
        let (c, errors) = Config::parse("dashboard:\n  enabled: true\n", RULES);
        assert_eq!((c.dashboard.enabled, errors), (true, vec![]));
        let (c, errors) = Config::parse("dashboard:\n  enabled: sometimes\n  enable: true\n", RULES);
        assert!(!c.dashboard.enabled);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[1].message.contains("enable"), "{errors:?}");
    }

    #[test]
    fn errors_carry_lines_and_keep_defaults() {
        let (c, errors) = Config::parse("briefs:\n  review_threshold:\n    lines: many\nbogus: 1\n", RULES);
        assert_eq!(c.briefs.review_threshold.lines, 100);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].line, 3);
        assert!(errors[0].message.contains("whole number of 0 or more"), "{errors:?}");
        assert_eq!(errors[1].line, 4);
        let (_, errors) = Config::parse("briefs: [unclosed\n", RULES);
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn path_filters_select_by_prefix() {
        let files: Files =
            ["a.md", "docs/adr/x.md", "docs/adr/sub/y.md", "docs/other.md", "fondue/specs/s/state", "z/docs/adr/q.md"]
                .into_iter()
                .map(|p| (p.to_string(), FileContent::Binary))
                .collect();
        let picked = |f: &PathFilter| f.select(&files).map(|(p, _)| p.as_str()).collect::<Vec<_>>();
        let adrs = PathFilter::globs(&["docs/adr/**/*.md".into(), "docs/adr/sub/*.md".into()]);
        assert_eq!(picked(&adrs), vec!["docs/adr/sub/y.md", "docs/adr/x.md"]);
        assert_eq!(picked(&PathFilter::globs(&["**/*.md".into()])).len(), 5);
        assert_eq!(picked(&PathFilter::folders(&["fondue/specs".into()])), vec!["fondue/specs/s/state"]);
    }

    #[test]
    fn compiled_glob_sets_are_kept_by_their_patterns() {
        let briefs = vec!["kept/briefs/*.md".to_string()];
        let docs = vec!["kept/docs/**".to_string()];
        assert!(Arc::ptr_eq(&globset(&briefs), &globset(&briefs)));
        assert!(globset(&briefs).is_match("kept/briefs/a.md") && !globset(&briefs).is_match("kept/docs/a.md"));
        assert!(globset(&docs).is_match("kept/docs/x/a.md") && !globset(&docs).is_match("kept/briefs/a.md"));
    }

    #[test]
    fn globs_match_within_folders_only() {
        let set = globset(&["dark-factory/briefs/*.md".to_string()]);
        assert!(set.is_match("dark-factory/briefs/SWARM-AR-x.md"));
        assert!(!set.is_match("dark-factory/briefs/old/SWARM-AR-x.md"));
        assert!(under("fondue/specs/a/current-state.txt", &["fondue/specs".into()]));
        assert!(!under("fondue/specsx/a", &["fondue/specs".into()]));
    }
}
