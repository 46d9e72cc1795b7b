//! An organisation's teams and accounts, as the review gate reads them:
//! "List teams", "List team members", the `membership` webhook, the
//! accounts GitHub marks `Bot`, and "List CODEOWNERS errors" for owners
//! that are no account or team of the simulation.

use std::collections::{BTreeMap, BTreeSet};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Sim;
use super::routes::{Page, Shared, error, lock, paged};

/// A team of an organisation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Team {
    id: u64,
    members: Vec<String>,
}

/// Teams by (organisation, slug), lowercase, and the accounts known.
#[derive(Debug, Default)]
pub(crate) struct Teams {
    teams: BTreeMap<(String, String), Team>,
    /// Logins that are accounts of the simulation (owners CODEOWNERS may name).
    users: BTreeSet<String>,
    /// Logins GitHub marks `type: Bot`.
    bots: BTreeSet<String>,
}

impl Teams {
    /// `User` or `Bot`, as GitHub's `simple-user.type` says.
    pub(crate) fn kind(&self, login: &str) -> &'static str {
        let lower = login.to_ascii_lowercase();
        if lower.ends_with("[bot]") || self.bots.contains(&lower) { "Bot" } else { "User" }
    }
}

impl Sim {
    /// A team `@org/slug` with `members`; its members become known accounts.
    pub fn add_team(&self, org: &str, slug: &str, members: &[&str]) {
        let mut state = self.lock();
        let id = 7000 + state.teams.teams.len() as u64;
        state.teams.users.extend(members.iter().map(|m| m.to_ascii_lowercase()));
        let team = Team { id, members: members.iter().map(|m| m.to_string()).collect() };
        state.teams.teams.insert((org.to_ascii_lowercase(), slug.to_ascii_lowercase()), team);
    }

    /// The id "List teams" gives `@org/slug` (rulesets name teams by id).
    pub fn team_id(&self, org: &str, slug: &str) -> Option<u64> {
        self.lock().teams.teams.get(&(org.to_ascii_lowercase(), slug.to_ascii_lowercase())).map(|t| t.id)
    }

    /// `login` joins `@org/slug`; returns the `membership` webhook payload
    /// GitHub sends ("Webhook events and payloads", membership, `added`).
    pub fn add_team_member(&self, org: &str, slug: &str, login: &str) -> Value {
        let mut state = self.lock();
        let installation = state.installation;
        state.teams.users.insert(login.to_ascii_lowercase());
        let key = (org.to_ascii_lowercase(), slug.to_ascii_lowercase());
        let team = state.teams.teams.entry(key).or_default();
        team.members.push(login.to_string());
        let id = team.id;
        json!({
            "action": "added",
            "scope": "team",
            "member": { "login": login, "type": "User" },
            "team": { "id": id, "name": slug, "slug": slug },
            "organization": { "login": org },
            "installation": { "id": installation },
            "sender": { "login": "octo-admin", "type": "User" },
        })
    }

    /// Accounts of the simulation: CODEOWNERS may name them.
    pub fn add_users(&self, logins: &[&str]) {
        self.lock().teams.users.extend(logins.iter().map(|l| l.to_ascii_lowercase()));
    }

    /// An account GitHub marks `type: Bot` (an App's or a machine user).
    pub fn mark_bot(&self, login: &str) {
        let mut state = self.lock();
        state.teams.bots.insert(login.to_ascii_lowercase());
        state.teams.users.insert(login.to_ascii_lowercase());
    }
}

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/orgs/{org}/teams", get(list_teams))
        .route("/orgs/{org}/teams/{slug}/members", get(list_members))
        .route("/repos/{owner}/{repo}/codeowners/errors", get(codeowners_errors))
}

/// "List teams" (docs.github.com/en/rest/teams/teams#list-teams): the
/// organisation's teams, paged.
async fn list_teams(
    State(state): State<Shared>,
    Path(org): Path<String>,
    Query(q): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    let org_key = org.to_ascii_lowercase();
    let teams: Vec<Value> = s
        .teams
        .teams
        .iter()
        .filter(|((o, _), _)| *o == org_key)
        .map(|((_, slug), t)| json!({ "id": t.id, "name": slug, "slug": slug }))
        .collect();
    drop(s);
    paged(&q, &teams, &headers, &format!("/orgs/{org}/teams"))
}

/// "List team members" (docs.github.com/en/rest/teams/members#list-team-members):
/// the team's members (`simple-user`, with `type`), paged; 404 for a team
/// the organisation does not have.
async fn list_members(
    State(state): State<Shared>,
    Path((org, slug)): Path<(String, String)>,
    Query(q): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    let Some(team) = s.teams.teams.get(&(org.to_ascii_lowercase(), slug.to_ascii_lowercase())) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let members: Vec<Value> =
        team.members.iter().map(|login| json!({ "login": login, "type": s.teams.kind(login) })).collect();
    drop(s);
    paged(&q, &members, &headers, &format!("/orgs/{org}/teams/{slug}/members"))
}

#[derive(Deserialize)]
pub(crate) struct RefQuery {
    #[serde(rename = "ref")]
    git_ref: Option<String>,
}

/// "List CODEOWNERS errors" (docs.github.com/en/rest/repos/repos#list-codeowners-errors):
/// the first of `.github/CODEOWNERS`, `CODEOWNERS`, `docs/CODEOWNERS` at
/// `ref` (default: the default branch); this simulation reports an owner
/// that is no account or team it knows as "Unknown owner", at its line and
/// column. No such file is 404.
async fn codeowners_errors(
    State(state): State<Shared>,
    Path((owner, name)): Path<(String, String)>,
    Query(q): Query<RefQuery>,
) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let commit = q.git_ref.as_deref().or_else(|| repo.refs.get("main").map(String::as_str)).unwrap_or_default();
    let commit = repo.refs.get(commit).map(String::as_str).unwrap_or(commit);
    let Some(tree) = repo.commits.get(commit) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let Some((path, bytes)) =
        [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"].iter().find_map(|p| Some((*p, tree.get(*p)?)))
    else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let text = String::from_utf8_lossy(bytes);
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let content = line.split(" #").next().unwrap_or(line);
        if content.trim_start().starts_with('#') {
            continue;
        }
        let mut column = 0;
        for (i, token) in content.split(' ').enumerate() {
            let at = column + 1;
            column += token.chars().count() + 1;
            let Some(owner) = token.strip_prefix('@').filter(|_| i > 0) else { continue };
            let known = match owner.split_once('/') {
                Some((org, slug)) => s.teams.teams.contains_key(&(org.to_ascii_lowercase(), slug.to_ascii_lowercase())),
                None => s.teams.users.contains(&owner.to_ascii_lowercase()),
            };
            if !known {
                errors.push(json!({
                    "line": n + 1, "column": at, "kind": "Unknown owner", "source": line,
                    "suggestion": format!("make sure @{owner} exists and has write access to the repository"),
                    "message": format!("Unknown owner on line {}: make sure @{owner} exists and has write access to the repository\n\n  {line}", n + 1),
                    "path": path,
                }));
            }
        }
    }
    Json(json!({ "errors": errors })).into_response()
}
