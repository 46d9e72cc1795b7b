//! Which checks a branch requires: the rulesets that apply to it (a
//! repository's or its organisation's) and its classic branch protection,
//! read as GitHub's REST API answers them.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::Sim;
use super::routes::{Page, Shared, error, lock, paged};

/// A ruleset's `required_status_checks` rule: the checks it names, each
/// with the App that must report it (`None`: any source).
#[derive(Clone, Debug, Default)]
pub(crate) struct Ruleset {
    id: u64,
    name: String,
    /// `owner/name` for a repository's ruleset; `None`: the organisation's,
    /// which applies to every repository.
    repo: Option<String>,
    branch: String,
    checks: Vec<(String, Option<u64>)>,
    /// A `pull_request` rule's parameters, when it has one.
    reviews: Option<Value>,
}

/// The branch rules the simulated GitHub holds.
#[derive(Debug, Default)]
pub(crate) struct BranchRules {
    rulesets: Vec<Ruleset>,
    /// (repository, branch) → the contexts its protection requires.
    protected: BTreeMap<(String, String), Vec<String>>,
}

impl Sim {
    /// A ruleset of `repo` (`None`: of the organisation, over every
    /// repository) requiring `checks` on `branch`, each reported by the
    /// App `integration_id` (`None`: by any source).
    pub fn require_checks_by_ruleset(
        &self,
        repo: Option<&str>,
        branch: &str,
        checks: &[&str],
        integration_id: Option<u64>,
    ) {
        let mut state = self.lock();
        let id = 100 + state.branch_rules.rulesets.len() as u64;
        state.branch_rules.rulesets.push(Ruleset {
            id,
            name: format!("checks-{id}"),
            repo: repo.map(str::to_ascii_lowercase),
            branch: branch.to_string(),
            checks: checks.iter().map(|c| (c.to_string(), integration_id)).collect(),
            reviews: None,
        });
    }

    /// A ruleset `name` of `repo` with a `pull_request` rule on `branch`:
    /// `approvals` required, code owners' review when `code_owners`, and
    /// each `(file_patterns, minimum_approvals, team_id)` as required
    /// reviewers ("Rules for pull requests", generally available since
    /// February 2026).
    pub fn require_reviews_by_ruleset(
        &self,
        repo: &str,
        name: &str,
        branch: &str,
        approvals: u64,
        code_owners: bool,
        required: &[(&[&str], u64, u64)],
    ) {
        let mut state = self.lock();
        let id = 100 + state.branch_rules.rulesets.len() as u64;
        let reviewers: Vec<Value> = required
            .iter()
            .map(|(patterns, minimum, team)| {
                json!({ "file_patterns": patterns, "minimum_approvals": minimum, "reviewer": { "id": team, "type": "Team" } })
            })
            .collect();
        state.branch_rules.rulesets.push(Ruleset {
            id,
            name: name.to_string(),
            repo: Some(repo.to_ascii_lowercase()),
            branch: branch.to_string(),
            checks: Vec::new(),
            reviews: Some(json!({
                "required_approving_review_count": approvals, "dismiss_stale_reviews_on_push": false,
                "require_code_owner_review": code_owners, "require_last_push_approval": false,
                "required_review_thread_resolution": false, "required_reviewers": reviewers,
            })),
        });
    }

    /// Classic branch protection of `branch` of `repo`, requiring the
    /// status checks `contexts`.
    pub fn require_checks_by_protection(&self, repo: &str, branch: &str, contexts: &[&str]) {
        let mut state = self.lock();
        let key = (repo.to_ascii_lowercase(), branch.to_string());
        state.branch_rules.protected.insert(key, contexts.iter().map(|c| c.to_string()).collect());
    }
}

impl BranchRules {
    /// The checks `branch` of `repo` requires, by its rulesets (the
    /// repository's and the organisation's) and its branch protection.
    pub(crate) fn required(&self, repo: &str, branch: &str) -> Vec<String> {
        let key = repo.to_ascii_lowercase();
        let by_rulesets = self
            .rulesets
            .iter()
            .filter(|r| r.branch == branch && r.repo.as_ref().is_none_or(|own| *own == key))
            .flat_map(|r| r.checks.iter().map(|(name, _)| name.clone()));
        let by_protection = self.protected.get(&(key.clone(), branch.to_string())).into_iter().flatten().cloned();
        let mut names: Vec<String> = by_rulesets.chain(by_protection).collect();
        names.sort();
        names.dedup();
        names
    }
}

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/repos/{owner}/{repo}/rules/branches/{*branch}", get(rules_for_branch))
        .route("/repos/{owner}/{repo}/rulesets/{id}", get(ruleset))
        .route("/repos/{owner}/{repo}/branches/{*branch}", get(branch))
}

/// "Get rules for a branch" (docs.github.com/en/rest/repos/rules#get-rules-for-a-branch):
/// every active rule that applies to the branch, whether its ruleset is the
/// repository's or the organisation's, each with its ruleset's source; the
/// branch need not exist. A ruleset here also forbids deleting the branch
/// (a `deletion` rule), as rulesets that require checks usually do, so a
/// reader meets rules of other types. Paged like every list.
async fn rules_for_branch(
    State(state): State<Shared>,
    Path((owner, name, branch)): Path<(String, String, String)>,
    Query(q): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    let full = format!("{owner}/{name}");
    let key = full.to_ascii_lowercase();
    if !s.repos.contains_key(&key) {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let mut rules = Vec::new();
    for set in s.branch_rules.rulesets.iter().filter(|r| r.branch == branch) {
        let (source_type, source) = match &set.repo {
            Some(repo) if *repo != key => continue,
            Some(_) => ("Repository", full.clone()),
            None => ("Organization", owner.clone()),
        };
        let source = json!({ "ruleset_source_type": source_type, "ruleset_source": source, "ruleset_id": set.id });
        let checks: Vec<Value> = set
            .checks
            .iter()
            .map(|(context, app)| match app {
                Some(app) => json!({ "context": context, "integration_id": app }),
                None => json!({ "context": context }),
            })
            .collect();
        let mut deletion = json!({ "type": "deletion" });
        let mut required = json!({
            "type": "required_status_checks",
            "parameters": { "strict_required_status_checks_policy": false, "do_not_enforce_on_create": false,
                            "required_status_checks": checks },
        });
        for rule in [&mut deletion, &mut required] {
            rule.as_object_mut().expect("an object").extend(source.as_object().expect("an object").clone());
        }
        rules.push(deletion);
        if !set.checks.is_empty() {
            rules.push(required);
        }
        if let Some(parameters) = &set.reviews {
            let mut rule = json!({ "type": "pull_request", "parameters": parameters });
            rule.as_object_mut().expect("an object").extend(source.as_object().expect("an object").clone());
            rules.push(rule);
        }
    }
    drop(s);
    paged(&q, &rules, &headers, &format!("/repos/{owner}/{name}/rules/branches/{branch}"))
}

/// "Get a branch" (docs.github.com/en/rest/branches/branches#get-a-branch):
/// `protected`, and under `protection` the status checks its classic branch
/// protection requires (`contexts`, and `checks` with the App each must come
/// from, `null` for any). A branch the repository does not have is 404
/// "Branch not found"; a pull request's base always exists.
async fn branch(State(state): State<Shared>, Path((owner, name, branch)): Path<(String, String, String)>) -> Response {
    let s = lock(&state);
    let key = format!("{owner}/{name}").to_ascii_lowercase();
    let Some(repo) = s.repos.get(&key) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    // Pull requests opened here name `main` as their base (`pull_json`).
    let base_of_pulls = || repo.pulls.values().next().filter(|_| branch == "main").map(|p| &p.base_sha);
    let Some(tip) = repo.refs.get(&branch).or_else(base_of_pulls) else {
        return error(StatusCode::NOT_FOUND, "Branch not found");
    };
    let contexts = s.branch_rules.protected.get(&(key, branch.clone()));
    let protection = match contexts {
        Some(contexts) => json!({
            "enabled": true,
            "required_status_checks": {
                "enforcement_level": "non_admins",
                "contexts": contexts,
                "checks": contexts.iter().map(|c| json!({ "context": c, "app_id": null })).collect::<Vec<_>>(),
            },
        }),
        None => json!({
            "enabled": false,
            "required_status_checks": { "enforcement_level": "off", "contexts": [], "checks": [] },
        }),
    };
    Json(json!({ "name": branch, "commit": { "sha": tip }, "protected": contexts.is_some(), "protection": protection }))
        .into_response()
}

/// "Get a repository ruleset" (docs.github.com/en/rest/repos/rules#get-a-repository-ruleset):
/// its id, name and target; 404 for an id the repository has none of.
async fn ruleset(State(state): State<Shared>, Path((owner, name, id)): Path<(String, String, u64)>) -> Response {
    let s = lock(&state);
    let key = format!("{owner}/{name}").to_ascii_lowercase();
    let found = s.branch_rules.rulesets.iter().find(|r| r.id == id && r.repo.as_ref().is_none_or(|own| *own == key));
    match found {
        Some(set) => {
            Json(json!({ "id": set.id, "name": set.name, "target": "branch", "enforcement": "active" })).into_response()
        }
        None => error(StatusCode::NOT_FOUND, "Not Found"),
    }
}
