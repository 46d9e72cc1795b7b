//! The review: one per evaluated head, event `COMMENT`, inline comments only
//! on lines inside the PR diff (other findings go to the review body). Every
//! comment carries a hidden fingerprint (rule, path, stable anchor — never
//! the line), so no finding is commented twice on a PR, and threads whose
//! finding is gone are resolved.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde_json::{Value, json};

use super::diff::commentable_lines;
use crate::github::{ApiError, Call, GitHub, RepoName};
use crate::model::{Finding, Severity};
use crate::source::github::PrFile;

const FINGERPRINT: &str = "<!-- gatehouse:fingerprint=";
const REVIEW_MARK: &str = "<!-- gatehouse:review=";
/// Threads resolved per GraphQL request.
const RESOLVE_BATCH: usize = 50;

const THREADS: &str = "query Threads($owner: String!, $name: String!, $number: Int!, $cursor: String) { \
repository(owner: $owner, name: $name) { pullRequest(number: $number) { \
reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } \
nodes { id isResolved comments(first: 1) { nodes { body } } } } \
reviews(last: 100) { nodes { body commit { oid } } } } } }";

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
pub struct Published {
    pub inline: usize,
    pub in_body: usize,
    pub resolved: usize,
    pub review_posted: bool,
}

fn fingerprints_in(body: &str) -> impl Iterator<Item = String> + '_ {
    body.match_indices(FINGERPRINT).filter_map(|(at, _)| {
        let rest = &body[at + FINGERPRINT.len()..];
        rest.find(" -->").map(|end| rest[..end].to_string())
    })
}

async fn existing(gh: &GitHub, installation: u64, repo: &RepoName, number: u64) -> Result<Existing, ApiError> {
    let mut out = Existing::default();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let vars = json!({ "owner": repo.owner, "name": repo.name, "number": number, "cursor": cursor });
        let data = gh.graphql(installation, THREADS, vars).await?;
        let pull = data.pointer("/repository/pullRequest").cloned().unwrap_or(Value::Null);
        for review in pull.pointer("/reviews/nodes").and_then(Value::as_array).into_iter().flatten() {
            let body = review.get("body").and_then(Value::as_str).unwrap_or("");
            out.commented.extend(fingerprints_in(body));
            if let Some(at) = body.find(REVIEW_MARK) {
                let rest = &body[at + REVIEW_MARK.len()..];
                out.reviewed_heads.extend(rest.find(" -->").map(|end| rest[..end].to_string()));
            }
        }
        let threads = pull.get("reviewThreads").cloned().unwrap_or(Value::Null);
        for thread in threads.get("nodes").and_then(Value::as_array).into_iter().flatten() {
            let body = thread.pointer("/comments/nodes/0/body").and_then(Value::as_str).unwrap_or("");
            let Some(fp) = fingerprints_in(body).next() else { continue };
            out.commented.insert(fp.clone());
            let resolved = thread.get("isResolved").and_then(Value::as_bool).unwrap_or(false);
            if let (false, Some(id)) = (resolved, thread.get("id").and_then(Value::as_str)) {
                out.open_threads.insert(id.to_string(), fp);
            }
        }
        let more = threads.pointer("/pageInfo/hasNextPage").and_then(Value::as_bool).unwrap_or(false);
        cursor = threads.pointer("/pageInfo/endCursor").and_then(Value::as_str).map(str::to_string);
        if !more || cursor.is_none() {
            break;
        }
    }
    Ok(out)
}

fn comment_body(f: &Finding) -> String {
    let mut body = format!("**{}** `{}`: {}", f.severity.as_str(), f.rule, f.message);
    if let Some(help) = &f.help {
        body.push_str(&format!("\n\nHow to fix: {help}"));
    }
    body.push_str(&format!("\n\n`gatehouse explain {}` says why.\n\n{FINGERPRINT}{} -->", f.rule, f.fingerprint));
    body
}

/// Posts the review for `head` and resolves the threads of findings that
/// are gone. Notices are left to the check runs: comments are for what an
/// author must act on.
pub async fn publish(
    gh: &GitHub,
    installation: u64,
    repo: &RepoName,
    number: u64,
    head: &str,
    findings: &[&Finding],
    files: &[PrFile],
) -> Result<Published, ApiError> {
    let before = existing(gh, installation, repo, number).await?;
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
        gh.graphql(installation, &query, Value::Object(vars)).await?;
        published.resolved += batch.len();
    }

    if before.reviewed_heads.contains(head) {
        return Ok(published);
    }
    let lines: BTreeMap<&str, BTreeSet<u32>> =
        files.iter().filter_map(|f| f.patch.as_deref().map(|p| (f.path.as_str(), commentable_lines(p)))).collect();
    let mut seen = BTreeSet::new();
    let mut comments = Vec::new();
    let mut body_findings = Vec::new();
    for f in findings.iter().filter(|f| f.severity != Severity::Notice) {
        if before.commented.contains(&f.fingerprint) || !seen.insert(f.fingerprint.as_str()) {
            continue;
        }
        if lines.get(f.path.as_str()).is_some_and(|l| l.contains(&f.span.line)) {
            comments.push(json!({ "path": f.path, "line": f.span.line, "side": "RIGHT", "body": comment_body(f) }));
        } else {
            body_findings.push(*f);
        }
    }
    if comments.is_empty() && body_findings.is_empty() {
        return Ok(published);
    }
    let mut body = format!(
        "gatehouse found {} new finding(s) on `{}`.",
        comments.len() + body_findings.len(),
        &head[..head.len().min(7)]
    );
    if !body_findings.is_empty() {
        body.push_str("\n\nOn lines outside this diff:\n");
        for f in &body_findings {
            body.push_str(&format!(
                "\n- `{}:{}` **{}** `{}`: {} {FINGERPRINT}{} -->",
                f.path,
                f.span.line,
                f.severity.as_str(),
                f.rule,
                f.message.split_whitespace().collect::<Vec<_>>().join(" "),
                f.fingerprint
            ));
        }
    }
    body.push_str(&format!("\n\n{REVIEW_MARK}{head} -->"));
    let request = json!({ "commit_id": head, "event": "COMMENT", "body": body, "comments": comments });
    let path = format!("/repos/{}/{}/pulls/{number}/reviews", repo.owner, repo.name);
    for attempt in 1..=3 {
        match gh.rest(installation, Method::POST, &path, Some(&request), Call::Create).await {
            Ok(_) => break,
            Err(ApiError::Uncertain { .. }) if attempt < 3 => {
                // Posted after all? Then do not post it twice.
                if existing(gh, installation, repo, number).await?.reviewed_heads.contains(head) {
                    break;
                }
            }
            Err(err) => return Err(err),
        }
    }
    published.review_posted = true;
    published.inline = comments.len();
    published.in_body = body_findings.len();
    Ok(published)
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
        };
        let body = comment_body(&finding);
        insta::assert_snapshot!(body);
        assert_eq!(fingerprints_in(&body).collect::<Vec<_>>(), vec!["3f2a9c0d11e4b7a8"]);
    }
}
