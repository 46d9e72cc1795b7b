use super::BriefView;
use crate::docs::brief::FIELDS;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/missing-field",
    view: BriefView,
    severity: Error,
    summary: "the six ADR-099 fields are all present",
    why: "ADR-099 fixes the brief schema: agent, repos_touched, adrs_referenced, success_criteria, \
out_of_scope, lines_estimate. \"Marcus knows where to look for the ADR list, Priya knows where to look \
for scope, Lin knows where to look for the test plan\" only if every field is there; an empty list is \
written `[]`, not left out.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Ok(frontmatter) = &brief.frontmatter else { continue };
        for field in FIELDS {
            if frontmatter.root().get(field).is_none() {
                sink.emit(brief.path, Span::line(1), field, format!("the frontmatter has no `{field}` field"))
                    .help(format!("add `{field}:`; ADR-099 requires all six: {}", FIELDS.join(", ")));
            }
        }
    }
}
