//! Where ChangeSets come from: a folder or git checkout on disk (`fs`, `git`),
//! and, in the App, a pull request read through GitHub's API (`pull_request`).

pub(crate) mod approved;
pub(crate) mod codeowners;
pub mod contents;
pub(crate) mod default_branch;
pub(crate) mod dependencies;
pub(crate) mod evaluation;
pub(crate) mod extended;
pub mod fs;
pub(crate) mod git;
pub(crate) mod inherited;
pub mod local;
pub(crate) mod merge_group;
pub mod policy;
pub mod pull_request;
pub(crate) mod required;
pub(crate) mod teams;

use crate::config::{CONFIG_PATH, Config, globset, under};
use crate::reads::Needs;

/// Decides which files the rules need read: the documents of the families
/// an evaluation needs ([`Needs`]), the config and the CODEOWNERS file (the
/// config check validates a changed one). Everything else is only listed
/// (for path checks).
pub struct Relevance {
    patterns: Vec<String>,
    globs: std::sync::Arc<globset::GlobSet>,
    folders: Vec<String>,
}

impl Relevance {
    /// The documents of every family.
    pub fn new(config: &Config) -> Relevance {
        Relevance::of(config, Needs::ALL)
    }

    /// The documents of the families in `needs`.
    pub fn of(config: &Config, needs: Needs) -> Relevance {
        let (patterns, folders) = needs.paths(config);
        Relevance { globs: globset(&patterns), patterns, folders }
    }

    /// What decides the choice: the glob patterns and the folders.
    pub(crate) fn key(&self) -> (Vec<String>, Vec<String>) {
        (self.patterns.clone(), self.folders.clone())
    }

    pub fn wants(&self, path: &str) -> bool {
        path == CONFIG_PATH
            || crate::owners::LOCATIONS.contains(&path)
            || self.globs.is_match(path)
            || under(path, &self.folders)
    }
}
