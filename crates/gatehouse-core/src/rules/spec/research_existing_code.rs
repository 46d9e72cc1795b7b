use super::SpecView;
use crate::docs::label::label;
use crate::docs::markdown;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/research-existing-code",
    view: SpecView,
    severity: Error,
    summary: "`pre-plan/01-research.md` opens with **Existing code**",
    why: "fondue `spec` v9, Artifacts → pre-plan/01-research.md: \"`01-research.md` opens with **Existing \
code**: for each capability the approach needs, what the code already has that does it or comes close, as a \
FACT anchored in the code, and whether the approach **reuses** it, **reshapes** it, or adds something \
**new**. … When nothing comes close, the entry says where you looked.\" The reviewer judges a draft \
against it (\"an Existing code entry that misses code the reviewer can anchor\" is wrong about the \
approach), so the research's first section, under its title, is `## Existing code` (or a line \
`**Existing code**`), and it is not empty. What each entry says is the reviewer's judgement.",
    bad: "fondue/specs/retry-queue/pre-plan/01-research.md",
    good: "fondue/specs/retry-queue/pre-plan/01-research.md",
}

const RESEARCH: &str = "pre-plan/01-research.md";

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.current() {
        let Some(text) = spec.text(RESEARCH) else { continue };
        if let Some((line, message)) = problem(text) {
            sink.emit(&spec.path(RESEARCH), Span::line(line), "existing-code", message).help(
                "start the research with `## Existing code`: for each capability the approach needs, what the code \
                 already has (a FACT anchored in the code) and whether the approach reuses it, reshapes it or adds \
                 something new; when nothing comes close, say where you looked",
            );
        }
    }
}

/// Whether `name` (a heading or a bold line) names the Existing code section.
fn is_existing_code(name: &str) -> bool {
    crate::docs::label::names_section(name, "existing code")
}

/// The first section's line and what is wrong with it, if anything.
fn problem(text: &str) -> Option<(u32, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let md = markdown::parse(text, 1);
    let first_section = md.headings.iter().find(|h| h.level >= 2);
    // A label opens a paragraph, whose lines read as one (a soft line
    // break is a space): `**Existing\ncode**` is the label wrapped.
    let paragraphs = paragraphs(text);
    let bold = paragraphs.iter().find_map(|(first, last, joined)| {
        let (name, rest) = label(joined)?;
        let before_heading = first_section.is_none_or(|h| *first < h.line);
        before_heading.then_some((*first, *last, name, rest))
    });
    let (line, name, level) = match (bold, first_section) {
        (Some((first, last, name, rest)), _) => {
            if !is_existing_code(name) {
                return Some((first, format!("the research opens with `{}`, not **Existing code**", name.trim())));
            }
            // A label with its content on the same line
            // (`**Existing code**: the bucket … - **reshape**.`) is not empty.
            if !rest.trim_start_matches(['-', ':', '\u{2013}', '\u{2014}']).trim().is_empty() {
                return None;
            }
            (last, name.to_string(), None)
        }
        (None, Some(h)) => (h.line, h.text.clone(), Some(h.level)),
        (None, None) => return Some((1, "the research has no **Existing code** section".to_string())),
    };
    if !is_existing_code(&name) {
        return Some((line, format!("the research opens with `{}`, not **Existing code**", name.trim())));
    }
    // The section's body: up to the next heading of its level or above.
    let end = md.headings.iter().find(|h| h.line > line && level.is_none_or(|l| h.level <= l)).map(|h| h.line);
    let body = text
        .lines()
        .enumerate()
        .skip(line as usize)
        .take_while(|(i, _)| end.is_none_or(|end| (*i as u32 + 1) < end))
        .any(|(_, l)| !l.trim().is_empty());
    (!body).then(|| (line, "the **Existing code** section is empty".to_string()))
}

/// The paragraphs of `text` as runs of non-blank lines: first and last line
/// (1-based) and the lines joined by spaces.
fn paragraphs(text: &str) -> Vec<(u32, u32, String)> {
    let mut out: Vec<(u32, u32, String)> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        let number = i as u32 + 1;
        match out.last_mut() {
            _ if line.trim().is_empty() => open = false,
            Some((_, last, joined)) if open => {
                *last = number;
                joined.push(' ');
                joined.push_str(line.trim());
            }
            _ => {
                out.push((number, number, line.trim().to_string()));
                open = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn the_research_opens_with_existing_code() {
        assert_eq!(problem("# Research\n\n## Existing code\n\n- FACT: `a.rs` does it; **reuses**.\n"), None);
        assert_eq!(problem("\u{feff}# Research\r\n\r\n## Existing code\r\n\r\n- FACT: x\r\n"), None);
        assert_eq!(problem("# Research\n\n**Existing code**\n\n- FACT: x\n\n## Libraries\n"), None);
        assert_eq!(
            problem(
                "# Research\n\n**Existing code**: the bucket of attempt 01 (src/auth.rs:40) - **reshape**.\n\n## Libraries\n"
            ),
            None
        );
        assert_eq!(problem("# Research\n\n__Existing code:__ `src/a.rs` does it; **reuses**.\n"), None);
        assert_eq!(problem("# Research\n\nWhat the approach rests on.\n\n### existing code:\n- FACT: x\n"), None);
        assert_eq!(
            problem("# Research\n\n## Libraries\n\n## Existing code\n\n- x\n"),
            Some((3, "the research opens with `Libraries`, not **Existing code**".into()))
        );
        assert_eq!(
            problem("# Research\n\nNotes.\n"),
            Some((1, "the research has no **Existing code** section".into()))
        );
        assert_eq!(
            problem("# Research\n\n## Existing code\n\n## Libraries\n\n- x\n"),
            Some((3, "the **Existing code** section is empty".into()))
        );
    }
}
