//! What an evaluation needs read, for a source that reads a repository
//! through an API or a checkout: the config from its text, and, given the
//! documents already read, the further revisions and paths the rules look
//! up. A source asks here instead of knowing the rules.

use crate::config::{Config, ConfigError};
use crate::model::ChangeSet;
use crate::rules;

/// The repository config in `text`, with what is wrong in it.
pub fn config(text: &str) -> (Config, Vec<ConfigError>) {
    rules::read_config(text)
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
