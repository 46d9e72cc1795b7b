//! Whether an approval given on an earlier head still counts: under
//! `review.approvals_end_on: document_change` it does while every document
//! that made the gate apply is byte for byte the same (the same blob id) at
//! the head as at the approved commit; under `any_push` it never does. The
//! source reads the blob ids; this decides on them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::short;
use crate::config::{ApprovalsEnd, ReviewConfig};

/// The blob ids of the documents that made the gate apply, at the head and
/// at the commits earlier approvals were given on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    /// Each document's path and its blob id at the head (`None`: no file
    /// there, e.g. a deleted file on a path the policy names).
    pub head: BTreeMap<String, Option<String>>,
    /// Per approved commit, the same documents' blob ids there; a commit
    /// missing here could not be read.
    pub approved: BTreeMap<String, BTreeMap<String, Option<String>>>,
}

/// One core reviewer's approval and whether it counts on the head.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    pub login: String,
    /// The commit the approval was given on, as GitHub recorded it.
    pub commit: Option<String>,
    pub counts: bool,
    /// Why it counts or does not, e.g. "`a.md` changed since".
    pub why: String,
}

/// How an approval on `commit` stands at `head`.
pub(super) fn standing(
    policy: &ReviewConfig,
    login: &str,
    commit: Option<&str>,
    head: &str,
    contents: &Contents,
) -> Standing {
    let (counts, why) = judge(policy, commit, head, contents);
    Standing { login: login.to_string(), commit: commit.map(str::to_string), counts, why }
}

fn judge(policy: &ReviewConfig, commit: Option<&str>, head: &str, contents: &Contents) -> (bool, String) {
    if commit.is_some_and(|c| super::same_commit(c, head)) {
        return (true, "given on the current head".into());
    }
    if !policy.stale_on_push {
        return (true, "`review.stale_on_push: false` keeps approvals whatever is pushed after them".into());
    }
    let Some(commit) = commit else {
        return (false, "GitHub names no commit for it, so what it approved is unknown".into());
    };
    if policy.approvals_end_on == ApprovalsEnd::AnyPush {
        return (
            false,
            "a push followed it, and `review.approvals_end_on: any_push` ends approvals on every push".into(),
        );
    }
    if contents.head.is_empty() {
        return (
            false,
            "the documents that made the gate apply were not compared, so a push may have changed them".into(),
        );
    }
    let at = contents
        .approved
        .get(commit)
        .or_else(|| contents.approved.iter().find(|(c, _)| super::same_commit(c, commit)).map(|(_, at)| at));
    let Some(at) = at else {
        return (
            false,
            format!("the documents at `{}` could not be read, so whether they changed is unknown", short(commit)),
        );
    };
    let changed: Vec<&str> =
        contents.head.iter().filter(|(path, blob)| at.get(*path) != Some(*blob)).map(|(p, _)| p.as_str()).collect();
    if changed.is_empty() {
        let all: Vec<&str> = contents.head.keys().map(String::as_str).collect();
        let verb = if all.len() == 1 { "is" } else { "are" };
        return (true, format!("{} {verb} byte for byte the same at the head", documents(&all)));
    }
    let verb = if changed.len() == 1 { "has" } else { "have" };
    (false, format!("{} {verb} changed since", documents(&changed)))
}

/// "`a.md`", "`a.md` and `b.md`", "`a.md`, `b.md`, `c.md` and 3 more documents".
fn documents(paths: &[&str]) -> String {
    const NAMED: usize = 3;
    let named: Vec<String> = paths.iter().take(NAMED).map(|p| format!("`{p}`")).collect();
    match named.as_slice() {
        _ if paths.len() > NAMED => format!("{} and {} more documents", named.join(", "), paths.len() - NAMED),
        [] => "no document".to_string(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    }
}
