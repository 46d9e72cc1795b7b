//! The read step of a pull request's job, in one pass: the PR and our check
//! runs on its head (stopping there when every check was answered on that
//! head before), our runs on the heads the PR moved past, then the PR's
//! change (see [`super::pull_request`]), the review gate's reviews, commit
//! authors, approved contents and the reviewers GitHub shows requested
//! (each only when the plan needs it), and gatehouse's review comments on
//! the PR: the plain data [`crate::plan::pull_request`] decides from.

use std::collections::BTreeSet;

use serde::Deserialize;
use tokio::sync::oneshot;

use super::pull_request::{self, MAX_COMMITS, PrSnapshot, PullRequest, Read};
use super::{approved, codeowners, contents::ReadCache, required, teams};
use crate::config::{OwnersFrom, ReviewConfig};
use crate::gate;
use crate::github::check_runs::{self, Shown};
use crate::github::{ApiError, RepoClient, threads};
use crate::model::ChangeSet;
use crate::owners::{Directory, ReviewRules};
use crate::plan::dependencies::Dependencies;
use crate::plan::requests::Recorded;
use crate::plan::review::DiffFile;
use crate::plan::{self, Authors, GateRead, PullRequestRead, RequiredChecks};

/// The checks a job answers on a head.
#[derive(Clone, Copy)]
pub(crate) struct Checks<'a> {
    pub names: &'a [String],
    /// A head answered by a job that finished is not answered again.
    pub once_per_head: bool,
    /// The jobs of the same pull request (or commit) that finished: each
    /// wrote its whole plan (runs, requests, review) and recorded it.
    pub finished: &'a BTreeSet<i64>,
}

impl Checks<'_> {
    /// The head was answered by a job that finished, so its whole plan is
    /// on GitHub: nothing more to read. Every check the base branch requires
    /// and every check shown on the head has its newest run completed by
    /// such a job (a job writes the checks its change concerns and the
    /// required ones). Completed runs of a job that did not finish (it was
    /// killed after them) are not enough: the plan is read and decided
    /// again, and what is missing written.
    pub(crate) fn answered(&self, shown: &Shown, required: &RequiredChecks) -> bool {
        let expected: Vec<String> =
            self.names.iter().filter(|name| required.requires(name) || shown.has(name)).cloned().collect();
        self.once_per_head && !expected.is_empty() && shown.all_completed_by(&expected, self.finished)
    }

    /// Every check was answered on the head by a job that finished, for a
    /// job that writes every check (a merge group's).
    pub(crate) fn all_answered(&self, shown: &Shown) -> bool {
        self.once_per_head && shown.all_completed_by(self.names, self.finished)
    }
}

/// A head and our runs on it, sent to the job runner as soon as they are
/// read, so that a read which outlasts a person's patience can show the
/// checks in progress while it goes on.
pub(crate) struct HeadSeen {
    pub head: String,
    pub shown: Shown,
    /// The checks the head's base branch requires; `None`: the job writes
    /// every check (a merge group's).
    pub required: Option<RequiredChecks>,
}

impl HeadSeen {
    /// Of the job's checks `names`, those shown in progress while it is
    /// slow: the ones it writes whatever the change (required, or a run of
    /// them on the head already); the rest are created with their
    /// conclusion if the change concerns them.
    pub(crate) fn shown_in_progress(&self, names: &[String]) -> Vec<String> {
        let Some(required) = &self.required else { return names.to_vec() };
        names.iter().filter(|name| required.requires(name) || self.shown.has(name)).cloned().collect()
    }
}

/// What the job runner knows of a pull request from its store.
pub(crate) struct Known {
    /// What it recorded of asking on the head it last asked on: (head, what).
    pub made: Option<(String, Recorded)>,
    /// Its entry in the dependency index.
    pub previous: Option<Dependencies>,
}

/// What a pull request's job asks to be read.
pub(crate) struct Ask<'a> {
    pub number: u64,
    /// (job, head) pairs of the heads jobs began on: runs left open there
    /// are to be closed when the PR has moved past them.
    pub begun: &'a [(i64, String)],
    pub checks: Checks<'a>,
    pub known: Known,
    /// The job posts a review, so gatehouse's comments on the PR are read.
    pub with_review: bool,
    /// A team changed (the job comes of a `membership` or `team` event):
    /// the teams are read from GitHub, not from what this process kept.
    pub fresh_teams: bool,
}

/// The PR as GitHub describes it and what it shows of our runs.
pub(crate) struct Head {
    pub pr: PullRequest,
    /// Our check runs on its head.
    pub shown: Shown,
    /// Our check runs on each earlier head a job began: (job, head, runs).
    pub earlier: Vec<(i64, String, Shown)>,
}

/// What was read of the change, when the head was not answered before.
pub(crate) enum Change {
    Read(Box<PullRequestRead>),
    /// The PR changes more files than GitHub lists (`changed_files`).
    TooManyFiles(u64),
    /// GitHub refused to answer for the PR's documents (not transient).
    Unreadable(ApiError),
}

/// What the read step came to.
pub(crate) struct Reading {
    pub head: Head,
    /// `None`: every check was answered on this head already.
    pub change: Option<Change>,
}

/// `GET pulls/{n}/requested_reviewers` (`pull-request-review-request`).
#[derive(Deserialize)]
struct Requested {
    users: Vec<User>,
    /// Teams asked, by slug (of the repository's owner).
    #[serde(default)]
    teams: Vec<RequestedTeam>,
}

#[derive(Deserialize)]
struct RequestedTeam {
    slug: String,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

/// Reads what the plan of PR `ask.number` needs, sending the head and its
/// runs on `seen` once they are known and more is to be read.
pub(crate) async fn read(
    repo: &RepoClient,
    ask: Ask<'_>,
    cache: &ReadCache,
    seen: oneshot::Sender<HeadSeen>,
) -> Result<Reading, ApiError> {
    let pr = pull_request::describe(repo, ask.number).await?;
    let shown = check_runs::shown(repo, &pr.head_sha.0).await?;
    let (required, review_rules) = required::read(repo, &pr.base_branch).await?;
    let answered = ask.checks.answered(&shown, &required);
    if !answered {
        // The runner may have stopped listening (the read was quick).
        let head = pr.head_sha.0.clone();
        let _ = seen.send(HeadSeen { head, shown: shown.clone(), required: Some(required.clone()) });
    }
    let mut earlier = Vec::new();
    for (job, sha) in ask.begun.iter().filter(|(_, sha)| *sha != pr.head_sha.0) {
        earlier.push((*job, sha.clone(), check_runs::shown(repo, sha).await?));
    }
    if answered {
        return Ok(Reading { head: Head { pr, shown, earlier }, change: None });
    }
    let base_rules = BaseRules { required, review: review_rules };
    let reads = Reads { with_review: ask.with_review, fresh_teams: ask.fresh_teams };
    let change = match change(repo, &pr, cache, ask.known, reads, base_rules).await {
        Ok(change) => change,
        Err(err) if err.is_transient() => return Err(err),
        Err(err) => Change::Unreadable(err),
    };
    Ok(Reading { head: Head { pr, shown, earlier }, change: Some(change) })
}

/// What a change's read includes: gatehouse's review comments, and the
/// teams read afresh.
#[derive(Clone, Copy)]
struct Reads {
    with_review: bool,
    fresh_teams: bool,
}

/// What the base branch's rules require: its checks and its reviews.
struct BaseRules {
    required: RequiredChecks,
    review: ReviewRules,
}

/// Reads the change of `pr` and what its review gate and review need.
async fn change(
    repo: &RepoClient,
    pr: &PullRequest,
    cache: &ReadCache,
    known: Known,
    reads: Reads,
    base_rules: BaseRules,
) -> Result<Change, ApiError> {
    let BaseRules { required, review: review_rules } = base_rules;
    let Known { made, previous } = known;
    let head = pr.head_sha.0.clone();
    let recorded = made.filter(|(on, _)| *on == head).map(|(_, recorded)| recorded);
    let snapshot = match pull_request::read(repo, pr.clone(), cache).await? {
        Read::Snapshot(snapshot) => snapshot,
        Read::TooManyFiles { pr } => return Ok(Change::TooManyFiles(pr.changed_files)),
    };
    let PrSnapshot { pr, files, mut changes, mut dependencies } = *snapshot;
    changes.branch_rules = review_rules;
    if let Some(file) = &changes.codeowners
        && !changes.touches(&file.path)
        && changes.config.review.as_ref().is_some_and(|p| p.owners == OwnersFrom::Codeowners)
    {
        changes.github_owner_errors = codeowners::github_errors(repo, &pr.base_sha.0).await?;
    }
    let gate = match (plan::reads_gate(&changes), &changes.config.review) {
        (Some(applicability), Some(policy)) => {
            let teams = (&cache.teams, reads.fresh_teams);
            Some(gate(repo, &pr, &changes, policy, &applicability.documents, recorded, teams).await?)
        }
        _ => None,
    };
    if let Some(gate) = &gate {
        dependencies.extend(teams::dependencies(&gate.directory));
    }
    let review = if reads.with_review { threads::shown(repo, pr.number).await? } else { Default::default() };
    let files = files.into_iter().map(|f| DiffFile { path: f.path, patch: f.patch }).collect();
    let (number, base_sha, draft) = (pr.number, pr.base_sha.0.clone(), pr.draft);
    let read = PullRequestRead {
        number,
        base_sha,
        head,
        draft,
        changes,
        files,
        gate,
        review,
        dependencies,
        previous,
        required,
    };
    Ok(Change::Read(Box::new(read)))
}
/// The review gate's reads.
async fn gate(
    repo: &RepoClient,
    pr: &PullRequest,
    changes: &ChangeSet,
    policy: &ReviewConfig,
    documents: &[String],
    recorded: Option<Recorded>,
    (kept_teams, fresh_teams): (&teams::TeamCache, bool),
) -> Result<GateRead, ApiError> {
    let head = &pr.head_sha.0;
    let (reviews, authors, bots) = pull_request::reviews_and_authors(repo, pr.number).await?;
    let contents = approved::contents(repo, policy, head, documents, &reviews).await?;
    let authors = authors.map_or(Authors::Capped(MAX_COMMITS), Authors::Read);
    let (made, asking) = match recorded {
        Some(Recorded::Made(made)) => (Some(made), None),
        Some(Recorded::Asking(logins)) => (None, Some(logins)),
        None => (None, None),
    };
    let mut bots: std::collections::BTreeSet<String> = bots.into_iter().collect();
    if pr.author_is_bot {
        bots.insert(pr.author.to_ascii_lowercase());
    }
    let directory = Directory {
        teams: teams::members(repo, &gate::teams_wanted(changes), kept_teams, fresh_teams).await?,
        bots,
        author: pr.author.clone(),
        assignees: pr.assignees.clone(),
    };
    let mut gate = GateRead { reviews, authors, contents, pending: Vec::new(), made, asking, directory };
    if plan::asks_reviewers(changes, head, pr.draft, &gate) {
        let requested: Requested = repo.get(&format!("/pulls/{}/requested_reviewers", pr.number)).await?;
        let teams = requested.teams.into_iter().map(|t| format!("@{}/{}", repo.repo.owner, t.slug));
        gate.pending = requested.users.into_iter().map(|u| u.login).chain(teams).collect();
    }
    Ok(gate)
}
