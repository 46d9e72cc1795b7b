use super::BriefView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/filename",
    view: BriefView,
    severity: Error,
    summary: "the file name is `SWARM-<ID>-<slug>.md`",
    why: "ADR-099 lands every brief as `dark-factory/briefs/SWARM-XX-<slug>.md`: once merged, \"the brief \
slug is the prompt the sub-agent receives\". The agent id (1-6 of A-Z, 0-9) and a kebab-case slug in \
the name are how operators and agents find a brief by name.",
    bad: "dark-factory/briefs/swarm-ar-PG_backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        if let Err(why) = brief.file_name() {
            sink.emit(brief.path, Span::line(1), "filename", format!("brief file name is wrong: {why}"))
                .help("rename the file to `SWARM-<ID>-<slug>.md`, e.g. `SWARM-AR-pg-backup.md`");
        }
    }
}
