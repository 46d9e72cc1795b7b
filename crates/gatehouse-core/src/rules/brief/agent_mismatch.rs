use super::BriefView;
use crate::docs::brief::is_agent_id;
use crate::model::{Fix, Sink, Span};
use crate::rules::fixes::scalar_range;

declare_rule! {
    id: "brief/agent-mismatch",
    view: BriefView,
    severity: Error,
    summary: "`agent` equals the agent id in the file name",
    why: "ADR-099 names a brief `SWARM-XX-<slug>.md` with `agent: SWARM-XX` in its frontmatter; the agent \
is fired with \"implement dark-factory/briefs/SWARM-AR-pg-backup.md as written\". A file named for one \
agent that briefs another sends the work to the wrong place.",
    fix: "sets `agent` to the id the file name gives",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let (Ok(name), Some(agent), Some(node)) = (brief.file_name(), brief.agent(), brief.field("agent")) else {
            continue;
        };
        if is_agent_id(agent) && agent != name.agent {
            sink.emit(
                brief.path,
                Span::at(node.line(), node.col(), agent.chars().count() as u32),
                "agent",
                format!("`agent` is `{agent}` but the file name says `{}`", name.agent),
            )
            .help(format!("set `agent: {}`, or rename the file to `{agent}-{}.md`", name.agent, name.slug))
            .fix(
                scalar_range(brief.text, node.line(), node.col(), false)
                    .map(|range| Fix::replace(format!("set `agent: {}`", name.agent), brief.path, range, name.agent)),
            );
        }
    }
}
