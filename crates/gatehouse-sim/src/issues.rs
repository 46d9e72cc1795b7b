//! Issues (the App's dashboard issue): created, read, listed and edited as
//! GitHub's REST API does it, numbered with the pull requests (an issue
//! and a pull request never share a number).

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Sim;
use super::routes::{BODY_CHARS, Page, Shared, error, lock, paged};

/// An issue as the simulated GitHub stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub repo: String,
    pub number: u64,
    pub title: String,
    pub body: String,
    /// `open` or `closed`.
    pub state: String,
    /// Who opened it: the App's issues are `gatehouse[bot]`'s.
    pub user: String,
}

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/repos/{owner}/{repo}/issues", get(list).post(create))
        .route("/repos/{owner}/{repo}/issues/{number}", get(one).patch(edit))
}

fn issue_json(i: &Issue) -> Value {
    json!({ "number": i.number, "title": i.title, "body": i.body, "state": i.state,
            "user": { "login": i.user, "type": if i.user.ends_with("[bot]") { "Bot" } else { "User" } } })
}

/// GitHub's 422 for a title or a body it does not accept (a title is
/// required, a body is at most 65,536 characters); `None`: accepted.
fn refusal(title: Option<&str>, body: Option<&str>) -> Option<Response> {
    if title.is_some_and(|t| t.trim().is_empty()) {
        return Some(error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed: title is missing"));
    }
    if body.is_some_and(|b| b.chars().count() > BODY_CHARS) {
        return Some(error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed: body is too long"));
    }
    None
}

#[derive(Deserialize)]
struct Listing {
    state: Option<String>,
}

/// "List repository issues" (docs.github.com/en/rest/issues/issues#list-repository-issues):
/// open issues by default, `state=closed` or `all`, newest first (the
/// default sort, `created` descending), paged. Pull requests are listed too,
/// marked by a `pull_request` key ("GitHub's REST API considers every pull
/// request an issue"); the simulated ones are all open.
async fn list(
    State(state): State<Shared>,
    Path((owner, name)): Path<(String, String)>,
    Query(q): Query<Listing>,
    Query(page): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let full = format!("{owner}/{name}");
    let wanted = q.state.unwrap_or_else(|| "open".into());
    let mut listed: Vec<(u64, Value)> = s
        .issues
        .iter()
        .filter(|i| i.repo.eq_ignore_ascii_case(&full) && (wanted == "all" || i.state == wanted))
        .map(|i| (i.number, issue_json(i)))
        .collect();
    if wanted != "closed" {
        listed.extend(repo.pulls.values().filter(|p| p.merged.is_none()).map(|p| {
            let url = format!("/repos/{full}/pulls/{}", p.number);
            (p.number, json!({ "number": p.number, "title": p.title, "body": p.body, "state": "open", "pull_request": { "url": url } }))
        }));
    }
    listed.sort_by_key(|(number, _)| std::cmp::Reverse(*number));
    let listed: Vec<Value> = listed.into_iter().map(|(_, issue)| issue).collect();
    paged(&page, &listed, &headers, &format!("/repos/{owner}/{name}/issues"))
}

/// "Create an issue" (docs.github.com/en/rest/issues/issues#create-an-issue):
/// 201 with the issue, numbered after every issue and pull request.
async fn create(
    State(state): State<Shared>,
    Path((owner, name)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let title = body.get("title").and_then(Value::as_str);
    let text = body.get("body").and_then(Value::as_str);
    if title.is_none() {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed: title is missing");
    }
    if let Some(refused) = refusal(title, text) {
        return refused;
    }
    let full = repo.full_name.clone();
    let last_pr = repo.pulls.keys().max().copied().unwrap_or(0);
    let last_issue = s.issues.iter().filter(|i| i.repo.eq_ignore_ascii_case(&full)).map(|i| i.number).max();
    let issue = Issue {
        repo: full,
        number: last_pr.max(last_issue.unwrap_or(0)) + 1,
        title: title.unwrap_or_default().to_string(),
        body: text.unwrap_or_default().to_string(),
        state: "open".into(),
        user: "gatehouse[bot]".into(),
    };
    let out = issue_json(&issue);
    s.issues.push(issue);
    (StatusCode::CREATED, Json(out)).into_response()
}

/// "Get an issue" (docs.github.com/en/rest/issues/issues#get-an-issue).
async fn one(State(state): State<Shared>, Path((owner, name, number)): Path<(String, String, u64)>) -> Response {
    let s = lock(&state);
    let full = format!("{owner}/{name}");
    match s.issues.iter().find(|i| i.repo.eq_ignore_ascii_case(&full) && i.number == number) {
        Some(issue) => Json(issue_json(issue)).into_response(),
        None => error(StatusCode::NOT_FOUND, "Not Found"),
    }
}

/// "Update an issue" (docs.github.com/en/rest/issues/issues#update-an-issue):
/// `title`, `body` and `state` (`open`, `closed`) as given, the rest kept.
async fn edit(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    let full = format!("{owner}/{name}");
    let title = body.get("title").and_then(Value::as_str);
    let text = body.get("body").and_then(Value::as_str);
    if let Some(refused) = refusal(title, text) {
        return refused;
    }
    let new_state = body.get("state").and_then(Value::as_str);
    if new_state.is_some_and(|st| st != "open" && st != "closed") {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed: state is not included in the list");
    }
    let Some(issue) = s.issues.iter_mut().find(|i| i.repo.eq_ignore_ascii_case(&full) && i.number == number) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    if let Some(title) = title {
        issue.title = title.to_string();
    }
    if let Some(text) = text {
        issue.body = text.to_string();
    }
    if let Some(st) = new_state {
        issue.state = st.to_string();
    }
    Json(issue_json(issue)).into_response()
}

impl Sim {
    /// The issues of `repo`, in the order they were opened.
    pub fn issues(&self, repo: &str) -> Vec<Issue> {
        self.lock().issues.iter().filter(|i| i.repo.eq_ignore_ascii_case(repo)).cloned().collect()
    }

    /// Someone closes (`closed`) or reopens (`open`) issue `number`.
    pub fn set_issue_state(&self, repo: &str, number: u64, state: &str) {
        let mut s = self.lock();
        if let Some(issue) = s.issues.iter_mut().find(|i| i.repo.eq_ignore_ascii_case(repo) && i.number == number) {
            issue.state = state.to_string();
        }
    }
}
