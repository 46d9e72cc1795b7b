//! The blob ids the review gate compares to decide whether an approval
//! given on an earlier head still counts (`gate::Contents`): each document
//! that made the gate apply, at the head and at every commit an approval
//! was given on. One batched GraphQL query of `object(expression:
//! "<commit>:<path>") { __typename oid }` answers them all (GraphQL API
//! reference, "Objects": `Repository.object`, "A Git object in the
//! repository", `expression`: "A Git revision expression suitable for
//! rev-parse"; 250 expressions a query); the contents API would take one
//! call per commit and path, the trees API one per commit and the whole
//! listing. `<commit>` alone is asked too: a commit GitHub no longer has
//! (force-pushed away and collected) leaves its documents unknown rather
//! than absent.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{ApprovalsEnd, ReviewConfig};
use crate::gate::{self, Contents, ReviewState};
use crate::github::{ApiError, RepoClient};

use super::pull_request::objects;

/// The commits approvals were given on other than `head`: the ones whose
/// documents decide whether those approvals count.
fn approved_commits(reviews: &[gate::Review], head: &str) -> BTreeSet<String> {
    reviews
        .iter()
        .filter(|r| r.state == ReviewState::Approved)
        .filter_map(|r| r.commit.clone())
        .filter(|c| !c.eq_ignore_ascii_case(head))
        .collect()
}

/// Reads what the gate compares; nothing (no call) when no approval was
/// given on an earlier head or the policy does not follow documents.
pub(crate) async fn contents(
    repo: &RepoClient,
    policy: &ReviewConfig,
    head: &str,
    documents: &[String],
    reviews: &[gate::Review],
) -> Result<Contents, ApiError> {
    let commits = approved_commits(reviews, head);
    if !policy.stale_on_push || policy.approvals_end_on != ApprovalsEnd::DocumentChange || commits.is_empty() {
        return Ok(Contents::default());
    }
    let mut expressions: Vec<String> = documents.iter().map(|p| format!("{head}:{p}")).collect();
    for commit in &commits {
        expressions.push(commit.clone());
        expressions.extend(documents.iter().map(|p| format!("{commit}:{p}")));
    }
    let answers = objects(repo, &expressions).await?;
    let blob = |i: usize| Some(&answers[i]).filter(|a| a.typename == "Blob").map(|a| a.oid.clone());
    let n = documents.len();
    let head_blobs = documents.iter().enumerate().map(|(i, p)| (p.clone(), blob(i))).collect();
    let mut approved = BTreeMap::new();
    for (k, commit) in commits.into_iter().enumerate() {
        let start = n + k * (n + 1);
        if answers[start].typename != "Commit" {
            continue;
        }
        let at = documents.iter().enumerate().map(|(i, p)| (p.clone(), blob(start + 1 + i))).collect();
        approved.insert(commit, at);
    }
    Ok(Contents { head: head_blobs, approved })
}
