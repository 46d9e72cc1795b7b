//! What an evaluation needs read, for a source that reads a repository
//! through an API or a checkout: the config from its text, and, given the
//! documents already read, the further revisions and paths the rules look
//! up. A source asks here instead of knowing the rules.

use crate::config::inherit::{Effective, Inheritance, Source};
use crate::config::{CONFIG_PATH, Config, ConfigError, PathFilter, under};
use crate::model::ChangeSet;
use crate::rules;

/// The repository config in `text`, with what is wrong in it.
pub fn config(text: &str) -> (Config, Vec<ConfigError>) {
    rules::read_config(text)
}

/// The effective config of a repository whose own config is `text` (none:
/// no file), merged with the files it extends that `inheritance` holds.
/// [`wanted`] names the next file to read before this.
pub fn effective_config(text: Option<&str>, inheritance: &Inheritance) -> Effective {
    rules::read_effective(text, inheritance)
}

/// The next file the chain of `text` needs that `inheritance` lacks.
pub fn wanted(text: Option<&str>, inheritance: &Inheritance) -> Option<Source> {
    crate::config::inherit::wanted(text, inheritance.default_parent.as_ref(), &inheritance.parents)
}

/// Whether the organisation's policy is in the chain of `text` only by
/// default, no file naming it.
pub fn policy_by_default(text: Option<&str>, inheritance: &Inheritance) -> bool {
    crate::config::inherit::policy_by_default(text, inheritance.default_parent.as_ref(), &inheritance.parents)
}

/// A path a changed document pins to a revision: `owner/repo@rev:path`.
pub use crate::rules::brief::PinnedPath;

/// What the rules look up beyond the documents of a ChangeSet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Further {
    /// Paths changed briefs pin to a revision, sorted, once each.
    pub pinned: Vec<PinnedPath>,
    /// Commits the touched specs' `landed.md` names, sorted, once each (the
    /// answer goes to [`ChangeSet::history`]).
    pub commits: Vec<String>,
}

/// What the evaluation of `changes` needs read beyond its documents.
pub fn further(changes: &ChangeSet) -> Further {
    let mut commits: Vec<String> =
        rules::spec::SpecView::new(changes).specs.iter().flat_map(|s| s.landed.iter().map(|l| l.sha.clone())).collect();
    commits.sort();
    commits.dedup();
    Further { pinned: rules::brief::pinned_paths(changes), commits }
}

/// The repositories and revisions changed briefs pin paths to, once each
/// (a checkout loads each revision's tree).
pub fn revisions(changes: &ChangeSet) -> Vec<(String, String)> {
    rules::brief::revisions_named(changes)
}

/// The families of documents an evaluation reads beyond the ones its change
/// touches. Each family's rules read only documents of the families named
/// here, which is what lets a source read a repository's documents by
/// family (`tests/equivalence.rs` evaluates every case both ways):
///
/// - briefs and ADRs together: a brief's agent id is checked against every
///   other brief's, its cited ADRs are read, and an ADR a change retires or
///   edits is checked against the briefs that cite it;
/// - voting docs: ledgers, rosters and guidelines;
/// - specs, and decision dockets: each family's folders.
///
/// The config is read by every evaluation; a change to it may change any
/// family's findings, so it needs every family.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Needs {
    pub briefs_and_adrs: bool,
    pub voting: bool,
    pub specs: bool,
    pub decisions: bool,
}

impl Needs {
    pub const ALL: Needs = Needs { briefs_and_adrs: true, voting: true, specs: true, decisions: true };

    /// What the evaluation of a change to the paths in `touched` (both sides
    /// of a rename), with the pull request's `body`, needs read under `config`.
    pub fn of<'p>(config: &Config, touched: impl IntoIterator<Item = &'p str>, body: &str) -> Needs {
        let briefs_or_adrs =
            PathFilter::globs(&config.briefs.paths.iter().chain(&config.adrs.paths).cloned().collect::<Vec<_>>());
        let voting = PathFilter::globs(&config.voting.paths);
        let mut needs = Needs {
            // `Brief:` and `Guideline:` lines cite merged briefs and guideline versions.
            briefs_and_adrs: !rules::cite::cites(body, "Brief").is_empty(),
            voting: !rules::cite::cites(body, "Guideline").is_empty(),
            ..Needs::default()
        };
        for path in touched {
            if path == CONFIG_PATH {
                return Needs::ALL;
            }
            needs.briefs_and_adrs |= briefs_or_adrs.is_match(path);
            needs.voting |= voting.is_match(path);
            needs.specs |= under(path, &config.specs.paths);
            needs.decisions |= under(path, &config.decisions.paths);
        }
        needs
    }

    /// The glob patterns and folders of the families needed under `config`.
    pub fn paths(&self, config: &Config) -> (Vec<String>, Vec<String>) {
        let (mut patterns, mut folders) = (Vec::new(), Vec::new());
        if self.briefs_and_adrs {
            patterns.extend(config.briefs.paths.iter().chain(&config.adrs.paths).cloned());
        }
        if self.voting {
            patterns.extend(config.voting.paths.iter().cloned());
        }
        if self.specs {
            folders.extend(config.specs.paths.iter().cloned());
        }
        if self.decisions {
            folders.extend(config.decisions.paths.iter().cloned());
        }
        (patterns, folders)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_needs_the_families_it_touches_and_its_body_cites() {
        let config = Config::default();
        let needs = |paths: &[&str], body: &str| Needs::of(&config, paths.iter().copied(), body);
        let brief = "dark-factory/briefs/SWARM-AR-x.md";
        assert_eq!(needs(&[brief], ""), Needs { briefs_and_adrs: true, ..Needs::default() });
        assert_eq!(needs(&["src/main.rs"], ""), Needs::default());
        assert_eq!(
            needs(&["src/main.rs"], "Implements it.\n\nBrief: dark-factory/briefs/SWARM-AR-x.md\n"),
            needs(&[brief], "")
        );
        assert!(needs(&["src/main.rs"], "Guideline: backup-scripts@v1\n").voting);
        assert_eq!(needs(&[CONFIG_PATH], ""), Needs::ALL);
        let (patterns, folders) = Needs::default().paths(&config);
        assert!(patterns.is_empty() && folders.is_empty());
        assert_eq!(
            Needs::ALL.paths(&config).0.len(),
            config.briefs.paths.len() + config.adrs.paths.len() + config.voting.paths.len()
        );
    }
}
