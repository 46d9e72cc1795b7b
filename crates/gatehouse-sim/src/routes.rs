//! The REST routes of the simulated GitHub and its auth (the fault switches
//! and the request log are `faults`).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use gatehouse_core::diff::commentable_lines;
use gatehouse_core::docs::timestamp::format_utc;
use serde::Deserialize;
use serde_json::{Value, json};

use super::diff::changed_files;
use super::{CheckRun, Pull, Review, ReviewComment, State as SimState, Thread};

pub(crate) type Shared = Arc<Mutex<SimState>>;

/// GitHub lists at most this many commits of a PR.
const COMMITS_CAP: usize = 250;
/// GitHub lists at most this many files of a PR.
const FILES_CAP: usize = 3000;
/// GitHub's limit on an annotation's message and raw details, in bytes.
const ANNOTATION_BYTES: usize = 64 * 1024;
/// GitHub's limit on a review's, a review comment's or a comment's body.
pub(crate) const BODY_CHARS: usize = 65_536;

pub(crate) fn lock(state: &Shared) -> MutexGuard<'_, SimState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn router(state: Shared) -> Router {
    let authed = Router::new()
        .route("/repos/{owner}/{repo}/pulls", get(list_pulls))
        .route("/repos/{owner}/{repo}/pulls/{number}", get(get_pull))
        .route("/repos/{owner}/{repo}/pulls/{number}/files", get(pull_files))
        .route("/repos/{owner}/{repo}/pulls/{number}/merge", axum::routing::put(super::merges::merge_route))
        .route("/repos/{owner}/{repo}/git/blobs/{sha}", get(super::merges::blob_route))
        .route("/repos/{owner}/{repo}/pulls/{number}/reviews", post(create_review).get(list_reviews))
        .route("/repos/{owner}/{repo}/pulls/{number}/commits", get(list_commits))
        .route(
            "/repos/{owner}/{repo}/pulls/{number}/requested_reviewers",
            post(super::queue::request_reviewers).get(super::queue::list_requested_reviewers),
        )
        .route("/repos/{owner}/{repo}/compare/{basehead}", get(super::queue::compare))
        .route("/repos/{owner}/{repo}/git/trees/{sha}", get(tree))
        .route("/repos/{owner}/{repo}/commits/{sha}/check-runs", get(list_check_runs))
        .route("/repos/{owner}/{repo}/check-runs", post(create_check_run))
        .route("/repos/{owner}/{repo}/check-runs/{id}", patch(update_check_run).get(get_check_run))
        .route("/graphql", post(super::graphql::handle))
        .merge(super::comments::routes())
        .merge(super::issues::routes())
        .merge(super::rules::routes())
        .merge(super::teams::routes())
        .layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .route("/app", get(get_app))
        .route("/app/installations/{id}/access_tokens", post(access_token))
        .route("/settings/apps/new", post(super::manifests::new_personal))
        .route("/organizations/{org}/settings/apps/new", post(super::manifests::new_for_org))
        .route("/app-manifests/{code}/conversions", post(super::manifests::conversion))
        .merge(super::deliveries::routes())
        .merge(authed)
        .layer(middleware::from_fn_with_state(state.clone(), super::faults::faults_and_log))
        .with_state(state)
}

pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

pub(crate) fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get("authorization")?.to_str().ok()?.strip_prefix("Bearer ")
}

async fn require_token(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let ok = bearer(request.headers()).is_some_and(|t| lock(&state).tokens.get(t).is_some_and(|exp| *exp > now()));
    if !ok {
        return error(StatusCode::UNAUTHORIZED, "Bad credentials");
    }
    let repo = request.uri().path().strip_prefix("/repos/").and_then(|rest| rest.split('/').nth(1));
    let outside = bearer(request.headers()).zip(repo).is_some_and(|(token, repo)| {
        lock(&state).token_scopes.get(token).is_some_and(|names| !names.contains(&repo.to_ascii_lowercase()))
    });
    if outside {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    next.run(request).await
}

#[derive(Deserialize)]
struct Claims {
    iat: u64,
    exp: u64,
    iss: String,
}

/// The App JWT verified ("Authenticating as a GitHub App"): RS256 with the
/// App's key, iss the App id, iat not in the future, exp at most 10 minutes
/// after iat.
pub(crate) fn verify_jwt(s: &SimState, headers: &HeaderMap) -> Result<(), &'static str> {
    let Some(jwt) = bearer(headers) else {
        return Err("A JSON web token could not be decoded");
    };
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_required_spec_claims(&["exp", "iat", "iss"]);
    validation.leeway = 0;
    let claims = match jsonwebtoken::decode::<Claims>(jwt, &s.key, &validation) {
        Ok(data) => data.claims,
        Err(_) => return Err("A JSON web token could not be decoded"),
    };
    if claims.iss != s.app_id.to_string() || claims.iat > now() || claims.exp > claims.iat + 600 {
        return Err("'Expiration time' claim ('exp') is too far in the future");
    }
    Ok(())
}

/// `GET /app` ("Get the authenticated app"): the App's slug names its bot,
/// `gatehouse[bot]`, the author of its reviews.
async fn get_app(State(state): State<Shared>, headers: HeaderMap) -> Response {
    let s = lock(&state);
    if let Err(message) = verify_jwt(&s, &headers) {
        return error(StatusCode::UNAUTHORIZED, message);
    }
    Json(json!({ "id": s.app_id, "slug": "gatehouse", "name": "gatehouse" })).into_response()
}

/// "Create an installation access token for an app": `repositories` (names)
/// narrows the token to those repositories; a token used on another
/// repository is answered 404, as GitHub hides what a token cannot see.
async fn access_token(
    State(state): State<Shared>,
    Path(id): Path<u64>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let asked: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut s = lock(&state);
    if let Err(message) = verify_jwt(&s, &headers) {
        return error(StatusCode::UNAUTHORIZED, message);
    }
    if id != s.installation {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    // "Create an installation access token for an app": a `repositories`
    // entry the installation was not given is refused with 422 ("Validation
    // failed"), as GitHub refuses a repository that does not exist or is not
    // accessible to the installation.
    let asked_names = asked.get("repositories").and_then(Value::as_array).into_iter().flatten();
    if asked_names.filter_map(Value::as_str).any(|name| s.uninstalled.contains(&name.to_ascii_lowercase())) {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "There is at least one repository that does not exist or is not accessible to the parent installation.",
        );
    }
    s.jwts_seen += 1;
    let n = s.id();
    let token = format!("ghs_sim{n:010}");
    let expires = now() + s.token_life_s;
    s.tokens.insert(token.clone(), expires);
    if let Some(repos) = asked.get("repositories").and_then(Value::as_array) {
        let names = repos.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect();
        s.token_scopes.insert(token.clone(), names);
    }
    s.token_requests.push(asked);
    (StatusCode::CREATED, Json(json!({ "token": token, "expires_at": format_utc(expires) }))).into_response()
}

/// A pull request as "Get a pull request" answers it
/// (https://docs.github.com/en/rest/pulls/pulls#get-a-pull-request): a
/// merged one is `closed` with `merged` and its `merge_commit_sha`.
pub(crate) fn pull_json(repo: &str, p: &Pull) -> Value {
    json!({
        "number": p.number,
        "state": if p.merged.is_some() { "closed" } else { "open" },
        "merged": p.merged.is_some(),
        "merge_commit_sha": p.merged,
        "merged_at": p.merged.as_ref().map(|_| "2026-12-01T10:00:00Z"),
        "title": p.title,
        "body": p.body,
        "draft": p.draft,
        "head": { "sha": p.head_sha, "ref": format!("change-{}", p.number),
                  "repo": { "full_name": if p.from_fork { format!("fork-owner/{}", repo.split('/').nth(1).unwrap_or("")) } else { repo.to_string() } } },
        "base": { "sha": p.base_sha, "ref": "main", "repo": { "full_name": repo, "default_branch": "main" } },
        "user": { "login": "author", "type": "User" },
        "assignees": [],
    })
}

async fn list_pulls(State(state): State<Shared>, Path((owner, name)): Path<(String, String)>) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    // "List pull requests" lists the open ones unless `state` asks otherwise.
    let open = repo.pulls.values().filter(|p| p.merged.is_none());
    Json(open.map(|p| pull_json(&repo.full_name, p)).collect::<Vec<_>>()).into_response()
}

async fn get_pull(State(state): State<Shared>, Path((owner, name, number)): Path<(String, String, u64)>) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let Some(p) = repo.pulls.get(&number) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let mut body = pull_json(&repo.full_name, p);
    body["changed_files"] = json!(changed_files(repo, p).len());
    Json(body).into_response()
}

#[derive(Deserialize)]
pub(crate) struct Page {
    page: Option<usize>,
    per_page: Option<usize>,
}

/// One page of `items` as "Using pagination in the REST API" describes it:
/// `per_page` (default 30, at most 100) and `page`, and a `Link` header to
/// the next page of `path` while one follows.
pub(crate) fn paged(q: &Page, items: &[Value], headers: &HeaderMap, path: &str) -> Response {
    let per_page = q.per_page.unwrap_or(30).clamp(1, 100);
    let page = q.page.unwrap_or(1).max(1);
    let chunk: Vec<Value> = items.iter().skip((page - 1) * per_page).take(per_page).cloned().collect();
    let response = Json(chunk).into_response();
    if page * per_page < items.len() {
        return with_next(response, headers, &format!("{path}?per_page={per_page}&page={}", page + 1));
    }
    response
}

async fn pull_files(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Query(q): Query<Page>,
    headers: HeaderMap,
) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let Some(p) = repo.pulls.get(&number) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let files = changed_files(repo, p);
    let files = &files[..files.len().min(FILES_CAP)];
    paged(&q, files, &headers, &format!("/repos/{owner}/{name}/pulls/{number}/files"))
}

/// `response` with a `Link` header naming `next` (a path) as the next page.
pub(crate) fn with_next(mut response: Response, headers: &HeaderMap, next: &str) -> Response {
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    if let Ok(value) = format!("<http://{host}{next}>; rel=\"next\"").parse() {
        response.headers_mut().insert("link", value);
    }
    response
}

async fn tree(State(state): State<Shared>, Path((owner, name, sha)): Path<(String, String, String)>) -> Response {
    let s = lock(&state);
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let Some(body) = repo.listings.get(&sha) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    ([(axum::http::header::CONTENT_TYPE, "application/json")], body.clone()).into_response()
}

fn check_run_json(c: &CheckRun) -> Value {
    json!({
        "id": c.id, "name": c.name, "head_sha": c.head_sha, "external_id": c.external_id,
        "status": c.status, "conclusion": c.conclusion,
        // Ids grow with time here: the run's start is read from its id.
        "started_at": format_utc(1_700_000_000 + c.id),
        "output": { "title": c.title, "summary": c.summary, "annotations_count": c.annotations.len() },
    })
}

#[derive(Deserialize)]
struct RunFilter {
    filter: Option<String>,
}

/// "List check runs for a Git reference": `filter=latest` (the default)
/// lists only the most recent run of each name, `filter=all` every run.
async fn list_check_runs(
    State(state): State<Shared>,
    Path((owner, name, sha)): Path<(String, String, String)>,
    Query(q): Query<RunFilter>,
) -> Response {
    let s = lock(&state);
    let full = format!("{owner}/{name}");
    let on_head: Vec<&CheckRun> =
        s.check_runs.iter().filter(|c| c.repo.eq_ignore_ascii_case(&full) && c.head_sha == sha).collect();
    let all = q.filter.as_deref() == Some("all");
    let latest = |c: &CheckRun| !on_head.iter().any(|o| o.name == c.name && o.id > c.id);
    let runs: Vec<Value> = on_head.iter().filter(|c| all || latest(c)).map(|c| check_run_json(c)).collect();
    Json(json!({ "total_count": runs.len(), "check_runs": runs })).into_response()
}

/// Applies a create or update body to a check run; GitHub's limits enforced.
fn apply(run: &mut CheckRun, body: &Value) -> Result<(), &'static str> {
    if let Some(status) = body.get("status").and_then(Value::as_str) {
        run.status = status.to_string();
    }
    if let Some(conclusion) = body.get("conclusion").and_then(Value::as_str) {
        run.conclusion = Some(conclusion.to_string());
        run.status = "completed".into();
    }
    if run.status != "completed" {
        run.conclusion = None;
    }
    if let Some(output) = body.get("output") {
        let field = |k: &str| output.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        if field("summary").chars().count() > 65535 || field("text").chars().count() > 65535 {
            return Err("output.summary and output.text are limited to 65535 characters");
        }
        if field("title").is_empty() || field("summary").is_empty() {
            return Err("output needs a title and a summary");
        }
        let annotations = output.get("annotations").and_then(Value::as_array).cloned().unwrap_or_default();
        if annotations.len() > 50 {
            return Err("at most 50 annotations per request");
        }
        for a in &annotations {
            let text = |k: &str| a.get(k).and_then(Value::as_str).unwrap_or("");
            if text("message").len() > ANNOTATION_BYTES || text("raw_details").len() > ANNOTATION_BYTES {
                return Err("annotation message and raw_details are limited to 64 KB");
            }
            if text("title").chars().count() > 255 {
                return Err("annotation title is limited to 255 characters");
            }
        }
        (run.title, run.summary, run.text) = (field("title"), field("summary"), field("text"));
        run.annotations.extend(annotations);
    }
    run.writes += 1;
    Ok(())
}

async fn create_check_run(
    State(state): State<Shared>,
    Path((owner, name)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    let id = s.id();
    let str_of = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut run = CheckRun {
        id,
        repo: format!("{owner}/{name}"),
        name: str_of("name"),
        head_sha: str_of("head_sha"),
        external_id: str_of("external_id"),
        status: "queued".into(),
        conclusion: None,
        title: String::new(),
        summary: String::new(),
        text: String::new(),
        annotations: Vec::new(),
        writes: 0,
    };
    if run.name.is_empty() || run.head_sha.is_empty() {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "name and head_sha are required");
    }
    if let Err(message) = apply(&mut run, &body) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, message);
    }
    let out = check_run_json(&run);
    s.check_runs.push(run);
    (StatusCode::CREATED, Json(out)).into_response()
}

async fn get_check_run(
    State(state): State<Shared>,
    Path((_owner, _name, id)): Path<(String, String, u64)>,
) -> Response {
    let s = lock(&state);
    match s.check_runs.iter().find(|c| c.id == id) {
        Some(run) => Json(check_run_json(run)).into_response(),
        None => error(StatusCode::NOT_FOUND, "Not Found"),
    }
}

async fn update_check_run(
    State(state): State<Shared>,
    Path((_owner, _name, id)): Path<(String, String, u64)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    let Some(run) = s.check_runs.iter_mut().find(|c| c.id == id) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    if let Err(message) = apply(run, &body) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, message);
    }
    Json(check_run_json(run)).into_response()
}

async fn create_review(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Json(body): Json<Value>,
) -> Response {
    let mut s = lock(&state);
    let full = format!("{owner}/{name}");
    let Some(repo) = s.repo(&owner, &name) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let Some(p) = repo.pulls.get(&number) else { return error(StatusCode::NOT_FOUND, "Not Found") };
    let files = changed_files(repo, p);
    let review_body = body.get("body").and_then(Value::as_str).unwrap_or("");
    if review_body.chars().count() > BODY_CHARS {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Validation Failed: body is too long (maximum is 65536 characters)",
        );
    }
    let mut comments = Vec::new();
    for c in body.get("comments").and_then(Value::as_array).cloned().unwrap_or_default() {
        let path = c.get("path").and_then(Value::as_str).unwrap_or("").to_string();
        let line = c.get("line").and_then(Value::as_u64).unwrap_or(0) as u32;
        // A multi-line comment names its first line in `start_line` and its
        // last in `line`, and every line between must be in the diff
        // (docs.github.com, REST "Create a review for a pull request":
        // `start_line`, `start_side`; "Commenting on a pull request").
        let start_line = c.get("start_line").and_then(Value::as_u64).map(|l| l as u32);
        let in_diff = files.iter().any(|f| {
            f["filename"] == path.as_str()
                && f["patch"].as_str().is_some_and(|p| {
                    let lines = commentable_lines(p);
                    (start_line.unwrap_or(line)..=line).all(|l| lines.contains(&l))
                })
        }) && start_line.is_none_or(|start| start < line);
        let refused = s
            .refused_lines
            .iter()
            .any(|(r, n, p, l)| r.eq_ignore_ascii_case(&full) && *n == number && *p == path && *l == line);
        if !in_diff || refused {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "Unprocessable Entity: pull_request_review_thread.line must be part of the diff",
            );
        }
        let body = c.get("body").and_then(Value::as_str).unwrap_or("").to_string();
        if body.chars().count() > BODY_CHARS {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "Validation Failed: body is too long (maximum is 65536 characters)",
            );
        }
        comments.push(ReviewComment { path, start_line, line, body });
    }
    let id = s.id();
    let commit_id = body.get("commit_id").and_then(Value::as_str).unwrap_or("").to_string();
    for c in &comments {
        let thread_id = format!("PRRT_{}", s.id());
        s.threads.push(Thread {
            id: thread_id,
            repo: full.clone(),
            pr: number,
            path: c.path.clone(),
            line: c.line,
            resolved: false,
            body: c.body.clone(),
        });
    }
    let review = Review {
        id,
        repo: full,
        pr: number,
        user: "gatehouse[bot]".into(),
        state: "COMMENTED".into(),
        commit_id: commit_id.clone(),
        event: body.get("event").and_then(Value::as_str).unwrap_or("COMMENT").to_string(),
        body: body.get("body").and_then(Value::as_str).unwrap_or("").to_string(),
        comments,
    };
    s.reviews.push(review);
    Json(json!({ "id": id, "commit_id": commit_id, "state": "COMMENTED" })).into_response()
}

async fn list_reviews(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
) -> Response {
    let s = lock(&state);
    let full = format!("{owner}/{name}");
    let reviews: Vec<Value> = s
        .reviews
        .iter()
        .filter(|r| r.repo.eq_ignore_ascii_case(&full) && r.pr == number)
        .map(|r| {
            json!({
                "id": r.id, "user": { "login": r.user, "type": s.teams.kind(&r.user) }, "state": r.state, "commit_id": r.commit_id, "body": r.body,
                "submitted_at": format_utc(1_700_000_000 + r.id),
            })
        })
        .collect();
    Json(reviews).into_response()
}

async fn list_commits(
    State(state): State<Shared>,
    Path((owner, name, number)): Path<(String, String, u64)>,
) -> Response {
    let s = lock(&state);
    let Some(p) = s.repo(&owner, &name).and_then(|r| r.pulls.get(&number)) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let last = p.authors.len().saturating_sub(1);
    // "List commits on a pull request": at most 250 commits are listed.
    let commits: Vec<Value> = p
        .authors
        .iter()
        .enumerate()
        .take(COMMITS_CAP)
        .map(|(i, login)| {
            let sha = if i == last { p.head_sha.clone() } else { format!("{:040x}", i + 1) };
            json!({ "sha": sha, "author": { "login": login } })
        })
        .collect();
    Json(commits).into_response()
}
