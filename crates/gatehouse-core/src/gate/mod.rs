//! The approval policy (ADR-099's "2-of-3 formal approval rule
//! plus Dana's advisory pass"): a pure evaluation of the BASE config's
//! `review:` policy against a PR's reviews and commit authors.

mod applies;
mod content;
mod groups;
mod requests;
mod table;

use serde::Serialize;

pub use applies::{Applicability, applicability};
pub use content::{Contents, Standing};
pub use groups::{Enforcer, Group, teams_wanted};
pub use requests::{reviewers_to_request, split_teams};

use crate::model::ChangeSet;
use crate::owners::Directory;

/// What the review gate's summary lists the missing items under; the App's
/// dashboard reads the list that follows.
pub const STILL_MISSING: &str = "Still missing:";

use crate::config::ReviewConfig;

/// A review as the policy reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    pub login: String,
    pub state: ReviewState,
    /// The commit the review was submitted on.
    pub commit: Option<String>,
    /// RFC 3339; reviews are ordered by it (then by their list order).
    pub submitted_at: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    Approved,
    ChangesRequested,
    Commented,
    Dismissed,
    Pending,
}

/// What still stands between the PR and a green gate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Missing {
    /// `needed` more approvals from any of `from`, on commit `on`.
    Approvals { needed: usize, from: Vec<String>, on: String },
    /// An advisory reviewer who has not reviewed.
    Advisory { login: String },
    /// More core reviewers request changes than the policy allows.
    ChangesRequested { by: Vec<String>, limit: u64 },
    /// Two or more core reviewers authored commits: the gate fails closed.
    TooManyRecusals { recused: Vec<String> },
    /// A group of [`Outcome::groups`] gatehouse enforces is not met.
    Group {
        rule: String,
        needed: u64,
        from: Vec<String>,
        advisory: Vec<String>,
        paths: Vec<String>,
        notes: Vec<String>,
    },
}

/// The gate's verdict, with everything a reviewer or an agent needs to act.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub passed: bool,
    pub head: String,
    pub required: u64,
    /// Core reviewers who count: the configured ones less the recused.
    pub eligible: Vec<String>,
    pub recused: Vec<String>,
    /// Core reviewers whose approval counts on `head`.
    pub approvals: Vec<String>,
    /// Core reviewers whose latest decisive review requests changes.
    pub changes_requested: Vec<String>,
    /// Approvals that no longer count: given on an earlier head, and a push
    /// since ended them.
    pub stale: Vec<String>,
    /// Each eligible core reviewer's approval (their latest decisive review
    /// approves): the commit it was given on, and why it counts or not.
    pub standings: Vec<Standing>,
    pub advisory_reviewed: Vec<String>,
    pub missing: Vec<Missing>,
    /// Every other requirement of approvals: CODEOWNERS, rosters, and the
    /// base branch's own rules (shown, enforced by GitHub).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<Group>,
}

/// What the review gate of one head is evaluated on, besides the change.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    pub reviews: &'a [Review],
    pub commit_authors: &'a [String],
    pub head: &'a str,
    pub contents: &'a Contents,
    pub directory: &'a Directory,
}

/// The review gate of a change: the core reviewers' verdict with every
/// group the change needs besides (CODEOWNERS, rosters, the base branch's
/// rules). The App's plan, `gatehouse gate simulate` and `gatehouse owners`
/// all decide through it. With no owners, rosters or branch rules it is
/// [`evaluate_contents`].
pub fn evaluate_change(changes: &ChangeSet, policy: &ReviewConfig, inputs: &Inputs) -> Outcome {
    let mut outcome = evaluate_contents(policy, inputs.reviews, inputs.commit_authors, inputs.head, inputs.contents);
    let groups = groups::evaluate(changes, policy, inputs, &outcome);
    let others = policy.owners == crate::config::OwnersFrom::Codeowners || !policy.rosters.is_empty();
    if policy.core_reviewers.is_empty() && others {
        // A policy of owners or rosters alone: no core quorum to meet.
        outcome.missing.retain(|m| !matches!(m, Missing::Approvals { .. }));
        outcome.required = 0;
    }
    for group in groups.iter().filter(|g| g.enforced_by == Enforcer::Gatehouse && !g.met()) {
        outcome.missing.push(Missing::Group {
            rule: group.rule.clone(),
            needed: group.missing,
            from: group.from.clone(),
            advisory: group.advisory_missing.clone(),
            paths: group.paths.clone(),
            notes: group.notes.clone(),
        });
    }
    outcome.passed = outcome.missing.is_empty();
    outcome.groups = groups;
    outcome
}

/// `Dana`, `dana`, `dana[bot]` are one reviewer.
pub fn same_login(a: &str, b: &str) -> bool {
    normalize(a) == normalize(b)
}

fn normalize(login: &str) -> String {
    let lower = login.trim().to_ascii_lowercase();
    lower.strip_suffix("[bot]").map(str::to_string).unwrap_or(lower)
}

/// Evaluates `policy` for a PR whose head commit is `head`, without the
/// documents' blob ids: an approval on an earlier head counts only when
/// `review.stale_on_push` is off.
pub fn evaluate(policy: &ReviewConfig, reviews: &[Review], commit_authors: &[String], head: &str) -> Outcome {
    evaluate_contents(policy, reviews, commit_authors, head, &Contents::default())
}

/// Evaluates `policy` for a PR whose head commit is `head`; `contents`
/// decides whether approvals on earlier heads still count.
pub fn evaluate_contents(
    policy: &ReviewConfig,
    reviews: &[Review],
    commit_authors: &[String],
    head: &str,
    contents: &Contents,
) -> Outcome {
    let mut ordered: Vec<(usize, &Review)> = reviews.iter().enumerate().collect();
    ordered.sort_by(|(i, a), (j, b)| (a.submitted_at.as_deref(), i).cmp(&(b.submitted_at.as_deref(), j)));

    // The latest decisive review (approve, request changes, dismissal) of each
    // reviewer; comments do not undo either.
    let latest =
        |login: &str| -> Option<&Review> {
            ordered.iter().rev().map(|(_, r)| *r).filter(|r| same_login(&r.login, login)).find(|r| {
                matches!(r.state, ReviewState::Approved | ReviewState::ChangesRequested | ReviewState::Dismissed)
            })
        };
    let reviewed = |login: &str| reviews.iter().any(|r| same_login(&r.login, login) && r.state != ReviewState::Pending);

    let recused: Vec<String> = if policy.recusal {
        policy.core_reviewers.iter().filter(|c| commit_authors.iter().any(|a| same_login(a, c))).cloned().collect()
    } else {
        Vec::new()
    };
    let eligible: Vec<String> = policy.core_reviewers.iter().filter(|c| !recused.contains(c)).cloned().collect();
    let mut approvals = Vec::new();
    let mut stale = Vec::new();
    let mut standings = Vec::new();
    let mut changes_requested = Vec::new();
    for login in &eligible {
        match latest(login) {
            Some(r) if r.state == ReviewState::Approved => {
                let standing = content::standing(policy, login, r.commit.as_deref(), head, contents);
                if standing.counts {
                    approvals.push(login.clone())
                } else {
                    stale.push(login.clone())
                }
                standings.push(standing);
            }
            Some(r) if r.state == ReviewState::ChangesRequested => changes_requested.push(login.clone()),
            _ => {}
        }
    }
    let advisory_reviewed: Vec<String> = policy.advisory.iter().filter(|a| reviewed(a)).cloned().collect();

    let mut missing = Vec::new();
    if recused.len() >= 2 {
        missing.push(Missing::TooManyRecusals { recused: recused.clone() });
    }
    let required = policy.core_required as usize;
    // With two or more recusals the gate fails closed; no approval can fix it.
    if recused.len() < 2 && approvals.len() < required {
        let from = eligible.iter().filter(|l| !approvals.contains(l)).cloned().collect();
        missing.push(Missing::Approvals { needed: required - approvals.len(), from, on: head.to_string() });
    }
    for login in policy.advisory.iter().filter(|a| !advisory_reviewed.contains(a)) {
        missing.push(Missing::Advisory { login: login.clone() });
    }
    if changes_requested.len() as u64 > policy.max_changes_requested {
        missing.push(Missing::ChangesRequested { by: changes_requested.clone(), limit: policy.max_changes_requested });
    }
    Outcome {
        passed: missing.is_empty(),
        head: head.to_string(),
        required: policy.core_required,
        eligible,
        recused,
        approvals,
        changes_requested,
        stale,
        standings,
        advisory_reviewed,
        missing,
        groups: Vec::new(),
    }
}

/// Full and abbreviated commit ids name the same commit.
pub fn same_commit(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    a.len() >= 7 && b.len() >= 7 && (a.starts_with(&b) || b.starts_with(&a))
}

fn or_list(names: &[String]) -> String {
    match names {
        [] => "nobody (no eligible core reviewer is left)".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl Outcome {
    /// One human line per missing item, e.g. "1 more approval from marcus,
    /// priya or lin on abc1234".
    pub fn missing_lines(&self) -> Vec<String> {
        self.missing
            .iter()
            .map(|m| match m {
                Missing::Approvals { needed, from, on } => {
                    let noun = if *needed == 1 { "approval" } else { "approvals" };
                    format!("{needed} more {noun} from {} on {}", or_list(from), short(on))
                }
                Missing::Advisory { login } => format!("{login} has not reviewed"),
                Missing::ChangesRequested { by, limit } => {
                    format!("{} request changes (at most {limit} may); a later approval by the same reviewer replaces a request", by.join(", "))
                }
                Missing::TooManyRecusals { recused } => {
                    format!("{} authored commits in this PR and are recused; with two or more recusals the gate fails closed", recused.join(" and "))
                }
                Missing::Group { rule, needed, from, advisory, paths, notes } => table::missing_line(rule, *needed, from, advisory, paths, notes),
            })
            .collect()
    }

    /// A short markdown summary, human first.
    pub fn summary(&self) -> String {
        let mut out = if self.passed && self.required == 0 && !self.groups.is_empty() {
            format!("Review gate passed: every requirement is approved on `{}`.", short(&self.head))
        } else if self.passed {
            format!(
                "Review gate passed: {} of {} core approvals on `{}`.",
                self.approvals.len(),
                self.required,
                short(&self.head)
            )
        } else {
            format!(
                "Review gate not passed. {STILL_MISSING}\n\n{}",
                self.missing_lines().iter().map(|l| format!("- {l}\n")).collect::<String>()
            )
        };
        if !self.recused.is_empty() && self.recused.len() < 2 {
            out.push_str(&format!(
                "\n\n{} authored commits here and is recused: the quorum is {} of {}.",
                self.recused.join(", "),
                self.required,
                self.eligible.len()
            ));
        }
        if !self.groups.is_empty() {
            out.truncate(out.trim_end().len());
            out.push_str("\n\n");
            out.push_str(&table::render(self));
        }
        if !self.standings.is_empty() {
            out.truncate(out.trim_end().len());
            out.push_str("\n\nApprovals:\n");
            for s in &self.standings {
                let on = s.commit.as_deref().map_or("an unknown commit".to_string(), |c| format!("`{}`", short(c)));
                let verdict = if s.counts { "counts" } else { "no longer counts" };
                out.push_str(&format!("\n- {} on {on}: {verdict}: {}.", s.login, s.why));
            }
        }
        out
    }
}

fn short(sha: &str) -> String {
    sha.chars().take(7).collect()
}

#[cfg(test)]
mod owners_tests;
#[cfg(test)]
mod tests;
