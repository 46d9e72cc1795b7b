//! PR-body cites. Once a brief merges, "the brief slug is what the sub-agent
//! receives" (ADR-099): implementation PRs say which brief they implement
//! (`Brief: <path>`) and which guideline versions they follow
//! (`Guideline: <name>@v<n>`). The cites must name files on the BASE branch,
//! and the PR must stay inside the cited brief.

mod brief;
mod brief_repo;
mod brief_scope;
mod brief_size;
mod guideline;

use super::Rule;
use crate::config::globset;
use crate::docs::brief::Brief;
use crate::model::ChangeSet;

/// One `Key: value` cite of the PR body.
pub struct Cite {
    /// 1-based line in the PR body.
    pub line: u32,
    /// 1-based column where the value starts.
    pub col: u32,
    /// The value as GitHub shows it (escapes and entities decoded).
    pub value: String,
}

/// The cites of a PR body, and the base documents they resolve to.
pub struct CiteView<'a> {
    pub changes: &'a ChangeSet,
    pub briefs: Vec<Cite>,
    pub guidelines: Vec<Cite>,
    /// For each brief cite (same order), the merged brief it names, if any.
    pub resolved: Vec<Option<Brief<'a>>>,
}

/// Finds `Key: value` labels in the PR body as GitHub renders it: a label
/// opens a line of a paragraph or a list item (under any list marker, in
/// any emphasis; case-insensitive key), and its value is the rest of that
/// line, or the next line when the line breaks after the colon.
/// Escapes and entities are decoded; code blocks, blockquotes, headings,
/// tables and HTML comments hold no cites.
pub(crate) fn cites(body: &str, key: &str) -> Vec<Cite> {
    let lines = rendered_lines(body);
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let text = line.text.trim_start();
        let Some(rest) = text.get(..key.len()).filter(|k| k.eq_ignore_ascii_case(key)).map(|_| &text[key.len()..])
        else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(':') else { continue };
        let (value, source) = match rest.trim() {
            "" => match lines.get(at + 1).filter(|_| line.continued) {
                Some(next) if !next.text.trim().is_empty() => (next.text.trim(), next),
                _ => continue,
            },
            value => (value, line),
        };
        let offset = source.offset_of(value);
        let before = &body[..offset.min(body.len())];
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        out.push(Cite {
            line: source.line,
            col: before[line_start..].chars().count() as u32 + 1,
            value: value.to_string(),
        });
    }
    out
}

/// One line of a paragraph or list item as GitHub shows it, with where in
/// the source each piece of its text starts.
struct RenderedLine {
    text: String,
    /// The 1-based source line of its first text.
    line: u32,
    /// (offset in `text`, offset in the source, written verbatim there).
    pieces: Vec<(usize, usize, bool)>,
    /// The paragraph goes on on the next line (a soft or hard break).
    continued: bool,
}

impl RenderedLine {
    /// The source offset of `word`, a slice of `text`.
    fn offset_of(&self, word: &str) -> usize {
        let at = word.as_ptr() as usize - self.text.as_ptr() as usize;
        let piece = self.pieces.iter().rev().find(|(start, ..)| *start <= at);
        piece.map_or(0, |&(start, source, verbatim)| if verbatim { source + at - start } else { source })
    }
}

fn rendered_lines(body: &str) -> Vec<RenderedLine> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let line_of = |offset: usize| memchr::memchr_iter(b'\n', &body.as_bytes()[..offset]).count() as u32 + 1;
    let mut lines: Vec<RenderedLine> = Vec::new();
    let mut open: Option<RenderedLine> = None;
    // Depth inside blocks that hold no cites, and inside paragraphs or items.
    let (mut skipped, mut readable) = (0u32, 0u32);
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        match event {
            Event::Start(
                Tag::BlockQuote(_) | Tag::CodeBlock(_) | Tag::Heading { .. } | Tag::Table(_) | Tag::HtmlBlock,
            ) => {
                skipped += 1;
            }
            Event::End(
                TagEnd::BlockQuote(_) | TagEnd::CodeBlock | TagEnd::Heading(_) | TagEnd::Table | TagEnd::HtmlBlock,
            ) => {
                skipped = skipped.saturating_sub(1);
            }
            Event::Start(Tag::Paragraph | Tag::Item) => {
                lines.extend(open.take());
                readable += 1;
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item) => {
                lines.extend(open.take());
                readable = readable.saturating_sub(1);
            }
            Event::Text(text) | Event::Code(text) if skipped == 0 && readable > 0 => {
                let line = open.get_or_insert_with(|| RenderedLine {
                    text: String::new(),
                    line: line_of(range.start),
                    pieces: Vec::new(),
                    continued: false,
                });
                let source = &body[range.clone()];
                let verbatim = source.find(text.as_ref());
                line.pieces.push((line.text.len(), range.start + verbatim.unwrap_or(0), verbatim.is_some()));
                line.text.push_str(&text);
            }
            Event::SoftBreak | Event::HardBreak if skipped == 0 => {
                if let Some(mut line) = open.take() {
                    line.continued = true;
                    lines.push(line);
                }
            }
            _ => {}
        }
    }
    lines.extend(open);
    lines
}

impl<'a> CiteView<'a> {
    pub fn new(changes: &'a ChangeSet) -> CiteView<'a> {
        let body = changes.pr.body.as_deref().unwrap_or("");
        let briefs = cites(body, "Brief");
        let guidelines = cites(body, "Guideline");
        let matcher = globset(&changes.config.briefs.paths);
        let resolved = briefs
            .iter()
            .map(|cite| {
                let value = cite.value.trim_end_matches(".md");
                changes
                    .base
                    .iter()
                    .filter(|(path, _)| matcher.is_match(path))
                    .find(|(path, _)| {
                        let stem = path.rsplit('/').next().unwrap_or(path).trim_end_matches(".md");
                        path.trim_end_matches(".md") == value || stem == value
                    })
                    .and_then(|(path, content)| Some(Brief::parse(path, content.text()?)))
            })
            .collect();
        CiteView { changes, briefs, guidelines, resolved }
    }
}

fn brief_rules<'a>() -> Vec<Rule<CiteView<'a>>> {
    vec![brief::rule(), brief_repo::rule(), brief_size::rule(), brief_scope::rule()]
}

fn guideline_rules<'a>() -> Vec<Rule<CiteView<'a>>> {
    vec![guideline::rule()]
}

declare_family! {
    /// `Brief:` cites, reported with the briefs.
    BriefCites, Briefs, brief_rules, |changes, run| {
        let view = CiteView::new(changes);
        run.cites = view.briefs.len();
        run.run(&brief_rules(), &view);
    }
}

declare_family! {
    /// `Guideline:` cites, reported with the voting docs.
    GuidelineCites, Voting, guideline_rules, |changes, run| {
        let view = CiteView::new(changes);
        run.cites = view.guidelines.len();
        run.run(&guideline_rules(), &view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cite_lines_in_common_spellings() {
        let body = "Implements the backup brief.\n\nBrief: dark-factory/briefs/SWARM-AR-pg-backup.md\n- **Guideline:** smoke-spec-path@v2\nbrief: `SWARM-AS-x`\nBriefly: no\n+ Brief: SWARM-AR-plus\n";
        let found = |body: &str, key: &str| -> Vec<(u32, u32, String)> {
            cites(body, key).into_iter().map(|c| (c.line, c.col, c.value)).collect()
        };
        let briefs = found(body, "Brief");
        let expected =
            [(3, 8, "dark-factory/briefs/SWARM-AR-pg-backup.md"), (5, 9, "SWARM-AS-x"), (7, 10, "SWARM-AR-plus")];
        assert_eq!(briefs, expected.map(|(l, c, v)| (l, c, v.to_string())));
        assert_eq!(found(body, "Guideline"), vec![(4, 18, "smoke-spec-path@v2".to_string())]);
    }

    #[test]
    fn cites_are_read_as_github_renders_the_body() {
        let found = |body: &str| -> Vec<(u32, u32, String)> {
            cites(body, "Brief").into_iter().map(|c| (c.line, c.col, c.value)).collect()
        };
        let expected = vec![(1, 8, "SWARM-AR-x".to_string())];
        for body in [
            "Brief: SWARM-AR-x\n",
            "Brief: SWARM-AR-x <!-- the backup one -->\n",
            "Brief\\: SWARM-AR-x\n",
            "* __Brief:__ SWARM-AR-x\r\n",
            "Brief: SWARM&#45;AR-x\n",
        ] {
            let found = found(body);
            assert_eq!((found.len(), found[0].0, found[0].2.as_str()), (1, 1, "SWARM-AR-x"), "{body:?}");
        }
        assert_eq!(found("Brief: SWARM-AR-x\n"), expected);
        // The value on the line after its label: the finding points at the value.
        assert_eq!(found("Brief:\n  SWARM-AR-x\n"), vec![(2, 3, "SWARM-AR-x".to_string())]);
        for none in
            ["<!-- Brief: SWARM-AR-x -->\n", "```\nBrief: SWARM-AR-x\n```\n", "> Brief: SWARM-AR-x\n", "# Brief: x\n"]
        {
            assert!(found(none).is_empty(), "{none:?}");
        }
    }
}
