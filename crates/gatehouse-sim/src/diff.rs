//! What the simulated GitHub derives from two commits' trees: the PR's file
//! list with patches as GitHub shows them (one hunk around the changed region
//! with three lines of context, enough for review comments to have lines
//! inside and outside the diff), and a commit's recursive listing.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Pull, Repo, Tree};

const CONTEXT: usize = 3;

/// The unified-diff hunk from `base` to `head` (`None` when binary).
pub fn patch(base: Option<&[u8]>, head: Option<&[u8]>) -> Option<String> {
    let text = |b: Option<&[u8]>| -> Option<Vec<String>> {
        match b {
            None => Some(Vec::new()),
            Some(bytes) if bytes.contains(&0) => None,
            Some(bytes) => Some(String::from_utf8_lossy(bytes).lines().map(str::to_string).collect()),
        }
    };
    let (old, new) = (text(base)?, text(head)?);
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old.iter().rev().zip(new.iter().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    if prefix == old.len() && prefix == new.len() {
        return Some(String::new());
    }
    let start = prefix.saturating_sub(CONTEXT);
    let old_end = (old.len() - suffix + CONTEXT).min(old.len());
    let new_end = (new.len() - suffix + CONTEXT).min(new.len());
    let mut out = format!(
        "@@ -{},{} +{},{} @@",
        if old.is_empty() { 0 } else { start + 1 },
        old_end - start,
        if new.is_empty() { 0 } else { start + 1 },
        new_end - start
    );
    for line in &old[start..prefix] {
        out.push_str(&format!("\n {line}"));
    }
    for line in &old[prefix..old.len() - suffix] {
        out.push_str(&format!("\n-{line}"));
    }
    for line in &new[prefix..new.len() - suffix] {
        out.push_str(&format!("\n+{line}"));
    }
    for line in &new[new.len() - suffix..new_end] {
        out.push_str(&format!("\n {line}"));
    }
    Some(out)
}

/// The PR's changed files with their patches, sorted by path: computed once
/// per pair of commits, as GitHub keeps a pull request's diff. The diff runs
/// from the merge base, not the base branch's tip ("About comparing branches
/// in pull requests": a pull request shows a three-dot comparison).
pub(crate) fn changed_files(repo: &Repo, p: &Pull) -> super::Diff {
    let key = (p.merge_base.clone(), p.head_sha.clone());
    let mut diffs = repo.diffs.lock().unwrap_or_else(|e| e.into_inner());
    diffs
        .entry(key)
        .or_insert_with(|| {
            let empty = Tree::new();
            let base = repo.commits.get(&p.merge_base).map_or(&empty, |t| t.as_ref());
            let head = repo.commits.get(&p.head_sha).map_or(&empty, |t| t.as_ref());
            Arc::new(diff_files(base, head))
        })
        .clone()
}

/// The files that differ between two trees with their patches, by path
/// (the two trees walked in step).
pub(crate) fn diff_files(base: &Tree, head: &Tree) -> Vec<Value> {
    let (mut olds, mut news) = (base.iter().peekable(), head.iter().peekable());
    let mut out = Vec::new();
    loop {
        let order = match (olds.peek(), news.peek()) {
            (None, None) => break,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some((old, _)), Some((new, _))) => old.cmp(new),
        };
        let (path, b, h) = match order {
            std::cmp::Ordering::Less => match olds.next() {
                Some((path, b)) => (path, Some(b), None),
                None => break,
            },
            std::cmp::Ordering::Greater => match news.next() {
                Some((path, h)) => (path, None, Some(h)),
                None => break,
            },
            std::cmp::Ordering::Equal => match (olds.next(), news.next()) {
                (Some((_, b)), Some((path, h))) if b != h => (path, Some(b), Some(h)),
                _ => continue,
            },
        };
        let status = match (b, h) {
            (None, _) => "added",
            (_, None) => "removed",
            _ => "modified",
        };
        let patch = patch(b.map(Vec::as_slice), h.map(Vec::as_slice));
        let count = |prefix: char| {
            patch.as_deref().map_or(0, |p| p.lines().filter(|l| l.starts_with(prefix) && !l.starts_with("@@")).count())
        };
        let (additions, deletions) = (count('+'), count('-'));
        let sha = h.or(b).map_or_else(String::new, |bytes| super::blob_sha(bytes));
        out.push(json!({
            "sha": sha, "filename": path, "status": status, "patch": patch,
            "additions": additions, "deletions": deletions, "changes": additions + deletions,
        }));
    }
    out
}

/// The body of `GET /git/trees/{sha}?recursive=1` for `tree`.
pub(crate) fn listing(sha: &str, tree: &Tree) -> axum::body::Bytes {
    let entries: Vec<Value> = tree
        .iter()
        .map(|(p, bytes)| {
            json!({ "path": p, "type": "blob", "mode": "100644", "sha": super::blob_sha(bytes), "size": bytes.len() })
        })
        .collect();
    axum::body::Bytes::from(json!({ "sha": sha, "tree": entries, "truncated": false }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatehouse_core::diff::commentable_lines;

    #[test]
    fn one_hunk_with_context() {
        let base = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let head = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let p = patch(Some(base.as_bytes()), Some(head.as_bytes())).unwrap();
        assert!(p.starts_with("@@ -2,7 +2,7 @@"), "{p}");
        let lines = commentable_lines(&p);
        assert_eq!(lines.iter().copied().collect::<Vec<_>>(), vec![2, 3, 4, 5, 6, 7, 8]);
        let added = patch(None, Some(b"x\ny\n")).unwrap();
        assert_eq!(added, "@@ -0,0 +1,2 @@\n+x\n+y");
        assert_eq!(patch(None, Some(b"\0")), None);
    }
}
