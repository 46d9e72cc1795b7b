//! The read steps of a pull request's job: the PR and our check runs on its
//! head ([`head`], before the job decides whether to evaluate at all), then
//! the PR's change (see
//! [`super::pull_request`]), the review gate's reviews, commit authors,
//! approved contents and the reviewers GitHub shows requested (each only
//! when the plan needs it), and gatehouse's review comments on the PR, as
//! the plain data [`crate::plan::pull_request`] decides from.

use serde::Deserialize;

use super::pull_request::{self, MAX_COMMITS, PrSnapshot, PullRequest, Read};
use super::{approved, contents::ReadCache};
use crate::config::ReviewConfig;
use crate::github::check_runs::{self, Shown};
use crate::github::{ApiError, RepoClient, threads};
use crate::model::ChangeSet;
use crate::plan::dependencies::Dependencies;
use crate::plan::requests::Made;
use crate::plan::review::DiffFile;
use crate::plan::{self, Authors, GateRead, PullRequestRead};

/// What a pull request's job read.
pub(crate) struct Reading {
    pub pr: PullRequest,
    pub read: PullRequestRead,
}

/// What reading came to.
pub(crate) enum Outcome {
    Read(Box<Reading>),
    /// The PR changes more files than GitHub lists: fail closed.
    TooManyFiles {
        pr: PullRequest,
    },
}

/// `GET pulls/{n}/requested_reviewers` (`pull-request-review-request`).
#[derive(Deserialize)]
struct Requested {
    users: Vec<User>,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

/// What a pull request's job reads first.
pub(crate) struct Head {
    pub pr: PullRequest,
    /// Our check runs on its head.
    pub shown: Shown,
    /// Our check runs on each earlier head a job began: (job, head, runs).
    pub earlier: Vec<(i64, String, Shown)>,
}

/// PR `number` as GitHub describes it, our check runs on its head, and
/// those on each of `begun` ((job, head) pairs) that is not its head.
pub(crate) async fn head(repo: &RepoClient, number: u64, begun: &[(i64, String)]) -> Result<Head, ApiError> {
    let pr = pull_request::describe(repo, number).await?;
    let shown = check_runs::shown(repo, &pr.head_sha.0).await?;
    let mut earlier = Vec::new();
    for (job, sha) in begun.iter().filter(|(_, sha)| *sha != pr.head_sha.0) {
        earlier.push((*job, sha.clone(), check_runs::shown(repo, sha).await?));
    }
    Ok(Head { pr, shown, earlier })
}

/// What the job runner knows of a pull request from its store.
pub(crate) struct Known {
    /// The review requests made on its head before.
    pub made: Option<Made>,
    /// Its entry in the dependency index.
    pub previous: Option<Dependencies>,
}

/// Reads what the plan of `pr` needs; `with_review`: the job posts a
/// review, so gatehouse's comments on the PR are read.
pub(crate) async fn read(
    repo: &RepoClient,
    pr: PullRequest,
    cache: &ReadCache,
    known: Known,
    with_review: bool,
) -> Result<Outcome, ApiError> {
    let Known { made, previous } = known;
    let snapshot = match pull_request::read(repo, pr, cache).await? {
        Read::Snapshot(snapshot) => snapshot,
        Read::TooManyFiles { pr } => return Ok(Outcome::TooManyFiles { pr }),
    };
    let PrSnapshot { pr, files, changes, dependencies } = *snapshot;
    let head = pr.head_sha.0.clone();
    let gate = match (plan::reads_gate(&changes), &changes.config.review) {
        (Some(applicability), Some(policy)) => {
            Some(gate(repo, &pr, &changes, policy, &applicability.documents, made).await?)
        }
        _ => None,
    };
    let review = if with_review { threads::shown(repo, pr.number).await? } else { Default::default() };
    let files = files.into_iter().map(|f| DiffFile { path: f.path, patch: f.patch }).collect();
    let (number, base_sha, draft) = (pr.number, pr.base_sha.0.clone(), pr.draft);
    let read = PullRequestRead { number, base_sha, head, draft, changes, files, gate, review, dependencies, previous };
    Ok(Outcome::Read(Box::new(Reading { pr, read })))
}

/// The review gate's reads.
async fn gate(
    repo: &RepoClient,
    pr: &PullRequest,
    changes: &ChangeSet,
    policy: &ReviewConfig,
    documents: &[String],
    made: Option<Made>,
) -> Result<GateRead, ApiError> {
    let head = &pr.head_sha.0;
    let (reviews, authors) = pull_request::reviews_and_authors(repo, pr.number).await?;
    let contents = approved::contents(repo, policy, head, documents, &reviews).await?;
    let authors = authors.map_or(Authors::Capped(MAX_COMMITS), Authors::Read);
    let mut gate = GateRead { reviews, authors, contents, pending: Vec::new(), made };
    if plan::asks_reviewers(changes, head, pr.draft, &gate) {
        let requested: Requested = repo.get(&format!("/pulls/{}/requested_reviewers", pr.number)).await?;
        gate.pending = requested.users.into_iter().map(|u| u.login).collect();
    }
    Ok(gate)
}
