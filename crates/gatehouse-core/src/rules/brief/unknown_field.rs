use super::BriefView;
use crate::docs::brief::FIELDS;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/unknown-field",
    view: BriefView,
    severity: Warning,
    summary: "no frontmatter keys outside the ADR-099 schema",
    why: "ADR-099's schema has six fields. A key outside it is usually a typo of one of them \
(`succes_criteria`) or a shape reviewers will not look for; either way the sub-agent may read \
something no reviewer checked.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Some(entries) = brief.frontmatter.as_ref().ok().and_then(|f| f.root().as_map()) else { continue };
        for (key, _) in entries.iter().filter(|(k, _)| !FIELDS.contains(&k.name)) {
            let close = FIELDS.iter().find(|f| near(f, key.name));
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
            .help(help);
        }
    }
}

/// Within two edits: catches the usual typos.
fn near(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 2 {
        return false;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            row.push((prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(row[j] + 1));
        }
        prev = row;
    }
    prev[b.len()] <= 2
}
