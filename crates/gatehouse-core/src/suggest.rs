//! "Did you mean …?": the known names nearest a mistyped one.

/// The edit distance between `a` and `b`, counting a swap of two adjacent
/// characters as one edit (the optimal-string-alignment distance).
pub fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let width = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best =
                (d[(i - 1) * width + j] + 1).min(d[i * width + j - 1] + 1).min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The most edits a suggestion may be from what was written: one for short
/// names, a third of the length for longer ones.
fn reach(word: &str) -> usize {
    (word.chars().count() / 3).max(1)
}

/// The candidates nearest `word`: the ones (at most three, in the order
/// given) at the least distance, if that is at most a third of its length.
/// `word` itself is not one.
pub fn nearest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Vec<&'c str> {
    let reach = reach(word);
    let mut scored: Vec<(usize, usize, &str)> = candidates
        .into_iter()
        .filter(|c| *c != word && c.chars().count().abs_diff(word.chars().count()) <= reach)
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= reach)
        .enumerate()
        .map(|(order, (d, c))| (d, order, c))
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.2 == b.2);
    let least = scored.first().map_or(0, |s| s.0);
    scored.into_iter().take_while(|s| s.0 == least).take(3).map(|(_, _, c)| c).collect()
}

/// "did you mean `a`?" or "did you mean `a`, `b` or `c`?", each wrapped in
/// backticks; `None` for no suggestions.
pub fn did_you_mean(suggestions: &[&str]) -> Option<String> {
    let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    match quoted.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [rest @ .., last] => Some(format!("did you mean {} or {last}?", rest.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_swaps() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("ADR-210", "ADR-201"), 1);
        assert_eq!(distance("succes_criteria", "success_criteria"), 1);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn nearest_keeps_the_close_ones_closest_first() {
        let ids = ["brief/path-missing", "brief/path-invalid", "brief/adr-missing", "voting/tally"];
        assert_eq!(nearest("path-missing", ids), Vec::<&str>::new());
        assert_eq!(nearest("brief/path-mising", ids), vec!["brief/path-missing"]);
        assert_eq!(nearest("ADR-210", ["ADR-095", "ADR-201", "ADR-099"]), vec!["ADR-201"]);
        assert_eq!(nearest("x", ["y", "x"]), vec!["y"]);
        assert_eq!(did_you_mean(&["a", "b", "c"]).as_deref(), Some("did you mean `a`, `b` or `c`?"));
        assert_eq!(did_you_mean(&[]), None);
    }
}
