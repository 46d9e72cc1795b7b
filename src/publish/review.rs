//! Posting the planned review ([`ReviewPlan`]): resolving the threads of
//! findings that are gone, then the review with its inline comments. When
//! GitHub refuses the review, every finding moves into its body; if the body
//! is what it refused, the same text goes out as a plain comment.

use reqwest::Method;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use crate::github::{ApiError, Call, RepoClient, threads};
use crate::plan::review::{InlineComment, ReviewPlan};

/// Threads resolved per GraphQL request.
const RESOLVE_BATCH: usize = 50;

/// What publishing did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Published {
    pub inline: usize,
    pub in_body: usize,
    pub resolved: usize,
    pub review_posted: bool,
    /// GitHub refused the review twice: the findings went out as a comment.
    pub as_comment: bool,
}

/// Applies the review plan of `head`.
pub(crate) async fn publish(
    repo: &RepoClient,
    number: u64,
    head: &str,
    plan: &ReviewPlan,
) -> Result<Published, ApiError> {
    let mut published = Published::default();
    for batch in plan.resolve.chunks(RESOLVE_BATCH) {
        let mut query = String::from("mutation Resolve(");
        let mut fields = String::new();
        let mut vars = serde_json::Map::new();
        for (i, id) in batch.iter().enumerate() {
            query.push_str(&format!("{}$t{i}: ID!", if i > 0 { ", " } else { "" }));
            fields.push_str(&format!(
                " r{i}: resolveReviewThread(input: {{threadId: $t{i}}}) {{ thread {{ id isResolved }} }}"
            ));
            vars.insert(format!("t{i}"), json!(id));
        }
        query.push_str(&format!(") {{{fields} }}"));
        repo.graphql::<IgnoredAny>(&query, Value::Object(vars)).await?;
        published.resolved += batch.len();
    }
    let Some(draft) = &plan.post else { return Ok(published) };
    let comments: Vec<Value> = draft.inline.iter().map(inline_comment).collect();
    let reviews = format!("/pulls/{number}/reviews");
    let request = json!({ "commit_id": head, "event": "COMMENT", "body": draft.body, "comments": comments });
    let all = draft.inline.len() + draft.in_body;
    let refused = match create(repo, number, head, &reviews, &request).await {
        Ok(()) => {
            published.inline = draft.inline.len();
            published.in_body = draft.in_body;
            published.review_posted = true;
            return Ok(published);
        }
        Err(ApiError::Status { status: 422, message, .. }) => message,
        Err(err) => return Err(err),
    };
    // GitHub's answer does not say which comment it could not place.
    tracing::warn!(pr = number, %refused, "GitHub refused the review; posting its comments in the body");
    if !draft.inline.is_empty() {
        let request = json!({ "commit_id": head, "event": "COMMENT", "body": draft.all_in_body, "comments": [] });
        match create(repo, number, head, &reviews, &request).await {
            Ok(()) => {
                published.in_body = all;
                published.review_posted = true;
                return Ok(published);
            }
            Err(ApiError::Status { status: 422, message, .. }) => {
                tracing::warn!(pr = number, refused = %message, "GitHub refused the review body; posting a comment");
            }
            Err(err) => return Err(err),
        }
    }
    let issue_comments = format!("/issues/{number}/comments");
    create(repo, number, head, &issue_comments, &json!({ "body": draft.all_in_body })).await?;
    published.in_body = all;
    published.as_comment = true;
    Ok(published)
}

/// A review comment as GitHub takes one: a comment over several lines gives
/// `start_line` and `line` (the last), each on the diff's `RIGHT` side
/// (docs.github.com, REST "Create a review for a pull request").
fn inline_comment(c: &InlineComment) -> Value {
    match c.start_line {
        Some(start) => json!({
            "path": c.path, "start_line": start, "start_side": "RIGHT",
            "line": c.line, "side": "RIGHT", "body": c.body,
        }),
        None => json!({ "path": c.path, "line": c.line, "side": "RIGHT", "body": c.body }),
    }
}

/// Posts a review or comment for `head`; when GitHub's answer is lost, looks
/// for it before posting again.
async fn create(repo: &RepoClient, number: u64, head: &str, path: &str, request: &Value) -> Result<(), ApiError> {
    for attempt in 1..=3 {
        match repo.send::<IgnoredAny>(Method::POST, path, request, Call::Create).await {
            Ok(_) => return Ok(()),
            Err(ApiError::Uncertain { .. }) if attempt < 3 => {
                if threads::shown(repo, number).await?.reviewed_heads.contains(head) {
                    return Ok(());
                }
            }
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_over_several_lines_names_its_first_and_last() {
        let one = InlineComment { path: "a.md".into(), start_line: None, line: 9, body: "b".into() };
        assert_eq!(inline_comment(&one), json!({ "path": "a.md", "line": 9, "side": "RIGHT", "body": "b" }));
        let two = InlineComment { start_line: Some(3), line: 5, ..one };
        let value = inline_comment(&two);
        assert_eq!((value["start_line"].as_u64(), value["line"].as_u64()), (Some(3), Some(5)));
        assert_eq!((value["start_side"].as_str(), value["side"].as_str()), (Some("RIGHT"), Some("RIGHT")));
    }
}
