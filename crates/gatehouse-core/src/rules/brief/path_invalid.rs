use super::BriefView;
use crate::docs::pathref::SpanKind;
use crate::model::{Severity, Sink};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/path-invalid",
    default_severity: Severity::Error,
    summary: "body paths are repository-relative: no `..`, no absolute paths",
    why: "ADR-099 checks that body paths exist \"in the named repo\". A path that starts at `/` or `~`, \
or climbs out with `..`, names no place in any repository; gatehouse never resolves such a path \
against a disk, it reports it. Name the path from the repository root (`owner/repo:path` for \
another repo).",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/path-invalid/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../../../fixtures/rules/brief/path-invalid/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &BriefView, sink: &mut Sink) {
    for path in &view.paths {
        let SpanKind::Unsafe { reason } = path.kind else { continue };
        let brief = &view.briefs[path.brief];
        sink.emit(brief.path, path.span, format!("path:{}", path.text), format!("`{}` {reason}", path.text))
            .help("write the path relative to the repository root; for a host path, leave it out of backticks");
    }
}
