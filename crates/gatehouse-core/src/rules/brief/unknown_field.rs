use super::BriefView;
use crate::docs::brief::FIELDS;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::offset;

declare_rule! {
    id: "brief/unknown-field",
    view: BriefView,
    severity: Warning,
    summary: "no frontmatter keys outside the ADR-099 schema",
    why: "ADR-099's schema has six fields. A key outside it is usually a typo of one of them \
(`succes_criteria`) or a shape reviewers will not look for; either way the sub-agent may read \
something no reviewer checked.",
    fix: "renames a key within two edits of exactly one brief field the frontmatter lacks \
(`succes_criteria` becomes `success_criteria`); any other key needs the author's call",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Some(entries) = brief.frontmatter.as_ref().ok().and_then(|f| f.root().as_map()) else { continue };
        for (key, _) in entries.iter().filter(|(k, _)| !FIELDS.contains(&k.name)) {
            let close = FIELDS.iter().find(|f| near(f, key.name));
            let only_one = FIELDS.iter().filter(|f| near(f, key.name)).count() == 1;
            let help = match close {
                Some(f) => format!("did you mean `{f}`?"),
                None => format!("remove it; the brief fields are {}", FIELDS.join(", ")),
            };
            sink.emit(
                brief.path,
                Span::at(key.line, key.col, key.name.chars().count() as u32),
                key.name,
                format!("`{}` is not a brief field", key.name),
            )
            .help(help)
            .fix(close.filter(|f| only_one && brief.field(f).is_none()).and_then(|f| {
                let start = offset(brief.text, key.line, key.col)?;
                let end = start + key.name.len();
                (brief.text.get(start..end) == Some(key.name))
                    .then(|| Fix::replace(format!("rename `{}` to `{f}`", key.name), brief.path, start..end, *f))
            }));
        }
    }
}

/// Within two edits: catches the usual typos.
fn near(a: &str, b: &str) -> bool {
    crate::suggest::distance(a, b) <= 2
}
