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
    /// A link relative to the brief (`./`, `../`) or to its repository's
    /// root (`/docs/…`): the path is resolved there, in the brief's own
    /// repository, not in `repos_touched`.
    pub own_repo: bool,
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
            kind => out.push(Candidate {
                span: Span::at(span.line, span.col, span.width),
                text: code,
                kind,
                own_repo: false,
            }),
        }
    }
    // A shell fence's commands are read as a code span's are: a missing
    // script is as missing in a fence as in `` `scripts/x.sh` ``.
    for fence in brief.markdown.fences.iter().filter(|f| SHELLS.contains(&f.info.to_ascii_lowercase().as_str())) {
        let mut offset = fence.content_range.start;
        let content = &body[fence.content_range.clone()];
        for (i, raw) in content.split_inclusive('\n').enumerate() {
            let command = raw.trim_end_matches(['\n', '\r']);
            let start = command.len() - command.trim_start().len();
            let command = &command[start..];
            if !command.starts_with('#') {
                let prompt = if command.starts_with("$ ") { 2 } else { 0 };
                let line = fence.line + 1 + i as u32;
                words(body, offset + start + prompt, &command[prompt..], line, &repos, false, &mut out);
            }
            offset += raw.len();
        }
    }
    for link in &brief.markdown.links {
        let written = &body[link.range.clone()];
        if let Some((kind, own_repo)) = link_kind(written, brief.path, &repos) {
            let path = written.split(['#', '?']).next().unwrap_or(written);
            let width = path.chars().count() as u32;
            out.push(Candidate { span: Span::at(link.line, link.col, width), text: path, kind, own_repo });
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

/// The info strings of fences that hold shell commands.
const SHELLS: [&str; 8] = ["sh", "bash", "shell", "zsh", "console", "shell-session", "shellsession", "terminal"];

/// A link destination that names a repository path: no URL, no anchor of
/// this page, no `mailto:`; read without its `#fragment` or `?query`. One
/// relative to the brief (`./x.md`, `../x.md`) or rooted at its repository
/// (`/docs/x.md`) is resolved as GitHub resolves it, to a path of the
/// brief's own repository (the `bool`); any other names a place in
/// `repos_touched`, as an inline code span does. A destination that climbs
/// above the repository's root is no path gatehouse can check.
fn link_kind(written: &str, brief_path: &str, repos: &[&str]) -> Option<(SpanKind, bool)> {
    let path = written.split(['#', '?']).next().unwrap_or(written);
    let scheme = path.split_once(':').is_some_and(|(s, _)| !s.contains('/') && !s.contains('@'));
    if path.is_empty() || scheme || path.starts_with("//") {
        return None;
    }
    let resolved = if let Some(rooted) = path.strip_prefix('/') {
        rooted.to_string()
    } else if path.starts_with("./") || path.starts_with("../") {
        let folder = brief_path.rsplit_once('/').map_or("", |(folder, _)| folder);
        resolve(folder, path)?
    } else {
        return match classify(path, repos) {
            SpanKind::Path(p) => Some((SpanKind::Path(p), false)),
            _ => None,
        };
    };
    match classify(&resolved, &[]) {
        SpanKind::Path(p) if p.repo.is_none() => Some((SpanKind::Path(p), true)),
        _ => None,
    }
}

/// `relative` resolved against `folder` (both repository paths), `.` and
/// `..` segments removed; `None` when it climbs above the root. A trailing
/// `/` is kept: it names a folder.
fn resolve(folder: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for segment in relative.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    let mut out = parts.join("/");
    if relative.ends_with('/') && !out.is_empty() {
        out.push('/');
    }
    (!out.is_empty()).then_some(out)
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
        out.push(Candidate { span: Span::at(word_line, col, width), text: word, kind, own_repo: false });
    }
}

/// What may open a path word in prose: brackets and quotes.
const OPENING: &[char] = &['(', '[', '"', '\'', '“', '‘', '«', '*', '_'];
/// What may close one: brackets, quotes and sentence punctuation.
const CLOSING: &[char] =
    &[')', ']', '"', '\'', '”', '’', '»', ',', '.', ';', ':', '!', '?', '*', '_', '。', '、', '，'];

/// A `to-be-created` flag: where it is and its rationale (see
/// [`super::to_be_created_rationale::rationale`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    pub line: u32,
    /// 1-based character column of the flag.
    pub col: u32,
    pub rationale: String,
}

const FLAG: &str = "to-be-created";

/// Which path each `to-be-created` flag covers: the last path before it in
/// its sentence, else the first after it in its sentence; each flag covers
/// one path. A hard-wrapped paragraph reads as one line (CommonMark §6.7: a
/// soft line break renders as a space), so the sentence may run over the
/// paragraph's lines, and so may the rationale. Returns for each candidate
/// (by index) the flag that covers it.
pub(super) fn flags(brief: &Brief, candidates: &[Candidate]) -> Vec<Option<Flag>> {
    let mut out = vec![None; candidates.len()];
    let body = brief.body;
    let mut line = brief.body_line;
    let mut counted = 0;
    // One searcher for every brief: building it is most of a search's cost.
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(FLAG));
    for at in FINDER.find_iter(body.as_bytes()) {
        line += memchr::memchr_iter(b'\n', &body.as_bytes()[counted..at]).count() as u32;
        counted = at;
        let line_start = body[..at].rfind('\n').map_or(0, |n| n + 1);
        let col = body[line_start..at].chars().count() as u32 + 1;
        let paragraph = Paragraph::around(body, line_start, line);
        let flag_at = paragraph.offset(line, col);
        let here = on_lines(candidates, paragraph.first, paragraph.last);
        let before =
            here.clone().rev().find(|&i| paragraph.offset(candidates[i].span.line, candidates[i].span.col) < flag_at);
        let before = before.filter(|&i| {
            let end = paragraph.offset(candidates[i].span.line, candidates[i].span.end_col);
            !ends_sentence(paragraph.text.get(end..flag_at).unwrap_or(""))
        });
        let after = || {
            let first =
                here.clone().find(|&i| paragraph.offset(candidates[i].span.line, candidates[i].span.col) > flag_at)?;
            let start = paragraph.offset(candidates[first].span.line, candidates[first].span.col);
            (!ends_sentence(paragraph.text.get(flag_at + FLAG.len()..start).unwrap_or(""))).then_some(first)
        };
        let Some(owner) = before.or_else(after).filter(|&i| out[i].is_none()) else { continue };
        let rest = paragraph.text.get(flag_at + FLAG.len()..).unwrap_or("");
        let rationale = super::to_be_created_rationale::rationale(rest).to_string();
        out[owner] = Some(Flag { line, col, rationale });
    }
    out
}

/// The paragraph around a line, its lines joined by spaces as CommonMark
/// renders a soft line break, with where each line starts in the text.
struct Paragraph {
    first: u32,
    last: u32,
    text: String,
    /// For each line from `first`, its byte offset in `text`.
    starts: Vec<usize>,
    lines: Vec<String>,
}

impl Paragraph {
    /// The paragraph of the body line starting at byte `line_start`, file
    /// line `line`: read from the body around it, never from its start.
    fn around(body: &str, line_start: usize, line: u32) -> Paragraph {
        let line_at = |start: usize| {
            let end = memchr::memchr(b'\n', &body.as_bytes()[start..]).map_or(body.len(), |n| start + n);
            body[start..end].trim_end_matches('\r')
        };
        let (mut first_start, mut first) = (line_start, line);
        while first_start > 0 {
            let previous = memchr::memrchr(b'\n', &body.as_bytes()[..first_start - 1]).map_or(0, |n| n + 1);
            if !continues(line_at(previous), line_at(first_start)) {
                break;
            }
            (first_start, first) = (previous, first - 1);
        }
        let mut lines = vec![line_at(first_start).to_string()];
        let mut start = first_start;
        while let Some(next) = memchr::memchr(b'\n', &body.as_bytes()[start..]).map(|n| start + n + 1) {
            if next >= body.len() || !continues(line_at(start), line_at(next)) {
                break;
            }
            lines.push(line_at(next).to_string());
            start = next;
        }
        let mut text = String::new();
        let mut starts = Vec::new();
        for l in &lines {
            if !text.is_empty() {
                text.push(' ');
            }
            starts.push(text.len());
            text.push_str(l);
        }
        Paragraph { first, last: first + lines.len() as u32 - 1, text, starts, lines }
    }

    /// The byte offset in `text` of a 1-based character column of a line.
    fn offset(&self, line: u32, col: u32) -> usize {
        let Some(k) = line.checked_sub(self.first).map(|k| k as usize).filter(|k| *k < self.lines.len()) else {
            return 0;
        };
        let l = &self.lines[k];
        let byte = l.char_indices().nth(col.saturating_sub(1) as usize).map_or(l.len(), |(b, _)| b);
        self.starts[k] + byte
    }
}

/// The indexes of the candidates on lines `first..=last` (they are in line
/// order).
fn on_lines(candidates: &[Candidate], first: u32, last: u32) -> std::ops::Range<usize> {
    let start = candidates.partition_point(|c| c.span.line < first);
    start..start + candidates[start..].iter().take_while(|c| c.span.line <= last).count()
}

/// Whether `line` continues the paragraph of `previous`: both hold text and
/// `line` opens no block of its own (a list item, heading, quote, fence or
/// table row).
fn continues(previous: &str, line: &str) -> bool {
    let trimmed = line.trim_start();
    let numbered = trimmed.split_once(['.', ')']).is_some_and(|(n, rest)| {
        !n.is_empty() && n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(' ')
    });
    !previous.trim().is_empty()
        && !trimmed.is_empty()
        && !numbered
        && !["- ", "* ", "+ ", "#", ">", "```", "~~~", "|"].iter().any(|m| trimmed.starts_with(m))
}

/// Whether `text` ends a sentence: a `.`, `!`, `?` or `;` followed by a
/// space or the end, outside a parenthesis opened in it.
fn ends_sentence(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| {
        matches!(b, b'.' | b'!' | b'?' | b';') && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace())
    })
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
                let f = f.map(|f| f.rationale);
                (c.span.line, c.span.col, c.span.end_col - c.span.col, c.text.to_string(), f)
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
    fn a_hard_wrapped_flag_reads_as_one_line() {
        let one =
            "---\n---\nAdd `runbooks/drill.md` to-be-created: the drill runbook this asks for, beside `a/old.md`.\n";
        let flagged = |text: &str| -> Vec<(String, Option<String>)> {
            found(text).into_iter().map(|(_, _, _, t, f)| (t, f)).collect()
        };
        for wrapped in [
            "---\n---\nAdd `runbooks/drill.md`\nto-be-created: the drill runbook this asks for, beside `a/old.md`.\n",
            "---\n---\nAdd `runbooks/drill.md` to-be-created:\nthe drill runbook this asks for, beside `a/old.md`.\n",
            "---\n---\nAdd `runbooks/drill.md`\r\n  to-be-created: the drill runbook this asks for, beside `a/old.md`.\r\n",
        ] {
            assert_eq!(flagged(wrapped), flagged(one), "{wrapped:?}");
        }
        let ended = "---\n---\nKeep `a/old.md`.\nto-be-created: `b/new.md` is the module this brief adds.\n";
        assert_eq!(
            flagged(ended),
            vec![
                ("a/old.md".into(), None),
                ("b/new.md".into(), Some("`b/new.md` is the module this brief adds".into()))
            ]
        );
    }

    #[test]
    fn a_link_and_its_code_text_are_one_path() {
        let text =
            "---\n---\nSee [`runbooks/a.md`](runbooks/a.md) and [site](https://x.y/a.md), [up](../../../a.md).\n";
        let paths: Vec<String> = found(text).into_iter().map(|(_, _, _, t, _)| t).collect();
        assert_eq!(paths, vec!["runbooks/a.md".to_string()]);
    }

    #[test]
    fn links_relative_to_the_brief_or_its_root_resolve_in_its_repository() {
        let text = "---\n---\nSee [a](./a.md), [b](../../docs/b.md#x), [c][c] and [d](/docs/d/).\n\n[c]: ../c.md\n";
        let brief = Brief::parse("dark-factory/briefs/SWARM-AR-x.md", text);
        let resolved: Vec<(String, bool)> = candidates(&brief)
            .into_iter()
            .map(|c| match c.kind {
                SpanKind::Path(p) => (p.path, c.own_repo),
                other => (format!("{other:?}"), c.own_repo),
            })
            .collect();
        assert_eq!(
            resolved,
            vec![
                ("dark-factory/briefs/a.md".into(), true),
                ("docs/b.md".into(), true),
                ("docs/d/".into(), true),
                ("dark-factory/c.md".into(), true),
            ]
        );
        assert_eq!(resolve("a/b", "../../../x.md"), None);
    }

    #[test]
    fn shell_fences_are_read_as_commands() {
        let text = "---\nrepos_touched: [o/r]\n---\n```bash\n# restore the latest dump\n./scripts/restore.sh --from=backups/latest/\n```\n\n~~~console\n$ make -f build/ci.mk\n~~~\n\n```text\nlogs/out.txt\n```\n";
        let paths: Vec<(u32, u32, String)> = found(text).into_iter().map(|(l, c, _, t, _)| (l, c, t)).collect();
        assert_eq!(
            paths,
            vec![
                (6, 1, "./scripts/restore.sh".into()),
                (6, 29, "backups/latest/".into()),
                (10, 11, "build/ci.mk".into())
            ]
        );
    }
}
