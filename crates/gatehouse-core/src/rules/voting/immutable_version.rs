use super::{Published, VotingView};
use crate::docs::frontmatter;
use crate::docs::seen::{same_line, seen};
use crate::docs::voting::{VotingDoc, same_value};
use crate::model::{Sink, Span};

declare_rule! {
    id: "voting/immutable-version",
    view: VotingView,
    severity: Error,
    summary: "vs the base: a published version's prose and frontmatter are unchanged; a new version is the next one",
    why: "ADR-140, \"Schema migration discipline\": \"@v1 → @v2 of a voting-format doc is a new immutable \
file; the previous version stays so in-flight cites and in-flight argument submissions resolve to the schema \
they were written against … Hand-editing @v1 is not a path.\" and \"Each new doc is a new file at \
<topic>.md@v<n>; bumps mint immutable new files.\" So a published version (on the base) keeps its frontmatter \
and prose (everything outside the `voting` blocks) as a reader sees it (rendered, NFC-normalised, whitespace \
folded: another spelling of the same Markdown is no edit) and is never deleted; only its ledgers grow \
(see `voting/append-only`). A new version of a doc is `@v<n+1>` of the highest published `@v<n>` (`@v1` for a \
new doc); one that skips a number or reuses one is an error.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, base) in view.docs.iter().zip(&view.bases) {
        match base {
            Some(Published::Changed(base)) => edited(sink, doc, base),
            // Only votes and arguments were appended: the prose is the base's.
            Some(Published::Appended) => {}
            None => new_version(view, sink, doc),
        }
    }
    // Once per change, with its first doc.
    for &path in view.deleted.iter().filter(|_| view.first) {
        sink.emit(path, Span::line(1), "deleted", "this published voting doc is deleted").help(
            "keep published versions: in-flight cites resolve to them; mint the next version as a new file instead",
        );
    }
}

/// The first line outside the `voting` blocks that differs from the base.
fn edited(sink: &mut Sink, doc: &VotingDoc, base: &VotingDoc) {
    let mut head = doc.prose_lines();
    let mut published = base.prose_lines();
    // The frontmatter as data and the prose as a reader sees it: another
    // spelling of the same YAML or Markdown (line endings, quoting, escapes,
    // wrapping) is no edit.
    let same_frontmatter = match (&doc.frontmatter, &base.frontmatter) {
        (Ok(a), Ok(b)) => same_value(a.root(), b.root()),
        (a, b) => a.as_ref().err() == b.as_ref().err(),
    };
    if same_frontmatter {
        // Only the prose can differ: the lines after each frontmatter.
        let (head_body, base_body) = (frontmatter::split(doc.text).body_line, frontmatter::split(base.text).body_line);
        head.retain(|(n, _)| *n >= head_body);
        published.retain(|(n, _)| *n >= base_body);
    }
    let prose = |lines: &[(u32, &str)]| seen(&lines.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n"));
    if same_frontmatter && prose(&head) == prose(&published) {
        return;
    }
    // Lines a reader does not see (blank, an HTML comment) are no prose.
    head.retain(|(_, l)| !seen(l).is_empty());
    published.retain(|(_, l)| !seen(l).is_empty());
    let mut pairs = published.iter().zip(&head);
    let next = format_next(doc);
    let help =
        format!("a published version is immutable apart from appended arguments and votes; put this change in {next}");
    if let Some(((_, before), (line, after))) = pairs.find(|((_, a), (_, b))| !same_line(a, b)) {
        sink.emit(
            doc.path,
            Span::line(*line),
            "edited",
            format!("published line `{}` is changed to `{}`", clip(before), clip(after)),
        )
        .help(help);
    } else if head.len() != published.len() {
        let line = match head.get(published.len()) {
            Some((line, _)) => *line,
            None => head.last().map_or(1, |(line, _)| *line),
        };
        let what = if head.len() > published.len() { "lines are added to" } else { "lines are removed from" };
        sink.emit(doc.path, Span::line(line), "edited", format!("{what} the published prose of this version"))
            .help(help);
    }
}

/// The file a changed version should go to: `<doc>@v<n+1>.md`.
fn format_next(doc: &VotingDoc) -> String {
    match doc.file_name() {
        Ok(name) => format!("`{}@v{}.md`", name.doc, name.version + 1),
        Err(_) => "the next version's file".to_string(),
    }
}

fn new_version(view: &VotingView, sink: &mut Sink, doc: &VotingDoc) {
    let Ok(name) = doc.file_name() else { return };
    let published = view.published.get(name.doc);
    let highest = published.and_then(|v| v.last()).copied().unwrap_or(0);
    let span = doc.field("version").map_or(Span::line(1), |n| super::at(doc.text, n));
    let anchor = format!("version:{}", name.version);
    let claimed_by = view.head_versions.get(name.doc).and_then(|v| v.get(&name.version)).map_or(&[][..], Vec::as_slice);
    let first = claimed_by.first().filter(|first| **first != doc.path);
    if published.is_some_and(|v| v.contains(&name.version)) {
        sink.emit(
            doc.path,
            span,
            anchor,
            format!("`{}@v{}` is already published under another file name", name.doc, name.version),
        )
        .help(format!("a version is minted once; the next version is `@v{}`", highest + 1));
    } else if let Some(first) = first {
        sink.emit(
            doc.path,
            span,
            anchor,
            format!("`{}@v{}` is also the file `{first}`: a version is one file", name.doc, name.version),
        )
        .help("keep one of the two spellings (`<doc>@v<n>.md` or `<doc>.md@v<n>`)");
    } else if name.version <= highest {
        sink.emit(
            doc.path,
            span,
            anchor,
            format!("`{}@v{}` is older than the published `@v{highest}`", name.doc, name.version),
        )
        .help(format!("versions only go up: the next version is `@v{}`", highest + 1));
    } else if name.version > highest + 1
        && !view.head_versions.get(name.doc).is_some_and(|v| v.contains_key(&(name.version - 1)))
    {
        let after = if highest == 0 {
            "a new doc starts at `@v1`".to_string()
        } else {
            format!("the highest published version is `@v{highest}`")
        };
        sink.emit(
            doc.path,
            span,
            anchor,
            format!("`{}@v{}` skips `@v{}`: {after}", name.doc, name.version, highest + 1),
        )
        .help(format!("name the new version `{}@v{}.md`", name.doc, highest + 1));
    }
}

fn clip(line: &str) -> String {
    let text: String = line.chars().take(80).collect();
    if line.chars().count() > 80 { format!("{text}…") } else { text }
}
