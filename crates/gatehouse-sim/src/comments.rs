//! A pull request's conversation beyond what the App posts: people's
//! comments and the `issue_comment` deliveries they make, reactions, and
//! the collaborator permission endpoint commands are checked against.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::routes::{Page, Shared, error, lock, paged};
use super::{IssueComment, Sim};

/// A reaction to a conversation comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reaction {
    pub comment: u64,
    pub user: String,
    /// `+1`, `-1`, `laugh`, `confused`, `heart`, `hooray`, `rocket`, `eyes`.
    pub content: String,
}

/// The contents "Create reaction for an issue comment" accepts.
const CONTENTS: [&str; 8] = ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"];

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/repos/{owner}/{repo}/issues/{number}/comments", get(list).post(create))
        .route("/repos/{owner}/{repo}/issues/comments/{id}/reactions", post(react))
        .route("/repos/{owner}/{repo}/collaborators/{username}/permission", get(permission))
}

fn comment_json(c: &IssueComment) -> Value {
    let kind = if c.user.ends_with("[bot]") { "Bot" } else { "User" };
    json!({ "id": c.id, "body": c.body, "user": { "login": c.user, "type": kind } })
}

/// "List issue comments" (docs.github.com/en/rest/issues/comments#list-issue-comments):
/// oldest first, `per_page` (default 30, at most 100) and `page`, a `Link`
/// header to the next page.
async fn list(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Query(q): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    if s.repo(&owner, &name).and_then(|r| r.pulls.get(&number)).is_none() {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let full = format!("{owner}/{name}");
    let all: Vec<Value> = s
        .issue_comments
        .iter()
        .filter(|c| c.repo.eq_ignore_ascii_case(&full) && c.pr == number)
        .map(comment_json)
        .collect();
    paged(&q, &all, &headers, &format!("/repos/{owner}/{name}/issues/{number}/comments"))
}

/// "Create an issue comment" (docs.github.com/en/rest/issues/comments#create-an-issue-comment):
/// 201 with the comment; a body missing or over 65,536 characters is 422.
/// Made with an installation token, the comment is the App's bot's.
async fn create(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    if s.repo(&owner, &name).and_then(|r| r.pulls.get(&number)).is_none() {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let text = body.get("body").and_then(Value::as_str).unwrap_or("").to_string();
    if text.is_empty() || text.chars().count() > super::routes::BODY_CHARS {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed: body is missing or too long");
    }
    let id = s.id();
    let comment =
        IssueComment { id, repo: format!("{owner}/{name}"), pr: number, user: "gatehouse[bot]".into(), body: text };
    let out = comment_json(&comment);
    s.issue_comments.push(comment);
    (StatusCode::CREATED, Json(out)).into_response()
}

/// "Create reaction for an issue comment"
/// (docs.github.com/en/rest/reactions/reactions#create-reaction-for-an-issue-comment):
/// 201 with a new reaction, 200 with the one the user already gave, 422 for
/// a content GitHub has no reaction for, 404 for a comment it does not have.
async fn react(
    State(state): State<Shared>,
    Path((owner, name, id)): Path<(String, String, u64)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    let full = format!("{owner}/{name}");
    if !s.issue_comments.iter().any(|c| c.id == id && c.repo.eq_ignore_ascii_case(&full)) {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let content = body.get("content").and_then(Value::as_str).unwrap_or("");
    if !CONTENTS.contains(&content) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed: content is not included in the list");
    }
    let reaction = Reaction { comment: id, user: "gatehouse[bot]".into(), content: content.to_string() };
    let answer = json!({ "content": content, "user": { "login": reaction.user, "type": "Bot" } });
    if s.reactions.contains(&reaction) {
        return (StatusCode::OK, Json(answer)).into_response();
    }
    s.reactions.push(reaction);
    (StatusCode::CREATED, Json(answer)).into_response()
}

/// "Get repository permissions for a user"
/// (docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user):
/// `role_name` is the user's role, `permission` its legacy level (triage
/// reads as `read`, maintain as `write`). A user with no role on this
/// simulated (private) repository has `none`.
async fn permission(
    State(state): State<Shared>,
    Path((owner, name, username)): Path<(String, String, String)>,
) -> Response {
    let s = lock(&state);
    if s.repo(&owner, &name).is_none() {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let key = (format!("{owner}/{name}").to_ascii_lowercase(), username.to_ascii_lowercase());
    let role = s.roles.get(&key).map_or("none", String::as_str);
    let permission = match role {
        "admin" => "admin",
        "maintain" | "write" => "write",
        "triage" | "read" => "read",
        _ => "none",
    };
    Json(json!({ "permission": permission, "role_name": role, "user": { "login": username, "type": "User" } }))
        .into_response()
}

impl Sim {
    /// Gives `login` a role on `repo`: `read`, `triage`, `write`, `maintain`, `admin`.
    pub fn set_role(&self, repo: &str, login: &str, role: &str) {
        self.lock().roles.insert((repo.to_ascii_lowercase(), login.to_ascii_lowercase()), role.to_string());
    }

    /// `login` comments `body` on pull request `number`; returns the
    /// `issue_comment.created` payload GitHub sends ("Webhook events and
    /// payloads", docs.github.com/en/webhooks/webhook-events-and-payloads#issue_comment):
    /// the issue is the pull request (`issue.pull_request` holds its URLs,
    /// `issue.user` its author), the comment carries its author and type.
    pub fn comment(&self, repo: &str, number: u64, login: &str, body: &str) -> Value {
        let mut s = self.lock();
        let id = s.id();
        s.issue_comments.push(IssueComment {
            id,
            repo: repo.to_string(),
            pr: number,
            user: login.to_string(),
            body: body.to_string(),
        });
        // Every simulated pull request is opened by `author` (`routes::pull_json`).
        let author = "author";
        let kind = if login.ends_with("[bot]") { "Bot" } else { "User" };
        let api = format!("https://api.github.com/repos/{repo}");
        json!({
            "action": "created",
            "issue": {
                "number": number, "title": format!("Change #{number}"), "state": "open",
                "user": { "login": author, "type": "User" },
                "pull_request": { "url": format!("{api}/pulls/{number}"), "html_url": format!("https://github.com/{repo}/pull/{number}"), "merged_at": null },
            },
            "comment": {
                "id": id, "node_id": format!("IC_{id}"), "body": body,
                "user": { "login": login, "type": kind },
                "author_association": "NONE", "performed_via_github_app": null,
                "created_at": "2026-12-07T01:00:00Z", "updated_at": "2026-12-07T01:00:00Z",
            },
            "repository": { "full_name": repo, "name": repo.split('/').nth(1), "default_branch": "main" },
            "installation": { "id": s.installation },
            "sender": { "login": login, "type": kind },
        })
    }

    /// The reactions to conversation comment `id`.
    pub fn reactions(&self, id: u64) -> Vec<Reaction> {
        self.lock().reactions.iter().filter(|r| r.comment == id).cloned().collect()
    }
}
