use super::BriefView;
use crate::docs::pathref::SpanKind;
use crate::model::Sink;

declare_rule! {
    id: "brief/path-invalid",
    view: BriefView,
    severity: Error,
    summary: "body paths are repository-relative: no `..`, no absolute paths",
    why: "ADR-099 checks that body paths exist \"in the named repo\". A path that starts at `/` or `~`, \
or climbs out with `..`, names no place in any repository; gatehouse never resolves such a path \
against a disk, it reports it. Name the path from the repository root (`owner/repo:path` for \
another repo).",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for path in &view.paths {
        let SpanKind::Unsafe { reason } = path.kind else { continue };
        let brief = &view.briefs[path.brief];
        sink.emit(brief.path, path.span, format!("path:{}", path.text), format!("`{}` {reason}", path.text))
            .help("write the path relative to the repository root; for a host path, leave it out of backticks");
    }
}
