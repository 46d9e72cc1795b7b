//! The job model: what a job evaluates ([`Target`]) and which check runs
//! ([`Scope`]), each stored in typed columns of `gh_jobs` (the queue is
//! `jobs`).

use anyhow::{Context, Result, bail};

use crate::app::commands::Command;
use crate::github::HeadSha;
use crate::model::Check;

/// A pull request's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PrNumber(pub u64);

impl std::fmt::Display for PrNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What a job evaluates. Every target but a pull request is resolved by the
/// worker into jobs of pull requests, or evaluated as a merge group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// One pull request; `head` is the head commit the event named, when it
    /// named one (the worker reads the PR's current head).
    Pr { number: PrNumber, head: Option<HeadSha> },
    /// The open pull requests whose head is this commit: a fork's check
    /// suite or check run lists none. With no such PR, the merge group whose
    /// head it is (a re-run of a group's check).
    Head(HeadSha),
    /// The merge group whose head is this commit: its checks are evaluated.
    MergeGroup(HeadSha),
    /// The merge group whose head is this commit left the queue: its open
    /// check runs are concluded.
    MergeGroupDestroyed(HeadSha),
    /// Every open pull request of the repository (an install).
    OpenPrs,
    /// The default branch's tip after a push: the open pull requests whose
    /// documents depend on what changed.
    BaseTip(HeadSha),
    /// A command in a comment on a pull request (`app::commands`), stored
    /// in the `command` column as JSON.
    Command { number: PrNumber, command: Box<Command> },
    /// The repository's dashboard issue, brought up to date.
    Dashboard,
    /// A pull request merged as commit `merge`: its gate attestation is
    /// written, or the bypass of its gate said.
    Merged { number: PrNumber, merge: HeadSha },
    /// A team (`@org/slug`, lowercase) changed: the open pull requests
    /// whose review gate read it.
    Team(String),
}

impl Target {
    /// The column values: kind, PR number, commit.
    fn columns(&self) -> (&'static str, Option<i64>, Option<&str>) {
        match self {
            Target::Pr { number, head } => ("pr", Some(number.0 as i64), head.as_ref().map(|h| h.0.as_str())),
            Target::Head(sha) => ("head", None, Some(&sha.0)),
            Target::MergeGroup(sha) => ("merge_group", None, Some(&sha.0)),
            Target::MergeGroupDestroyed(sha) => ("merge_group_destroyed", None, Some(&sha.0)),
            Target::OpenPrs => ("open_prs", None, None),
            Target::BaseTip(sha) => ("base_tip", None, Some(&sha.0)),
            Target::Command { number, .. } => ("command", Some(number.0 as i64), None),
            Target::Dashboard => ("dashboard", None, None),
            Target::Merged { number, merge } => ("merged", Some(number.0 as i64), Some(&merge.0)),
            Target::Team(team) => ("team", None, Some(team)),
        }
    }

    /// The `command` column: a command's JSON, else null.
    fn command_column(&self) -> Option<String> {
        match self {
            Target::Command { command, .. } => Some(serde_json::to_string(command).expect("plain data")),
            _ => None,
        }
    }

    fn from_columns(kind: &str, pr: Option<i64>, sha: Option<String>, command: Option<String>) -> Result<Target> {
        if kind == "command" {
            let (Some(number), Some(json)) = (pr, command) else {
                bail!("a command job without its pull request or command");
            };
            let command = serde_json::from_str(&json).with_context(|| format!("a stored command {json:?}"))?;
            return Ok(Target::Command { number: PrNumber(number as u64), command: Box::new(command) });
        }
        let sha = sha.map(HeadSha);
        Ok(match (kind, pr, sha) {
            ("pr", Some(number), head) => Target::Pr { number: PrNumber(number as u64), head },
            ("head", None, Some(sha)) => Target::Head(sha),
            ("merge_group", None, Some(sha)) => Target::MergeGroup(sha),
            ("merge_group_destroyed", None, Some(sha)) => Target::MergeGroupDestroyed(sha),
            ("open_prs", None, None) => Target::OpenPrs,
            ("base_tip", None, Some(sha)) => Target::BaseTip(sha),
            ("dashboard", None, None) => Target::Dashboard,
            ("merged", Some(number), Some(merge)) => Target::Merged { number: PrNumber(number as u64), merge },
            ("team", None, Some(team)) => Target::Team(team.0),
            (kind, pr, sha) => bail!("a job target {kind:?} with PR {pr:?} and commit {sha:?}"),
        })
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Pr { number, .. } => write!(f, "{number}"),
            Target::Head(sha) => write!(f, "the PRs of head {sha}"),
            Target::MergeGroup(sha) => write!(f, "merge group {sha}"),
            Target::MergeGroupDestroyed(sha) => write!(f, "merge group {sha} (left the queue)"),
            Target::OpenPrs => f.write_str("the open PRs"),
            Target::BaseTip(sha) => write!(f, "the PRs depending on base tip {sha}"),
            Target::Command { number, command } => write!(f, "the command of comment {} on {number}", command.comment),
            Target::Dashboard => f.write_str("the dashboard issue"),
            Target::Merged { number, merge } => write!(f, "{number} merged as {merge}"),
            Target::Team(team) => write!(f, "the PRs whose gate reads {team}"),
        }
    }
}

/// Which check runs a job evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every check and the review gate.
    All,
    /// One family's check (a re-run of that check).
    Check(Check),
    /// The review gate only (a review, or a re-run of the gate).
    ReviewGate,
}

impl Scope {
    /// The column value: `all`, `review_gate`, or the check run's name.
    pub(super) fn column(self) -> &'static str {
        match self {
            Scope::All => "all",
            Scope::Check(check) => check.name(),
            Scope::ReviewGate => "review_gate",
        }
    }

    /// Reads the column; a check no registered family has (one removed
    /// since the job was queued) evaluates every check.
    fn from_column(value: &str) -> Scope {
        match value {
            "review_gate" => Scope::ReviewGate,
            name => family_check(name).map_or(Scope::All, Scope::Check),
        }
    }
}

/// The check of a registered family whose check run is named `name`.
pub fn family_check(name: &str) -> Option<Check> {
    crate::rules::FAMILIES.iter().map(|f| f.check()).find(|c| c.name() == name)
}

/// The work a verified delivery asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewJob {
    /// `owner/name`.
    pub repo: String,
    pub installation: u64,
    pub target: Target,
    pub scope: Scope,
    /// The event comes with every push (`pull_request.opened`,
    /// `synchronize`, `check_suite.requested`, `merge_group.checks_requested`):
    /// a head a job that finished answered already is not evaluated again.
    /// Re-runs, reviews, installs and pushes to the base evaluate again.
    pub once_per_head: bool,
    /// The event and action, for the logs: `pull_request.opened`...
    pub reason: String,
}

impl NewJob {
    /// The lock and coalescing key (see [`Job::key`]).
    pub(super) fn key(&self) -> String {
        Job::key(&self.repo, &self.target)
    }

    /// The target's columns (`target`, `target_pr`, `target_sha`).
    pub(super) fn target_columns(&self) -> (&'static str, Option<i64>, Option<&str>) {
        self.target.columns()
    }

    /// The `scope` column.
    pub(super) fn scope_column(&self) -> &'static str {
        self.scope.column()
    }

    /// The `command` column.
    pub(super) fn command_column(&self) -> Option<String> {
        self.target.command_column()
    }
}

/// The columns [`NewJob`] fills when queued, in the order of the values
/// `batch` and `accept_postgres` bind (then `state`, `attempts`,
/// `not_before`, `created_at`).
pub(super) const NEW_JOB_COLUMNS: &str =
    "delivery, pr_key, repo, installation, target, target_pr, target_sha, scope, once_per_head, reason, command";

/// A claimed job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub delivery: String,
    pub repo: String,
    pub installation: u64,
    pub target: Target,
    pub scope: Scope,
    pub once_per_head: bool,
    pub reason: String,
    pub attempts: i64,
    /// When the first delivery asking for this work was stored (ms).
    pub created_at: i64,
    /// The head this job started check runs on, on an earlier attempt.
    pub started_sha: Option<String>,
    /// Jobs this claim superseded that had started check runs: (job id, head).
    pub stale: Vec<(i64, String)>,
}

impl Job {
    /// Who waits for this job's writes: the re-checks a push to the base
    /// branch makes can wait for the answers people wait for.
    pub fn urgency(&self) -> crate::github::Urgency {
        match self.reason.as_str() {
            "push" | super::DASHBOARD_REASON => crate::github::Urgency::Background,
            _ => crate::github::Urgency::Person,
        }
    }

    /// A person asked for this evaluation again (GitHub's Re-run, or the
    /// run's own button): it is shown anew even where nothing changed.
    pub fn rerun_asked(&self) -> bool {
        matches!(
            self.reason.as_str(),
            "check_run.rerequested"
                | "check_run.requested_action"
                | "check_suite.rerequested"
                | crate::app::commands::RECHECK_REASON
        )
    }
}

/// A `gh_jobs` row as claimed.
#[derive(sqlx::FromRow)]
pub(super) struct JobRow {
    id: i64,
    delivery: String,
    repo: String,
    installation: i64,
    target: String,
    target_pr: Option<i64>,
    target_sha: Option<String>,
    scope: String,
    once_per_head: bool,
    reason: String,
    attempts: i64,
    created_at: i64,
    started_sha: Option<String>,
    command: Option<String>,
}

/// The columns of a [`JobRow`].
pub(super) const JOB_ROW: &str = "id, delivery, repo, installation, target, target_pr, target_sha, scope, once_per_head, reason, \
     attempts, created_at, started_sha, command";

impl JobRow {
    pub(super) fn into_job(self, stale: Vec<(i64, String)>) -> Result<Job> {
        Ok(Job {
            id: self.id,
            delivery: self.delivery,
            repo: self.repo,
            installation: self.installation as u64,
            target: Target::from_columns(&self.target, self.target_pr, self.target_sha, self.command)?,
            scope: Scope::from_column(&self.scope),
            once_per_head: self.once_per_head,
            reason: self.reason,
            attempts: self.attempts,
            created_at: self.created_at,
            started_sha: self.started_sha,
            stale,
        })
    }
}

impl Job {
    /// The lock and coalescing key: one PR, whatever the event (a review, a
    /// re-run, a push), so one PR is evaluated by one worker at a time; a job
    /// naming a commit rather than a PR is keyed by that commit (a merge
    /// group's head, a head or a base tip to resolve into jobs of PRs).
    pub(super) fn key(repo: &str, target: &Target) -> String {
        let repo = repo.to_ascii_lowercase();
        match target {
            Target::Pr { number, .. } => format!("{repo}#{}", number.0),
            Target::OpenPrs => format!("{repo}#0"),
            Target::Head(sha) | Target::MergeGroup(sha) | Target::MergeGroupDestroyed(sha) | Target::BaseTip(sha) => {
                format!("{repo}@{sha}")
            }
            // A command has a lock of its own: it is never coalesced with,
            // or superseded by, the evaluations of its pull request.
            Target::Command { number, command } => format!("{repo}#{}/comment/{}", number.0, command.comment),
            Target::Dashboard => format!("{repo}#dashboard"),
            // Its own lock: an evaluation of the PR never supersedes it.
            Target::Merged { number, .. } => format!("{repo}#{}/merged", number.0),
            Target::Team(team) => format!("{repo}{team}"),
        }
    }

    pub(super) fn pr_key(&self) -> String {
        Job::key(&self.repo, &self.target)
    }

    /// The PR number: `None` when the job names no PR.
    pub fn pr(&self) -> Option<PrNumber> {
        match self.target {
            Target::Pr { number, .. } => Some(number),
            _ => None,
        }
    }
}
