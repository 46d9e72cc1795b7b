use super::BriefView;
use crate::model::Sink;
use crate::rules::spans::node_span;

declare_rule! {
    id: "brief/out-of-scope-empty",
    view: BriefView,
    severity: Warning,
    summary: "`out_of_scope` declares at least one thing the agent must not do",
    why: "ADR-099's `out_of_scope` lists \"things the agent must not do\"; it is where Priya (security / \
YAGNI) looks for scope creep. SWARM-AR's failed brief asked for a UI button and on-host storage that \
the ADR ruled out. An empty list is legal but usually means nobody thought about the edges.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Some(node) = brief.field("out_of_scope") else { continue };
        if node.as_seq().is_some_and(|items| items.is_empty()) {
            sink.emit(
                brief.path,
                node_span(brief.text, node),
                "out_of_scope",
                "`out_of_scope` is empty: the brief declares nothing the agent must not do",
            )
            .help("list what the agent must leave alone (neighbouring systems, shapes the ADR ruled out)");
        }
    }
}
