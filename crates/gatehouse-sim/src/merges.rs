//! Pull requests merging into the default branch in the simulated GitHub:
//! the merge API with the branch protection's required checks, an
//! administrator merging past them, a direct push to the default branch, and
//! the blob API a merged document's bytes are read through.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::routes::{Shared, error, lock};
use super::{Repo, Sim, Tree, commit_sha};

/// A conclusion a required status check may have for a merge to proceed
/// ("About protected branches": required checks must pass; GitHub counts
/// `success`, `neutral` and `skipped` as passing).
fn passing(conclusion: Option<&str>) -> bool {
    matches!(conclusion, Some("success" | "neutral" | "skipped"))
}

/// Why PR `number` may not merge: a check its base branch requires (by a
/// ruleset or branch protection) that is not passing on its head. "Require
/// status checks to pass before merging"
/// (https://docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/managing-protected-branches/about-protected-branches#require-status-checks-before-merging).
fn blocked(state: &super::State, repo: &str, number: u64) -> Option<String> {
    let entry = state.repos.get(&repo.to_ascii_lowercase())?;
    let pull = entry.pulls.get(&number)?;
    state.branch_rules.required(repo, "main").into_iter().find_map(|name| {
        let newest = state
            .check_runs
            .iter()
            .filter(|c| c.repo.eq_ignore_ascii_case(repo) && c.head_sha == pull.head_sha && c.name == name)
            .max_by_key(|c| c.id);
        let ok = newest.is_some_and(|c| c.status == "completed" && passing(c.conclusion.as_deref()));
        (!ok).then(|| format!("Required status check \"{name}\" is failing."))
    })
}

/// Merges PR `number` with a merge commit ("Merge a pull request",
/// https://docs.github.com/en/rest/pulls/pulls#merge-a-pull-request): the
/// base tip's tree with the PR's changes since its merge base, parents the
/// base tip and the head; the default branch moves to it, and the PR is
/// closed as merged with `merge_commit_sha` set.
fn merge(repo: &mut Repo, number: u64) -> Option<String> {
    let pull = repo.pulls.get(&number).filter(|p| p.merged.is_none())?;
    let (base, merge_base, head) = (pull.base_sha.clone(), pull.merge_base.clone(), pull.head_sha.clone());
    let tree = |sha: &str| repo.commits.get(sha).map(|t| (**t).clone()).unwrap_or_default();
    let (mut merged, branched, changed) = (tree(&base), tree(&merge_base), tree(&head));
    for (path, blob) in &changed {
        if branched.get(path) != Some(blob) {
            merged.insert(path.clone(), blob.clone());
        }
    }
    for path in branched.keys().filter(|p| !changed.contains_key(*p)) {
        merged.remove(path);
    }
    let sha = commit_sha(&merged, &format!("{}#{number}:merged", repo.full_name));
    repo.put_commit(sha.clone(), merged);
    repo.parents.insert(sha.clone(), vec![base.clone(), head]);
    move_default_branch(repo, &base, &sha);
    if let Some(pull) = repo.pulls.get_mut(&number) {
        pull.merged = Some(sha.clone());
    }
    Some(sha)
}

/// The default branch (and every open PR based on its tip) moves from `old` to `new`.
fn move_default_branch(repo: &mut Repo, old: &str, new: &str) {
    repo.refs.insert("main".into(), new.to_string());
    for pull in repo.pulls.values_mut().filter(|p| p.merged.is_none() && p.base_sha == old) {
        pull.base_sha = new.to_string();
    }
}

impl Sim {
    /// Merges PR `number` as a maintainer would with the merge button:
    /// refused (GitHub's 405) while a required check is not passing on the
    /// head. Returns the merge commit.
    pub fn merge_pr(&self, repo: &str, number: u64) -> Result<String, String> {
        let mut state = self.lock();
        if let Some(reason) = blocked(&state, repo, number) {
            return Err(reason);
        }
        let entry = state.repos.get_mut(&repo.to_ascii_lowercase()).ok_or("no such repository")?;
        merge(entry, number).ok_or_else(|| "Pull Request is not mergeable".into())
    }

    /// Merges PR `number` past its red required checks, as an administrator
    /// may when the rule does not "Do not allow bypassing the above settings"
    /// (https://docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/managing-protected-branches/about-protected-branches#do-not-allow-bypassing-the-above-settings).
    /// Returns the merge commit.
    pub fn merge_pr_as_admin(&self, repo: &str, number: u64) -> Option<String> {
        let mut state = self.lock();
        merge(state.repos.get_mut(&repo.to_ascii_lowercase())?, number)
    }

    /// Pushes `tree` straight onto the default branch, as a collaborator
    /// allowed to push to it does ("push" webhook event,
    /// https://docs.github.com/en/webhooks/webhook-events-and-payloads#push):
    /// no pull request, so no gate. Returns the new tip.
    pub fn push_direct(&self, repo: &str, tree: Tree, message: &str) -> String {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        let old = entry.refs.get("main").cloned().unwrap_or_default();
        let sha = commit_sha(&tree, &format!("{repo}:push:{old}:{message}"));
        entry.put_commit(sha.clone(), tree);
        entry.parents.insert(sha.clone(), vec![old.clone()]);
        move_default_branch(entry, &old, &sha);
        sha
    }

    /// The default branch's tip.
    pub fn default_branch_tip(&self, repo: &str) -> Option<String> {
        self.lock().repos.get(&repo.to_ascii_lowercase())?.refs.get("main").cloned()
    }
}

/// `PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge` ("Merge a pull
/// request", https://docs.github.com/en/rest/pulls/pulls#merge-a-pull-request):
/// 200 with `sha`, `merged` and `message`; 405 when it is not mergeable
/// (a required check failing, or merged already).
pub(crate) async fn merge_route(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
) -> Response {
    let full = format!("{owner}/{name}");
    let mut s = lock(&state);
    if s.repo(&owner, &name).and_then(|r| r.pulls.get(&number)).is_none() {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    if let Some(reason) = blocked(&s, &full, number) {
        return error(StatusCode::METHOD_NOT_ALLOWED, &reason);
    }
    let merged = s.repos.get_mut(&full.to_ascii_lowercase()).and_then(|r| merge(r, number));
    match merged {
        Some(sha) => {
            Json(json!({ "sha": sha, "merged": true, "message": "Pull Request successfully merged" })).into_response()
        }
        None => error(StatusCode::METHOD_NOT_ALLOWED, "Pull Request is not mergeable"),
    }
}

/// `GET /repos/{owner}/{repo}/git/blobs/{file_sha}` ("Get a blob",
/// https://docs.github.com/en/rest/git/blobs#get-a-blob): the bytes in
/// base64 (`encoding: base64`, lines of 60 characters as GitHub sends them).
pub(crate) async fn blob_route(
    State(state): State<Shared>,
    Path((owner, name, sha)): Path<(String, String, String)>,
) -> Response {
    use base64::Engine;
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let found = repo.commits.values().flat_map(|tree| tree.values()).find(|bytes| super::blob_sha(bytes) == sha);
    let Some(bytes) = found else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let lines: Vec<&str> = encoded.as_bytes().chunks(60).map(|c| std::str::from_utf8(c).unwrap_or("")).collect();
    let body: Value = json!({ "sha": sha, "size": bytes.len(), "encoding": "base64", "content": lines.join("\n") });
    Json(body).into_response()
}
