//! Patches as GitHub shows them in a PR's file list: one hunk around the
//! changed region with three lines of context (enough for review comments to
//! have lines inside and outside the diff).

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::publish::diff::commentable_lines;

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
