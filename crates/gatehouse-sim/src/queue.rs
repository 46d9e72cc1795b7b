//! The merge queue and review requests of the simulated GitHub: merge
//! groups built from queued PRs (merge commits whose second parent is each
//! PR's head), `compare/{base}...{head}`, and
//! `pulls/{n}/requested_reviewers`, which refuses logins that are not
//! collaborators with GitHub's 422.

use std::collections::HashSet;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use gatehouse_core::gate::same_login;
use serde::Deserialize;
use serde_json::{Value, json};

use super::diff::diff_files;
use super::routes::{Shared, error, lock, with_next};
use super::{Repo, Sim, Tree, commit_sha};

/// GitHub's compare lists at most this many files.
const COMPARE_FILES: usize = 300;

/// What a merge group was created as.
#[derive(Clone, Debug)]
pub struct MergeGroupRefs {
    pub repo: String,
    pub base_sha: String,
    pub head_sha: String,
    /// `refs/heads/gh-readonly-queue/main/pr-<last>-<base>`.
    pub head_ref: String,
    pub base_ref: String,
}

impl Sim {
    /// Queues `prs` (in order) in one merge group on the first PR's base:
    /// each PR's change is merged onto the group so far with a merge commit.
    pub fn queue_merge_group(&self, repo: &str, prs: &[u64]) -> MergeGroupRefs {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        let first = prs.first().and_then(|n| entry.pulls.get(n)).expect("a queued PR");
        let base_sha = first.base_sha.clone();
        let mut tree: Tree = entry.commits.get(&base_sha).map(|t| t.as_ref().clone()).unwrap_or_default();
        let mut tip = base_sha.clone();
        for number in prs {
            let pull = entry.pulls.get(number).expect("a queued PR");
            let (pr_base, pr_head) = (pull.merge_base.clone(), pull.head_sha.clone());
            let empty = Tree::new();
            let before = entry.commits.get(&pr_base).map_or(&empty, |t| t.as_ref());
            let after = entry.commits.get(&pr_head).map_or(&empty, |t| t.as_ref());
            for path in before.keys().filter(|p| !after.contains_key(*p)) {
                tree.remove(path);
            }
            for (path, bytes) in after.iter().filter(|(p, b)| before.get(*p) != Some(*b)) {
                tree.insert(path.clone(), bytes.clone());
            }
            let merge = commit_sha(&tree, &format!("merge-group:{repo}:{number}:{tip}"));
            entry.parents.entry(pr_head.clone()).or_insert_with(|| vec![pr_base]);
            entry.parents.insert(merge.clone(), vec![tip, pr_head]);
            entry.put_commit(merge.clone(), tree.clone());
            tip = merge;
        }
        let last = prs.last().copied().unwrap_or(0);
        MergeGroupRefs {
            repo: repo.to_string(),
            head_ref: format!("refs/heads/gh-readonly-queue/main/pr-{last}-{base_sha}"),
            base_ref: "refs/heads/main".into(),
            base_sha,
            head_sha: tip,
        }
    }

    /// Logins asked for a review of the PR and not yet reviewed.
    pub fn requested_reviewers(&self, repo: &str, pr: u64) -> Vec<String> {
        let state = self.lock();
        state.repos.get(&repo.to_ascii_lowercase()).and_then(|r| r.requested.get(&pr).cloned()).unwrap_or_default()
    }

    /// `login` is not a collaborator of `repo`: review requests naming it get 422.
    pub fn refuse_reviewer(&self, repo: &str, login: &str) {
        let mut state = self.lock();
        state.repos.entry(repo.to_ascii_lowercase()).or_default().non_collaborators.push(login.to_string());
    }
}

/// Commits reachable from `head` and not from `base`, parents first.
fn between(repo: &Repo, base: &str, head: &str) -> Vec<String> {
    let mut excluded = HashSet::new();
    let mut stack = vec![base.to_string()];
    while let Some(sha) = stack.pop() {
        if excluded.insert(sha.clone()) {
            stack.extend(repo.parents.get(&sha).into_iter().flatten().cloned());
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    visit(repo, head, &excluded, &mut seen, &mut out);
    out
}

fn visit(repo: &Repo, sha: &str, excluded: &HashSet<String>, seen: &mut HashSet<String>, out: &mut Vec<String>) {
    if excluded.contains(sha) || !seen.insert(sha.to_string()) {
        return;
    }
    for parent in repo.parents.get(sha).into_iter().flatten() {
        visit(repo, parent, excluded, seen, out);
    }
    out.push(sha.to_string());
}

#[derive(Deserialize)]
pub(crate) struct Page {
    page: Option<usize>,
    per_page: Option<usize>,
}

pub(crate) async fn compare(
    State(state): State<Shared>,
    Path((owner, name, basehead)): Path<(String, String, String)>,
    Query(q): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let Some((base, head)) = basehead.split_once("...") else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let (Some(base), Some(head)) = (repo.resolve(base), repo.resolve(head)) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let Some(merge_base) = super::branches::merge_base(repo, base, head) else {
        // GitHub: 404 when the two commits share no history.
        return error(StatusCode::NOT_FOUND, &format!("No common ancestor between {base} and {head}."));
    };
    let commits = between(repo, base, head);
    let per_page = q.per_page.unwrap_or(250).clamp(1, 250);
    let page = q.page.unwrap_or(1).max(1);
    let listed: Vec<Value> = commits
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .map(|sha| {
            let parents: Vec<Value> =
                repo.parents.get(sha).into_iter().flatten().map(|p| json!({ "sha": p })).collect();
            json!({ "sha": sha, "parents": parents, "commit": { "message": format!("Commit {sha}") } })
        })
        .collect();
    let mut body = json!({
        "merge_base_commit": { "sha": merge_base, "commit": { "message": format!("Commit {merge_base}") } },
        "status": "ahead",
        "ahead_by": commits.len(),
        "behind_by": 0,
        "total_commits": commits.len(),
        "commits": listed,
    });
    if page == 1 {
        let empty = Tree::new();
        let before = repo.commits.get(merge_base.as_str()).map_or(&empty, |t| t.as_ref());
        let after = repo.commits.get(head).map_or(&empty, |t| t.as_ref());
        let mut files = diff_files(before, after);
        files.truncate(COMPARE_FILES);
        body["files"] = json!(files);
    }
    let response = Json(body).into_response();
    if page * per_page < commits.len() {
        let next = format!("/repos/{owner}/{name}/compare/{basehead}?per_page={per_page}&page={}", page + 1);
        return with_next(response, &headers, &next);
    }
    response
}

#[derive(Deserialize)]
pub(crate) struct ReviewerRequest {
    #[serde(default)]
    reviewers: Vec<String>,
    /// Teams by slug, of the repository's owner.
    #[serde(default)]
    team_reviewers: Vec<String>,
}

pub(crate) async fn request_reviewers(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Json(body): Json<ReviewerRequest>,
) -> Response {
    let mut s = lock(&state);
    let Some(repo) = s.repos.get_mut(&format!("{owner}/{name}").to_ascii_lowercase()) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    if !repo.pulls.contains_key(&number) {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    if body.reviewers.iter().any(|r| repo.non_collaborators.iter().any(|n| same_login(n, r))) {
        let message = format!(
            "Reviews may only be requested from collaborators. One or more of the users or teams you specified is \
             not a collaborator of the {owner}/{name} repository."
        );
        return error(StatusCode::UNPROCESSABLE_ENTITY, &message);
    }
    let requested = repo.requested.entry(number).or_default();
    // A team asked is kept as `@owner/slug` beside the users.
    let teams = body.team_reviewers.iter().map(|slug| format!("@{owner}/{slug}"));
    for login in body.reviewers.into_iter().chain(teams) {
        if !requested.iter().any(|r| same_login(r, &login)) {
            requested.push(login);
        }
    }
    let users: Vec<Value> = requested.iter().filter(|l| !l.starts_with('@')).map(|l| json!({ "login": l })).collect();
    (StatusCode::CREATED, Json(json!({ "number": number, "requested_reviewers": users }))).into_response()
}

pub(crate) async fn list_requested_reviewers(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    if !repo.pulls.contains_key(&number) {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let asked = || repo.requested.get(&number).into_iter().flatten();
    let users: Vec<Value> = asked().filter(|l| !l.starts_with('@')).map(|l| json!({ "login": l })).collect();
    let slug = |l: &String| l.rsplit('/').next().unwrap_or_default().to_string();
    let teams: Vec<Value> = asked().filter(|l| l.starts_with('@')).map(|l| json!({ "slug": slug(l) })).collect();
    Json(json!({ "users": users, "teams": teams })).into_response()
}
