use super::BriefView;
use crate::model::{PathLookup, Sink};

declare_rule! {
    id: "brief/path-unverifiable",
    view: BriefView,
    severity: Notice,
    summary: "a body path's repository cannot be read here, so its existence is unchecked",
    why: "ADR-099's path check needs the named repository at the named commit. When gatehouse cannot \
read it (locally, a repo with no `--repo-root owner/name=DIR`; a revision that is not available) it \
says so instead of guessing: the path is neither passed nor failed.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for path in view.paths.iter().filter(|p| p.flag.is_none() && p.unverifiable()) {
        let brief = &view.briefs[path.brief];
        let Some(target) = path.path() else { continue };
        let unread: Vec<&str> =
            path.lookups.iter().filter(|(_, l)| *l == PathLookup::Unknown).map(|(r, _)| r.as_str()).collect();
        let at = target.rev.as_ref().map(|r| format!(" at `{r}`")).unwrap_or_default();
        sink.emit(
            brief.path,
            path.span,
            format!("path:{}", path.text),
            format!("cannot check `{}`: {}{at} cannot be read here", target.path, unread.join(", ")),
        )
        .help(format!(
            "locally, pass `--repo-root {}=DIR` with a checkout of it",
            unread.first().copied().unwrap_or("owner/name")
        ));
    }
}
