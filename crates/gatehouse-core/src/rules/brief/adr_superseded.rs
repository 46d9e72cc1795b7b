use super::BriefView;
use crate::docs::adr::{parse_id, spelled_like};
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-superseded",
    view: BriefView,
    severity: Warning,
    summary: "a cited ADR is not superseded, rejected or deprecated (the successor is named)",
    why: "ADR-099 grounds briefs in \"the merged ADR + the first PR that landed under it\". A brief \
built on a retired ADR prescribes a decision the team has since reversed. An ADR is retired when its status \
is superseded, rejected or deprecated, or it names a successor; proposed, accepted and on hold leave it in \
force, and so does being amended (`Amends`/`Amended by`). A status word gatehouse does not read as either \
(`Status: Superseeded`, `Status: WIP`) is a warning that says so, rather than a guess that the ADR is in force. The status is read from MADR front matter \
(`status: \"superseded by ADR-0123\"`), a `Status:` line (`Status: Accepted`, `* Status: rejected`, \
`- Status: deprecated`, `**Status:** Superseded`), or the first line of a `## Status` section (adr-tools: \
`Superseded by [6. Use Postgres](0006-use-postgres.md)`). The successor comes from `Superseded by: ADR-NNN`, \
`superseded by ADR-0123`, or a link whose text is numbered or whose target is a numbered file. An accepted ADR \
that says `Supersedes [5. …](0005-….md)` (or `Supersedes: ADR-005`) retires the one it names.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

/// The status words the ADR tools write that gatehouse reads: those that
/// leave an ADR in force, and those that retire it.
const READ: [&str; 13] = [
    "proposed",
    "accepted",
    "approved",
    "active",
    "decided",
    "implemented",
    "draft",
    "on hold",
    "amended",
    "superseded",
    "rejected",
    "deprecated",
    "final",
];

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (id, node) in brief.strings("adrs_referenced") {
            let Some(adr) = parse_id(id).and_then(|n| view.adrs.get(&n)) else { continue };
            if !adr.is_retired() {
                // A status gatehouse cannot read as in force or retired is
                // said, not guessed: the brief may build on a retired ADR.
                if let Some(status) = adr.status.as_deref().filter(|s| !READ.contains(s)) {
                    sink.emit(
                        brief.path,
                        Span::at(node.line(), node.col(), id.chars().count() as u32),
                        format!("{id}/status"),
                        format!("{id} has status `{status}`, which gatehouse reads as neither in force nor retired ({}:{})", adr.path, adr.status_line),
                    )
                    .help(format!("check {id} is in force; its status reads best as accepted, proposed, superseded (by …), rejected or deprecated"));
                }
                continue;
            }
            let (message, help) = match adr.superseded_by {
                Some(next) => {
                    let next = spelled_like(id, next);
                    (
                        format!("{id} is superseded by {next}"),
                        format!("build on {next} instead, or say in the body why {id} still applies"),
                    )
                }
                None => (
                    format!("{id} has status `{}` ({})", adr.status.as_deref().unwrap_or("retired"), adr.path),
                    format!("find the decision that replaced {id} and cite that one"),
                ),
            };
            sink.emit(brief.path, Span::at(node.line(), node.col(), id.chars().count() as u32), id, message).help(help);
        }
    }
}
