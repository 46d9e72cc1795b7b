//! The paths a brief's body names, read from its markdown: inline code spans
//! (a whole span, or a command's path arguments), link and image
//! destinations, and words of prose that have a path's shape; and which
//! `to-be-created` flag covers which of them.

use crate::docs::brief::Brief;
use crate::docs::pathref::{SpanKind, classify, classify_word};
use crate::model::Span;

/// A place in the body that names a path (or an unsafe one).
pub(super) struct Candidate<'a> {
    pub span: Span,
    /// The path as written, a slice of the brief.
    pub text: &'a str,
    pub kind: SpanKind,
}

/// Every path the body names, in line and column order, each once per line.
pub(super) fn candidates<'a>(brief: &Brief<'a>) -> Vec<Candidate<'a>> {
    let repos = brief.repos();
    let body = brief.body;
    let mut out: Vec<Candidate<'a>> = Vec::new();
    for span in &brief.markdown.code_spans {
        let code = &body[span.content.clone()];
        match classify(&span.text, &repos) {
            SpanKind::NotAPath => words(body, span.content.start, code, span.line, &repos, false, &mut out),
            kind => out.push(Candidate { span: Span::at(span.line, span.col, span.width), text: code, kind }),
        }
    }
    for link in &brief.markdown.links {
        let written = &body[link.range.clone()];
        if let Some(kind) = link_kind(written, &repos) {
            let path = written.split(['#', '?']).next().unwrap_or(written);
            let width = path.chars().count() as u32;
            out.push(Candidate { span: Span::at(link.line, link.col, width), text: path, kind });
        }
    }
    for run in &brief.markdown.prose {
        words(body, run.range.start, &body[run.range.clone()], run.line, &repos, true, &mut out);
    }
    out.sort_by_key(|c| (c.span.line, c.span.col));
    let mut seen: Vec<(u32, &str)> = Vec::new();
    out.retain(|c| {
        let key = (c.span.line, c.text);
        let fresh = !seen.contains(&key);
        seen.push(key);
        fresh
    });
    out
}

/// A link destination that names a repository path: no URL, no anchor of
/// this page, no `mailto:`. A destination is read like an inline code span
/// without its `#fragment` or `?query`; one relative to the brief's own
/// folder (`../x.md`) or its repository's root (`/x.md`) is not checked,
/// since a brief's paths name places in `repos_touched`.
fn link_kind(written: &str, repos: &[&str]) -> Option<SpanKind> {
    let path = written.split(['#', '?']).next().unwrap_or(written);
    let scheme = path.split_once(':').is_some_and(|(s, _)| !s.contains('/') && !s.contains('@'));
    if path.is_empty() || scheme || path.starts_with("//") {
        return None;
    }
    match classify(path, repos) {
        SpanKind::Path(p) => Some(SpanKind::Path(p)),
        _ => None,
    }
}

/// The words of `text` (at byte `offset` of the body, on `line`) that are
/// paths, pushed onto `out`. A command's option value (`--config=a/b.toml`)
/// is a word of its own.
fn words<'a>(
    body: &'a str,
    offset: usize,
    text: &'a str,
    line: u32,
    repos: &[&str],
    in_prose: bool,
    out: &mut Vec<Candidate<'a>>,
) {
    let base = text.as_ptr() as usize;
    for raw in text.split_whitespace() {
        let raw = match raw.split_once('=') {
            Some((_, value)) if raw.starts_with('-') => value,
            _ => raw,
        };
        let word = raw.trim_start_matches(OPENING).trim_end_matches(CLOSING);
        if word.is_empty() {
            continue;
        }
        let kind = classify_word(word, repos, in_prose);
        if kind == SpanKind::NotAPath {
            continue;
        }
        let at = offset + (word.as_ptr() as usize - base);
        let line_start = body[..at].rfind('\n').map_or(0, |n| n + 1);
        let col = body[line_start..at].chars().count() as u32 + 1;
        let width = word.chars().count() as u32;
        // A code span runs over lines only when it is odd; its words keep
        // the span's first line.
        let word_line = line + body[offset..at].matches('\n').count() as u32;
        out.push(Candidate { span: Span::at(word_line, col, width), text: word, kind });
    }
}

/// What may open a path word in prose: brackets and quotes.
const OPENING: &[char] = &['(', '[', '"', '\'', '“', '‘', '«', '*', '_'];
/// What may close one: brackets, quotes and sentence punctuation.
const CLOSING: &[char] =
    &[')', ']', '"', '\'', '”', '’', '»', ',', '.', ';', ':', '!', '?', '*', '_', '。', '、', '，'];

/// Which path each `to-be-created` flag on a line covers: the last path
/// before it, else the first after it; each flag covers one path. Returns
/// for each candidate (by index) the text after its flag, when flagged.
pub(super) fn flags<'a>(brief: &Brief<'a>, candidates: &[Candidate<'a>]) -> Vec<Option<&'a str>> {
    const FLAG: &str = "to-be-created";
    let mut out = vec![None; candidates.len()];
    let mut start = 0;
    while start < candidates.len() {
        let line = candidates[start].span.line;
        let end = start + candidates[start..].iter().take_while(|c| c.span.line == line).count();
        let text = brief.line_text(line);
        for (at, _) in text.match_indices(FLAG) {
            let col = text[..at].chars().count() as u32 + 1;
            let on_line = start..end;
            let before = on_line.clone().rev().find(|&i| candidates[i].span.col < col);
            let owner = before.or_else(|| on_line.clone().find(|&i| candidates[i].span.col > col));
            if let Some(owner) = owner
                && out[owner].is_none()
            {
                out[owner] = Some(super::to_be_created_rationale::rationale(&text[at + FLAG.len()..]));
            }
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(u32, u32, u32, String, Option<String>)> {
        let brief = Brief::parse("dark-factory/briefs/SWARM-AR-x.md", text);
        let candidates = candidates(&brief);
        let flags = flags(&brief, &candidates);
        candidates
            .iter()
            .zip(flags)
            .map(|(c, f)| {
                (c.span.line, c.span.col, c.span.end_col - c.span.col, c.text.to_string(), f.map(str::to_string))
            })
            .collect()
    }

    #[test]
    fn paths_from_spans_commands_links_and_prose_with_columns() {
        let text = "---\nrepos_touched: [o/r]\n---\n\
                    Run `scripts/restore.sh --latest`, read [the runbook](runbooks/restore.md#steps).\n\
                    Notes go in “docs/notes/backups.md”, not and/or or Node.js.\r\n\
                    [ref]: hosts/db.yml\n";
        assert_eq!(
            found(text),
            vec![
                (4, 6, 18, "scripts/restore.sh".into(), None),
                (4, 55, 19, "runbooks/restore.md".into(), None),
                (5, 14, 21, "docs/notes/backups.md".into(), None),
                (6, 8, 12, "hosts/db.yml".into(), None),
            ]
        );
    }

    #[test]
    fn a_flag_covers_the_path_before_it_else_the_one_after() {
        let text = "---\n---\n\
                    `a/new.md` (to-be-created: the runbook this asks for) and `b/old.md`.\n\
                    to-be-created: `c/new.md` is the module this brief adds, beside `d/old.md`.\n";
        let flagged: Vec<(String, bool)> = found(text).into_iter().map(|(_, _, _, t, f)| (t, f.is_some())).collect();
        assert_eq!(
            flagged,
            vec![
                ("a/new.md".into(), true),
                ("b/old.md".into(), false),
                ("c/new.md".into(), true),
                ("d/old.md".into(), false)
            ]
        );
    }

    #[test]
    fn a_link_and_its_code_text_are_one_path() {
        let text = "---\n---\nSee [`runbooks/a.md`](runbooks/a.md) and [site](https://x.y/a.md), [up](../a.md).\n";
        let paths: Vec<String> = found(text).into_iter().map(|(_, _, _, t, _)| t).collect();
        assert_eq!(paths, vec!["runbooks/a.md".to_string()]);
    }
}
