use super::BriefView;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/filename",
    default_severity: Severity::Error,
    summary: "the file name is `SWARM-<ID>-<slug>.md`",
    why: "ADR-099 lands every brief as `dark-factory/briefs/SWARM-XX-<slug>.md`: once merged, \"the brief \
slug is the prompt the sub-agent receives\". The agent id (1-6 of A-Z, 0-9) and a kebab-case slug in \
the name are how operators and agents find a brief by name.",
    bad: Example {
        path: "dark-factory/briefs/swarm-ar-PG_backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/filename/fail/head/dark-factory/briefs/swarm-ar-PG_backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/filename/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        if let Err(why) = brief.file_name() {
            sink.emit(brief.path, Span::line(1), "filename", format!("brief file name is wrong: {why}"))
                .help("rename the file to `SWARM-<ID>-<slug>.md`, e.g. `SWARM-AR-pg-backup.md`");
        }
    }
}
