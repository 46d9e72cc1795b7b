//! Which head lines a review comment may sit on: the lines a pull request
//! file's patch (a unified diff) shows on its right side (added and context
//! lines). The App places its comments by it; the simulated GitHub refuses
//! comments outside it.

use std::collections::BTreeSet;

/// Right-side line numbers inside the hunks of a unified diff. Malformed
/// hunk headers end the parse: nothing outside the diff is ever claimed.
pub fn commentable_lines(patch: &str) -> BTreeSet<u32> {
    let mut lines = BTreeSet::new();
    let mut next: Option<u32> = None;
    for line in patch.lines() {
        if let Some(header) = line.strip_prefix("@@ ") {
            next = hunk_start(header);
            if next.is_none() {
                break;
            }
            continue;
        }
        let Some(at) = next else { continue };
        match line.as_bytes().first() {
            Some(b'+') | Some(b' ') => {
                lines.insert(at);
                next = Some(at + 1);
            }
            Some(b'-') | Some(b'\\') => {}
            // GitHub drops the space of an empty context line.
            None => {
                lines.insert(at);
                next = Some(at + 1);
            }
            _ => next = None,
        }
    }
    lines
}

/// `-a,b +c,d @@ …` → `c`.
fn hunk_start(header: &str) -> Option<u32> {
    let plus = header.split_whitespace().find(|part| part.starts_with('+'))?;
    plus[1..].split(',').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_right_side_lines() {
        let patch = "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+C\n c\n@@ -10,2 +11,2 @@ fn x\n k\n+l";
        assert_eq!(commentable_lines(patch).into_iter().collect::<Vec<_>>(), vec![1, 2, 3, 4, 11, 12]);
        assert!(commentable_lines("garbage\n+x").is_empty());
        assert!(commentable_lines("@@ nonsense @@\n+x").is_empty());
    }
}
