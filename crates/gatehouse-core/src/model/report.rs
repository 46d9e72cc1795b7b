use serde::Serialize;

use super::{Finding, Severity};

/// One check run per document family, named as on GitHub.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    Briefs,
    Voting,
    Specs,
    Decisions,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Check::Briefs => "gatehouse/briefs",
            Check::Voting => "gatehouse/voting",
            Check::Specs => "gatehouse/specs",
            Check::Decisions => "gatehouse/decisions",
        }
    }

    /// What the check covers, for the one-line neutral summary.
    pub fn noun(self) -> &'static str {
        match self {
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
    /// The change touches nothing this check covers.
    Neutral,
}

/// The result of one family's rules over one ChangeSet.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    #[serde(skip)]
    pub check: Check,
    pub name: &'static str,
    pub conclusion: Conclusion,
    /// How many documents of this family the change touched.
    pub documents: usize,
    /// Family-specific summary blocks in markdown (tally tables, state moves).
    pub details: Vec<String>,
    pub findings: Vec<Finding>,
}

impl CheckReport {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }
}

/// Everything one evaluation found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub checks: Vec<CheckReport>,
    /// Findings about the evaluation itself (an invalid repo config): they
    /// count against every check.
    pub general: Vec<Finding>,
}

impl Report {
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.general.iter().chain(self.checks.iter().flat_map(|c| c.findings.iter()))
    }

    pub fn has_errors(&self) -> bool {
        self.findings().any(|f| f.severity == Severity::Error)
    }
}
