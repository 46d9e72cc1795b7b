//! gatehouse's review comments and threads on a pull request, read in
//! one paged GraphQL query: the fingerprints already commented, the open
//! threads, and the heads already reviewed.

use serde::Deserialize;
use serde_json::json;

use super::answers::Nodes;
use super::{ApiError, RepoClient};
use crate::plan::review::Shown;

/// Every thread, review and comment, page by page (each connection has its
/// own cursor: one past its end answers an empty page).
const THREADS: &str = "query Threads($owner: String!, $name: String!, $number: Int!, $cursor: String, \
$reviews: String, $comments: String) { \
repository(owner: $owner, name: $name) { pullRequest(number: $number) { \
reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } \
nodes { id isResolved comments(first: 1) { nodes { body } } } } \
reviews(first: 100, after: $reviews) { pageInfo { hasNextPage endCursor } nodes { body commit { oid } } } \
comments(first: 100, after: $comments) { pageInfo { hasNextPage endCursor } nodes { body } } } } }";

/// The `Threads` query's answer, shaped like GitHub's schema: a missing
/// repository or pull request is null, `reviews` is nullable.
#[derive(Debug, Deserialize)]
struct ThreadsData {
    repository: Option<ThreadsRepository>,
}

#[derive(Debug, Deserialize)]
struct ThreadsRepository {
    #[serde(rename = "pullRequest")]
    pull_request: Option<PullThreads>,
}

#[derive(Debug, Deserialize)]
struct PullThreads {
    #[serde(rename = "reviewThreads")]
    review_threads: Page<ThreadNode>,
    reviews: Option<Page<Body>>,
    comments: Page<Body>,
}

/// One page of a connection.
#[derive(Debug, Deserialize)]
struct Page<T> {
    #[serde(rename = "pageInfo")]
    page_info: PageInfo,
    nodes: Option<Vec<Option<T>>>,
}

impl<T> Page<T> {
    fn iter(&self) -> impl Iterator<Item = &T> {
        self.nodes.iter().flatten().flatten()
    }
}

#[derive(Debug, Deserialize)]
struct PageInfo {
    #[serde(rename = "hasNextPage")]
    has_next_page: bool,
    #[serde(rename = "endCursor")]
    end_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ThreadNode {
    id: String,
    #[serde(rename = "isResolved")]
    is_resolved: bool,
    comments: Nodes<Body>,
}

/// A review's, a comment's or a thread comment's `body`.
#[derive(Debug, Deserialize)]
struct Body {
    body: String,
}

/// What gatehouse shows on PR `number`.
pub(crate) async fn shown(repo: &RepoClient, number: u64) -> Result<Shown, ApiError> {
    let mut out = Shown::default();
    let (mut cursor, mut reviews, mut comments): (Option<String>, Option<String>, Option<String>) = (None, None, None);
    for _ in 0..50 {
        let vars = json!({ "owner": repo.repo.owner, "name": repo.repo.name, "number": number, "cursor": cursor,
                           "reviews": reviews, "comments": comments });
        let data: ThreadsData = repo.graphql(THREADS, vars).await?;
        let Some(pull) = data.repository.and_then(|r| r.pull_request) else { break };
        // Reviews, and the plain comments a review falls back to.
        for review in pull.reviews.iter().flat_map(Page::iter).chain(pull.comments.iter()) {
            out.read_body(&review.body);
        }
        // Each connection moves past what it answered; the loop ends when
        // none has more.
        let mut more = false;
        let pages = [
            (pull.reviews.as_ref().map(|p| &p.page_info), &mut reviews),
            (Some(&pull.comments.page_info), &mut comments),
        ];
        for (info, at) in pages {
            if let Some(info) = info {
                more |= advance(info, at);
            }
        }
        let threads = pull.review_threads;
        for thread in threads.nodes.into_iter().flatten().flatten() {
            let Some(first) = thread.comments.iter().next() else { continue };
            out.read_thread(&thread.id, thread.is_resolved, &first.body);
        }
        more |= advance(&threads.page_info, &mut cursor);
        if !more {
            break;
        }
    }
    Ok(out)
}

/// Moves `cursor` past a page; true when the connection has more.
fn advance(info: &PageInfo, cursor: &mut Option<String>) -> bool {
    if let Some(end) = &info.end_cursor {
        *cursor = Some(end.clone());
    }
    info.has_next_page && info.end_cursor.is_some()
}
