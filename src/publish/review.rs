//! The review: one per evaluated head, event `COMMENT`, inline comments only
//! on lines inside the PR diff (other findings go to the review body). Every
//! comment carries a hidden fingerprint (rule, path, stable anchor — never
//! the line), so no finding is commented twice on a PR, and threads whose
//! finding is gone are resolved.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::limits;
use crate::diff::commentable_lines;
use crate::github::answers::Nodes;
use crate::github::{ApiError, Call, RepoClient};
use crate::model::{ChangeSet, Finding, LineChange, Report, Severity};
use crate::source::pull_request::PrFile;

const FINGERPRINT: &str = "<!-- gatehouse:fingerprint=";
const REVIEW_MARK: &str = "<!-- gatehouse:review=";
/// Threads resolved per GraphQL request.
const RESOLVE_BATCH: usize = 50;

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

/// What the PR already shows from gatehouse.
#[derive(Debug, Default)]
struct Existing {
    /// Fingerprints already commented (inline or in a review body).
    commented: BTreeSet<String>,
    /// Unresolved gatehouse threads: thread id → fingerprint.
    open_threads: BTreeMap<String, String>,
    /// Heads that already have a gatehouse review.
    reviewed_heads: BTreeSet<String>,
}

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

fn fingerprints_in(body: &str) -> impl Iterator<Item = String> + '_ {
    body.match_indices(FINGERPRINT).filter_map(|(at, _)| {
        let rest = &body[at + FINGERPRINT.len()..];
        rest.find(" -->").map(|end| rest[..end].to_string())
    })
}

async fn existing(repo: &RepoClient, number: u64) -> Result<Existing, ApiError> {
    let mut out = Existing::default();
    let (mut cursor, mut reviews, mut comments): (Option<String>, Option<String>, Option<String>) = (None, None, None);
    for _ in 0..50 {
        let vars = json!({ "owner": repo.repo.owner, "name": repo.repo.name, "number": number, "cursor": cursor,
                           "reviews": reviews, "comments": comments });
        let data: ThreadsData = repo.graphql(THREADS, vars).await?;
        let Some(pull) = data.repository.and_then(|r| r.pull_request) else { break };
        // Reviews, and the plain comments a review falls back to.
        for review in pull.reviews.iter().flat_map(Page::iter).chain(pull.comments.iter()) {
            out.commented.extend(fingerprints_in(&review.body));
            if let Some(at) = review.body.find(REVIEW_MARK) {
                let rest = &review.body[at + REVIEW_MARK.len()..];
                out.reviewed_heads.extend(rest.find(" -->").map(|end| rest[..end].to_string()));
            }
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
            let Some(fp) = fingerprints_in(&first.body).next() else { continue };
            out.commented.insert(fp.clone());
            if !thread.is_resolved {
                out.open_threads.insert(thread.id, fp);
            }
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

/// Longest message of one finding listed in a review body.
const BODY_MESSAGE_CHARS: usize = 2_000;

/// The suggested change of each finding with a verified fix (by
/// fingerprint): the whole lines the fix rewrites in the head.
pub(crate) fn suggestions(report: &Report, changes: &ChangeSet) -> BTreeMap<String, LineChange> {
    report
        .findings()
        .filter_map(|f| Some((f.fingerprint.clone(), f.fix.as_ref()?.line_change(&changes.head)?)))
        .collect()
}

/// A suggested change as GitHub's comment syntax writes one: a fenced
/// `suggestion` block holding the lines that replace the commented ones
/// (docs.github.com, "Incorporating feedback in your pull request"; an
/// empty block deletes them). The fence is longer than any backtick run in
/// the lines.
fn suggestion_block(change: &LineChange) -> String {
    let longest = change.text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}suggestion\n{}{fence}", change.text)
}

/// An inline comment, within GitHub's limit: the text is cut, never the
/// fingerprint at its end (a suggestion that does not fit whole is left out).
fn comment_body(f: &Finding, suggestion: Option<&LineChange>) -> String {
    let mut text = format!("**{}** `{}`: {}", f.severity.as_str(), f.rule, f.message);
    if let Some(help) = &f.help {
        text.push_str(&format!("\n\nHow to fix: {help}"));
    }
    if let (Some(change), Some(fix)) = (suggestion, &f.fix) {
        let block = format!(
            "\n\nSuggested fix, verified (gatehouse applied it and ran its rules again): {}\n\n{}",
            fix.message,
            suggestion_block(change)
        );
        if text.chars().count() + block.chars().count() + 200 < limits::COMMENT_CHARS {
            text.push_str(&block);
        }
    }
    let tail = format!("\n\n`gatehouse explain {}` says why.\n\n{FINGERPRINT}{} -->", f.rule, f.fingerprint);
    let room = limits::COMMENT_CHARS - tail.chars().count();
    format!("{}{tail}", limits::chars(&text, room))
}

/// The review body: how many new findings, those not commented inline, and
/// the head's mark (kept whatever is cut: it says this head was reviewed).
fn review_body(head: &str, total: usize, in_body: &[&Finding], note: Option<&str>) -> String {
    let mut text = format!("gatehouse found {total} new finding(s) on `{}`.", &head[..head.len().min(7)]);
    if let Some(note) = note {
        text.push_str(&format!("\n\n{note}"));
    }
    if !in_body.is_empty() {
        text.push_str("\n\nNot commented on a line of the diff:\n");
        for f in in_body {
            let message = f.message.split_whitespace().collect::<Vec<_>>().join(" ");
            text.push_str(&format!(
                "\n- `{}:{}` **{}** `{}`: {} {FINGERPRINT}{} -->",
                f.path,
                f.span.line,
                f.severity.as_str(),
                f.rule,
                limits::chars(&message, BODY_MESSAGE_CHARS),
                f.fingerprint
            ));
        }
    }
    let tail = format!("\n\n{REVIEW_MARK}{head} -->");
    let room = limits::COMMENT_CHARS - tail.chars().count();
    format!("{}{tail}", limits::chars(&text, room))
}

/// Posts the review for `head` and resolves the threads of findings that
/// are gone. Notices are left to the check runs: comments are for what an
/// author must act on.
pub(crate) async fn publish(
    repo: &RepoClient,
    number: u64,
    head: &str,
    findings: &[&Finding],
    files: &[PrFile],
    suggestions: &BTreeMap<String, LineChange>,
) -> Result<Published, ApiError> {
    let before = existing(repo, number).await?;
    let mut published = Published::default();

    let current: BTreeSet<&str> = findings.iter().map(|f| f.fingerprint.as_str()).collect();
    let gone: Vec<&String> =
        before.open_threads.iter().filter(|(_, fp)| !current.contains(fp.as_str())).map(|(id, _)| id).collect();
    for batch in gone.chunks(RESOLVE_BATCH) {
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

    if before.reviewed_heads.contains(head) {
        return Ok(published);
    }
    let lines: BTreeMap<&str, BTreeSet<u32>> =
        files.iter().filter_map(|f| f.patch.as_deref().map(|p| (f.path.as_str(), commentable_lines(p)))).collect();
    let mut seen = BTreeSet::new();
    let mut inline: Vec<&Finding> = Vec::new();
    let mut body_findings: Vec<&Finding> = Vec::new();
    for f in findings.iter().filter(|f| f.severity != Severity::Notice) {
        if before.commented.contains(&f.fingerprint) || !seen.insert(f.fingerprint.as_str()) {
            continue;
        }
        let in_diff = |line: u32| lines.get(f.path.as_str()).is_some_and(|l| l.contains(&line));
        if in_diff(f.span.line) || suggestion_in_diff(suggestions, f, &in_diff).is_some() {
            inline.push(*f);
        } else {
            body_findings.push(*f);
        }
    }
    if inline.is_empty() && body_findings.is_empty() {
        return Ok(published);
    }
    let total = inline.len() + body_findings.len();
    let comments: Vec<Value> = inline
        .iter()
        .map(|f| {
            let in_diff = |line: u32| lines.get(f.path.as_str()).is_some_and(|l| l.contains(&line));
            inline_comment(f, suggestion_in_diff(suggestions, f, &in_diff))
        })
        .collect();
    let body = review_body(head, total, &body_findings, None);
    let reviews = format!("/pulls/{number}/reviews");
    let request = json!({ "commit_id": head, "event": "COMMENT", "body": body, "comments": comments });
    let refused = match create(repo, number, head, &reviews, &request).await {
        Ok(()) => {
            published.inline = inline.len();
            published.in_body = body_findings.len();
            published.review_posted = true;
            return Ok(published);
        }
        Err(ApiError::Status { status: 422, message, .. }) => message,
        Err(err) => return Err(err),
    };
    // GitHub refused the review. Its answer does not say which comment it
    // could not place, so every finding moves into the body; if the body is
    // what it refused, the same text goes out as a plain comment.
    tracing::warn!(pr = number, %refused, "GitHub refused the review; posting its comments in the body");
    let all: Vec<&Finding> = inline.iter().chain(&body_findings).copied().collect();
    let note = (!inline.is_empty())
        .then_some("GitHub could not place these comments on the diff, so they are listed here instead of inline.");
    let body = review_body(head, total, &all, note);
    if !inline.is_empty() {
        let request = json!({ "commit_id": head, "event": "COMMENT", "body": body, "comments": [] });
        match create(repo, number, head, &reviews, &request).await {
            Ok(()) => {
                published.in_body = all.len();
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
    create(repo, number, head, &issue_comments, &json!({ "body": body })).await?;
    published.in_body = all.len();
    published.as_comment = true;
    Ok(published)
}

/// The suggested change of `f`, when every line it rewrites is one the
/// diff shows (GitHub places a comment only there).
fn suggestion_in_diff<'s>(
    suggestions: &'s BTreeMap<String, LineChange>,
    f: &Finding,
    in_diff: &dyn Fn(u32) -> bool,
) -> Option<&'s LineChange> {
    suggestions.get(&f.fingerprint).filter(|change| (change.start_line..=change.end_line).all(in_diff))
}

/// A review comment: on the finding's line, or, with a suggestion, on the
/// lines the suggestion replaces. A comment over several lines gives
/// `start_line` and `line` (the last), each on the diff's `RIGHT` side
/// (docs.github.com, REST "Create a review for a pull request").
fn inline_comment(f: &Finding, suggestion: Option<&LineChange>) -> Value {
    let body = comment_body(f, suggestion);
    match suggestion {
        Some(change) if change.start_line < change.end_line => json!({
            "path": f.path, "start_line": change.start_line, "start_side": "RIGHT",
            "line": change.end_line, "side": "RIGHT", "body": body,
        }),
        Some(change) => json!({ "path": f.path, "line": change.end_line, "side": "RIGHT", "body": body }),
        None => json!({ "path": f.path, "line": f.span.line, "side": "RIGHT", "body": body }),
    }
}

/// Posts a review or comment for `head`; when GitHub's answer is lost, looks
/// for it before posting again.
async fn create(repo: &RepoClient, number: u64, head: &str, path: &str, request: &Value) -> Result<(), ApiError> {
    for attempt in 1..=3 {
        match repo.send::<IgnoredAny>(Method::POST, path, request, Call::Create).await {
            Ok(_) => return Ok(()),
            Err(ApiError::Uncertain { .. }) if attempt < 3 => {
                if existing(repo, number).await?.reviewed_heads.contains(head) {
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
    use crate::model::Span;

    #[test]
    fn a_comment_names_the_rule_says_how_to_fix_and_hides_its_fingerprint() {
        let finding = Finding {
            rule: "brief/adr-missing",
            severity: Severity::Error,
            path: "dark-factory/briefs/SWARM-GW-gateway.md".into(),
            span: Span::at(4, 27, 7),
            message: "ADR-321 is not among the repository's ADRs".into(),
            help: Some("fix the id, or add the ADR under docs/adr/**/*.md".into()),
            fingerprint: "3f2a9c0d11e4b7a8".into(),
            fix: None,
        };
        let body = comment_body(&finding, None);
        insta::assert_snapshot!(body);
        assert_eq!(fingerprints_in(&body).collect::<Vec<_>>(), vec!["3f2a9c0d11e4b7a8"]);
    }

    #[test]
    fn a_verified_fix_becomes_a_suggestion_on_the_lines_it_rewrites() {
        let mut finding = Finding {
            rule: "brief/field-type",
            severity: Severity::Error,
            path: "dark-factory/briefs/SWARM-GW-gateway.md".into(),
            span: Span::at(9, 17, 1),
            message: "`lines_estimate` must be a positive integer, found a string".into(),
            help: None,
            fingerprint: "1f39a6a6cdd58f92".into(),
            fix: None,
        };
        finding.fix = Some(crate::model::Fix::replace("write `lines_estimate: 60`", &finding.path, 0..1, "6"));
        let one = LineChange { start_line: 9, end_line: 9, text: "lines_estimate: 60\n".into() };
        let comment = inline_comment(&finding, Some(&one));
        assert_eq!((comment["line"].as_u64(), comment.get("start_line")), (Some(9), None));
        let body = comment["body"].as_str().unwrap();
        assert!(body.contains("\n```suggestion\nlines_estimate: 60\n```"), "{body}");
        assert_eq!(fingerprints_in(body).collect::<Vec<_>>(), vec!["1f39a6a6cdd58f92"]);
        let two = LineChange { start_line: 3, end_line: 5, text: "a\n```b```\n".into() };
        let comment = inline_comment(&finding, Some(&two));
        assert_eq!((comment["start_line"].as_u64(), comment["line"].as_u64()), (Some(3), Some(5)));
        assert_eq!(comment["start_side"], "RIGHT");
        assert!(comment["body"].as_str().unwrap().contains("\n````suggestion\na\n```b```\n````"));
        let plain = inline_comment(&finding, None);
        assert_eq!(plain["line"].as_u64(), Some(9));
        assert!(!plain["body"].as_str().unwrap().contains("suggestion"));
    }
}
