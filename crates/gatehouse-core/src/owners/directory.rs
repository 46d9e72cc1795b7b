//! What GitHub knows and the App hands the gate: teams' members, which
//! accounts are bots, the pull request's author and assignees, and the base
//! branch's own review rules (rulesets and branch protection). Each is
//! empty by default, which leaves the gate as it is without them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

/// A team, `@org/slug`, lowercased (GitHub's slugs and logins ignore case).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TeamRef {
    pub org: String,
    pub slug: String,
}

impl TeamRef {
    pub fn new(org: &str, slug: &str) -> TeamRef {
        TeamRef { org: org.to_ascii_lowercase(), slug: slug.to_ascii_lowercase() }
    }

    /// `@org/slug` or `org/slug`; `None` for anything else.
    pub fn parse(text: &str) -> Option<TeamRef> {
        let (org, slug) = text.strip_prefix('@').unwrap_or(text).split_once('/')?;
        (!org.is_empty() && !slug.is_empty() && !slug.contains('/')).then(|| TeamRef::new(org, slug))
    }
}

impl fmt::Display for TeamRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}/{}", self.org, self.slug)
    }
}

/// A team's members as the App could read them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Members {
    Read(Vec<String>),
    /// Why they could not be read (e.g. "404 Not Found: the App lacks
    /// `members: read`").
    Unreadable(String),
}

/// Who is who on the pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directory {
    /// Each team the gate asked for ([`crate::gate::teams_wanted`]).
    pub teams: BTreeMap<TeamRef, Members>,
    /// Logins GitHub marks `type: Bot`, lowercase.
    pub bots: BTreeSet<String>,
    /// The pull request's author.
    pub author: String,
    pub assignees: Vec<String>,
}

impl Directory {
    /// Whether GitHub marks `login` a bot (`name[bot]` is one too).
    pub fn is_bot(&self, login: &str) -> bool {
        let lower = login.trim().to_ascii_lowercase();
        lower.ends_with("[bot]") || self.bots.contains(&lower)
    }
}

/// Where one of the base branch's review rules comes from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum RuleSource {
    /// A ruleset, by its name.
    Ruleset(String),
    /// Classic branch protection.
    Protection,
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleSource::Ruleset(name) => write!(f, "ruleset {name}"),
            RuleSource::Protection => f.write_str("branch protection"),
        }
    }
}

/// A ruleset's required reviewers for files matching `patterns`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequiredReviewers {
    pub source: RuleSource,
    /// fnmatch-style patterns of the files the rule covers.
    pub patterns: Vec<String>,
    /// Approvals the team must give.
    pub minimum: u64,
    pub team: TeamRef,
}

/// The base branch's review rules, as GitHub enforces them on merge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReviewRules {
    /// Approvals required of anyone with write access.
    pub required_approvals: Vec<(u64, RuleSource)>,
    /// Rules requiring a code owner's approval of each owned file.
    pub code_owner_review: Vec<RuleSource>,
    pub required_reviewers: Vec<RequiredReviewers>,
}

impl ReviewRules {
    /// The most approvals any rule requires, and that rule.
    pub fn most_approvals(&self) -> Option<&(u64, RuleSource)> {
        self.required_approvals.iter().max_by_key(|(n, _)| *n)
    }
}
