use super::BriefView;
use crate::model::{Sink, Span};

/// The shortest rationale that says something.
const MIN_RATIONALE: usize = 10;

declare_rule! {
    id: "brief/to-be-created-rationale",
    view: BriefView,
    severity: Error,
    summary: "a `to-be-created:` flag carries a rationale of at least 10 characters",
    why: "ADR-099 allows a path that does not exist yet only when it \"is explicitly flagged as \
'to-be-created' with the rationale\". The rationale is what lets a reviewer tell a planned file \
from an invented one, so `to-be-created:` must be followed on the same line by at least 10 \
characters of why.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    let mut reported: Vec<(usize, u32)> = Vec::new();
    for path in &view.paths {
        let Some(rationale) = path.flag else { continue };
        if rationale.chars().count() >= MIN_RATIONALE || reported.contains(&(path.brief, path.span.line)) {
            continue;
        }
        reported.push((path.brief, path.span.line));
        let brief = &view.briefs[path.brief];
        let line = brief.line_text(path.span.line);
        let col = line[..line.find("to-be-created").unwrap_or(0)].chars().count() as u32 + 1;
        let message = if rationale.is_empty() {
            "`to-be-created` is not followed by `: <rationale>`".to_string()
        } else {
            format!("the rationale `{rationale}` is under {MIN_RATIONALE} characters")
        };
        sink.emit(
            brief.path,
            Span::at(path.span.line, col, "to-be-created".len() as u32),
            format!("flag:{}", path.text),
            message,
        )
        .help("say why the path will exist, e.g. `to-be-created: the restore runbook this brief asks for`");
    }
}
