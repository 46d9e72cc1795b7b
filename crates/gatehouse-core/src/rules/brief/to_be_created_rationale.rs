use super::BriefView;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::line_range;

/// The shortest rationale that says something.
const MIN_RATIONALE: usize = 10;

declare_rule! {
    id: "brief/to-be-created-rationale",
    view: BriefView,
    severity: Error,
    summary: "a `to-be-created` flag carries a rationale of at least 10 characters",
    why: "ADR-099 allows a path that does not exist yet only when it \"is explicitly flagged as \
'to-be-created' with the rationale\". The rationale is what lets a reviewer tell a planned file \
from an invented one, so `to-be-created` must be followed on the same line by `:`, `—`, `–` or `-` \
and at least 10 characters of why: `to-be-created: the drill runbook this brief asks for`, \
`(to-be-created — the drill runbook this brief asks for)`, `**to-be-created** - the restore \
script's first version`.",
    fix: "adds the missing `:` when a rationale of 10 characters or more already follows the flag \
(`to-be-created the drill runbook` becomes `to-be-created: the drill runbook`); a missing or short \
rationale needs the author's words",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    let mut reported: Vec<(usize, u32, u32)> = Vec::new();
    for path in &view.paths {
        let Some(flag) = &path.flag else { continue };
        let rationale = flag.rationale.as_str();
        if rationale.chars().count() >= MIN_RATIONALE || reported.contains(&(path.brief, flag.line, flag.col)) {
            continue;
        }
        reported.push((path.brief, flag.line, flag.col));
        let brief = &view.briefs[path.brief];
        let col = flag.col;
        let message = if rationale.is_empty() {
            "`to-be-created` is not followed by `: <rationale>` (or `— <rationale>`)".to_string()
        } else {
            format!("the rationale `{rationale}` is under {MIN_RATIONALE} characters")
        };
        sink.emit(
            brief.path,
            Span::at(flag.line, col, "to-be-created".len() as u32),
            format!("flag:{}", path.text),
            message,
        )
        .help("say why the path will exist, e.g. `to-be-created: the restore runbook this brief asks for`")
        .fix(if rationale.is_empty() { colon(brief.text, brief.path, flag.line) } else { None });
    }
}

/// The rationale in what follows a `to-be-created` flag in its paragraph:
/// after a `:`, `—`, `–` or `-` (the flag may be emphasised or quoted), to
/// the end of its sentence or of the parenthesis the flag is in; empty when
/// no separator follows.
pub(super) fn rationale(after_flag: &str) -> &str {
    let rest = after_flag.trim_start_matches(['*', '_', '`', '"', '\'', '\u{201d}', '\u{2019}']).trim_start();
    let Some(rest) = rest.strip_prefix([':', '\u{2014}', '\u{2013}', '-']) else { return "" };
    let rest = rest.trim_start_matches(['-', '*', '_']);
    // It ends with its sentence, or with the parenthesis the flag is in.
    let mut depth = 0usize;
    let end = rest
        .char_indices()
        .find(|&(i, c)| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' if depth == 0 => true,
            ')' => {
                depth -= 1;
                false
            }
            '.' | ';' | '!' | '?' => rest[i + 1..].starts_with(char::is_whitespace),
            _ => false,
        })
        .map_or(rest.len(), |(i, _)| i);
    rest[..end].trim().trim_end_matches([')', '.', ']', ';']).trim_end()
}

/// Adds the `:` a flag on `line` lacks, when what follows it on the line
/// reads as a rationale once the colon is there.
fn colon(text: &str, path: &str, line: u32) -> Option<Fix> {
    let range = line_range(text, line)?;
    let content = &text[range.clone()];
    let flag_end = content.find("to-be-created")? + "to-be-created".len();
    let after = &content[flag_end..];
    let closing = after.len() - after.trim_start_matches(['*', '_', '`', '"', '\'', '\u{201d}', '\u{2019}']).len();
    let rest = &after[closing..];
    if !rest.starts_with(' ') || rationale(&format!(":{rest}")).chars().count() < MIN_RATIONALE {
        return None;
    }
    let at = range.start + flag_end + closing;
    Some(Fix::replace("add `:` between `to-be-created` and its rationale", path, at..at, ":"))
}

#[cfg(test)]
mod tests {
    use super::rationale;

    #[test]
    fn the_rationale_follows_a_colon_or_a_dash() {
        for after in [
            ": the drill runbook).",
            " — the drill runbook",
            " \u{2013} the drill runbook;",
            " - the drill runbook",
            " -- the drill runbook",
            "**: the drill runbook",
            "` — the drill runbook",
            "\u{201d}: the drill runbook]",
        ] {
            assert_eq!(rationale(after), "the drill runbook", "{after}");
        }
        assert_eq!(rationale(")"), "");
        assert_eq!(
            rationale(": the runbook (see `a.md`) it asks for) and `b/old.md`."),
            "the runbook (see `a.md`) it asks for"
        );
        assert_eq!(rationale(": the drill runbook. Then `b/old.md`."), "the drill runbook");
        assert_eq!(rationale(" the drill runbook"), "");
    }
}
