//! The GraphQL operations gatehouse sends, answered by operation name
//! (`Blobs`, `Objects`, `DefaultBranch`, `Threads`, `Resolve`) from their
//! variables.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::routes::{Shared, lock};

/// Review threads per page, as GitHub's `first: 100`.
const PAGE: usize = 100;

pub(crate) async fn handle(State(state): State<Shared>, Json(body): Json<Value>) -> Response {
    let query = body.get("query").and_then(Value::as_str).unwrap_or("").trim_start();
    let vars = body.get("variables").cloned().unwrap_or(Value::Null);
    let var = |k: &str| vars.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let numbered = |prefix: &str| -> Vec<(String, String)> {
        (0..)
            .map_while(|i| {
                vars.get(format!("{prefix}{i}")).and_then(Value::as_str).map(|v| (i.to_string(), v.to_string()))
            })
            .collect()
    };
    let mut s = lock(&state);
    let data = if query.starts_with("query Blobs") {
        let Some(repo) = s.repo(&var("owner"), &var("name")) else { return not_found() };
        let mut out = Map::new();
        for (i, expression) in numbered("e") {
            let (sha, path) = expression.split_once(':').unwrap_or(("", ""));
            let blob = repo.commits.get(sha).and_then(|t| t.get(path)).map(|bytes| {
                let binary = bytes.contains(&0);
                json!({
                    "__typename": "Blob",
                    "oid": super::blob_sha(bytes),
                    "byteSize": bytes.len(),
                    "isBinary": binary,
                    "isTruncated": false,
                    "text": if binary { Value::Null } else { Value::String(String::from_utf8_lossy(bytes).into_owned()) },
                })
            });
            out.insert(format!("f{i}"), blob.unwrap_or(Value::Null));
        }
        json!({ "repository": out })
    } else if query.starts_with("query Objects") {
        let Some(repo) = s.repo(&var("owner"), &var("name")) else { return not_found() };
        let mut out = Map::new();
        for (i, expression) in numbered("o") {
            out.insert(format!("o{i}"), object(repo, &expression));
        }
        json!({ "repository": out })
    } else if query.starts_with("query DefaultBranch") {
        // GraphQL API reference, "Objects": `Repository.defaultBranchRef`,
        // "The Ref associated with the repository's default branch" (null
        // while the repository is empty), and `Ref.target`, "The object the
        // ref points to". The default branch is `main`, as the simulated
        // payloads name it; it has a tip once a test points `main` at a
        // commit.
        let Some(repo) = s.repo(&var("owner"), &var("name")) else { return not_found() };
        let default_branch = repo.refs.get("main").map(|sha| json!({ "target": { "oid": sha } }));
        json!({ "repository": { "defaultBranchRef": default_branch } })
    } else if query.starts_with("query Threads") {
        let full = format!("{}/{}", var("owner"), var("name"));
        let number = vars.get("number").and_then(Value::as_u64).unwrap_or(0);
        let start: usize = var("cursor").parse().unwrap_or(0);
        let threads: Vec<&super::Thread> =
            s.threads.iter().filter(|t| t.repo.eq_ignore_ascii_case(&full) && t.pr == number).collect();
        let nodes: Vec<Value> = threads
            .iter()
            .skip(start)
            .take(PAGE)
            .map(|t| json!({ "id": t.id, "isResolved": t.resolved, "comments": { "nodes": [{ "body": t.body }] } }))
            .collect();
        let end = start + nodes.len();
        let reviews: Vec<Value> = s
            .reviews
            .iter()
            .filter(|r| r.repo.eq_ignore_ascii_case(&full) && r.pr == number)
            .map(|r| json!({ "body": r.body, "commit": { "oid": r.commit_id } }))
            .collect();
        let comments: Vec<Value> = s
            .issue_comments
            .iter()
            .filter(|c| c.repo.eq_ignore_ascii_case(&full) && c.pr == number)
            .map(|c| json!({ "body": c.body }))
            .collect();
        json!({ "repository": { "pullRequest": {
            "reviewThreads": { "pageInfo": { "hasNextPage": end < threads.len(), "endCursor": end.to_string() }, "nodes": nodes },
            "reviews": page(&reviews, &var("reviews"), query.contains("reviews(last:")),
            "comments": page(&comments, &var("comments"), query.contains("comments(last:")),
        } } })
    } else if query.starts_with("mutation Resolve") {
        let mut out = Map::new();
        for (i, id) in numbered("t") {
            let Some(thread) = s.threads.iter_mut().find(|t| t.id == id) else { return not_found() };
            thread.resolved = true;
            out.insert(format!("r{i}"), json!({ "thread": { "id": id, "isResolved": true } }));
        }
        Value::Object(out)
    } else {
        return (StatusCode::OK, Json(json!({ "errors": [{ "message": "unknown operation" }] }))).into_response();
    };
    Json(json!({ "data": data })).into_response()
}

/// One page of a connection after `cursor` (an offset here; GitHub's are
/// opaque), `first: 100`, or the last 100 for `last: 100`: "Using
/// pagination in the GraphQL API" (`pageInfo { hasNextPage endCursor }`).
fn page(items: &[Value], cursor: &str, last: bool) -> Value {
    let start: usize = if last { items.len().saturating_sub(PAGE) } else { cursor.parse().unwrap_or(0) };
    let nodes: Vec<Value> = items.iter().skip(start).take(PAGE).cloned().collect();
    let end = start + nodes.len();
    json!({ "pageInfo": { "hasNextPage": end < items.len(), "endCursor": end.to_string() }, "nodes": nodes })
}

/// `object(expression:)`: a commit for `<rev>`, a blob or tree for
/// `<rev>:<path>`, `null` when nothing is there.
fn object(repo: &super::Repo, expression: &str) -> Value {
    let (rev, path) = match expression.split_once(':') {
        Some((rev, path)) => (rev, Some(path.trim_end_matches('/'))),
        None => (expression, None),
    };
    let Some(sha) = repo.resolve(rev) else { return Value::Null };
    let Some(path) = path else { return json!({ "__typename": "Commit", "oid": sha }) };
    let Some(tree) = repo.commits.get(sha) else { return Value::Null };
    let dir = format!("{path}/");
    if let Some(bytes) = tree.get(path) {
        json!({ "__typename": "Blob", "oid": super::blob_sha(bytes) })
    } else if path.is_empty() || tree.range(dir.clone()..).next().is_some_and(|(p, _)| p.starts_with(&dir)) {
        json!({ "__typename": "Tree", "oid": super::blob_sha(dir.as_bytes()) })
    } else {
        Value::Null
    }
}

fn not_found() -> Response {
    Json(json!({ "data": null, "errors": [{ "type": "NOT_FOUND", "message": "Could not resolve to a node" }] }))
        .into_response()
}
