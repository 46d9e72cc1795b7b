use serde::Serialize;

use super::{Finding, Severity};
use crate::config::CONFIG_PATH;
use crate::render::plural;

/// One check run for the repo config and one per document family, named as
/// on GitHub.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    /// `.github/gatehouse.yml`: its findings, and whether the families could
    /// be evaluated at all.
    Config,
    Briefs,
    Voting,
    Specs,
    Decisions,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Check::Config => "gatehouse/config",
            Check::Briefs => "gatehouse/briefs",
            Check::Voting => "gatehouse/voting",
            Check::Specs => "gatehouse/specs",
            Check::Decisions => "gatehouse/decisions",
        }
    }

    /// What the check covers, for the one-line neutral summary.
    pub fn noun(self) -> &'static str {
        match self {
            Check::Config => "repo configs",
            Check::Briefs => "agent briefs",
            Check::Voting => "voting docs",
            Check::Specs => "spec folders",
            Check::Decisions => "decision manifests",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    Success,
    Failure,
    /// The change touches nothing this check covers, or (a family's check)
    /// the config is invalid and the family was not evaluated.
    Neutral,
}

/// The one-line summary of a family's check that was not evaluated.
pub const NOT_EVALUATED: &str = "not evaluated: the config is invalid";

/// The result of one family's rules over one ChangeSet.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    #[serde(skip)]
    pub check: Check,
    pub name: &'static str,
    pub conclusion: Conclusion,
    /// How many documents of this family the change touched and the rules
    /// checked (the config check: 1 when the change touches the config).
    pub documents: usize,
    /// How many cites of the pull request body the check's rules checked
    /// (`Brief:` for the briefs, `Guideline:` for the voting docs): the body
    /// is not a document.
    pub cites: usize,
    /// False for a family's check when the config is invalid: its rules
    /// would read documents by a config the team did not write, so they
    /// report nothing and the check is neutral.
    pub evaluated: bool,
    /// Family-specific summary blocks in markdown (tally tables, state moves).
    pub details: Vec<String>,
    pub findings: Vec<Finding>,
}

impl CheckReport {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    /// What the check looked at, in one line: "2 documents checked", "no
    /// voting docs changed", "the change does not touch
    /// `.github/gatehouse.yml`", [`NOT_EVALUATED`].
    pub fn scope(&self) -> String {
        if !self.evaluated {
            return NOT_EVALUATED.to_string();
        }
        let cites = (self.cites > 0).then(|| format!("{} in the pull request body", plural(self.cites, "cite")));
        match (self.check, self.documents, cites) {
            (Check::Config, 0, _) => format!("the change does not touch `{CONFIG_PATH}`"),
            (Check::Config, _, _) => format!("`{CONFIG_PATH}` checked"),
            (_, 0, None) => format!("no {} changed", self.check.noun()),
            (_, 0, Some(cites)) => format!("no {} changed; {cites} checked", self.check.noun()),
            (_, n, None) => format!("{} checked", plural(n, "document")),
            (_, n, Some(cites)) => format!("{} and {cites} checked", plural(n, "document")),
        }
    }
}

/// Everything one evaluation found: the config's check first, then each
/// family's.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub checks: Vec<CheckReport>,
}

impl Report {
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.checks.iter().flat_map(|c| c.findings.iter())
    }

    pub fn has_errors(&self) -> bool {
        self.findings().any(|f| f.severity == Severity::Error)
    }
}
