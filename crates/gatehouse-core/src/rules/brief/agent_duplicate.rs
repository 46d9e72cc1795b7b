use super::BriefView;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/agent-duplicate",
    view: BriefView,
    severity: Error,
    summary: "no other brief, merged or in this change, uses the same agent id",
    why: "Under ADR-099 a brief is \"the canonical record of what each sub-agent was asked to do, indexed \
by slug\", and the agent id names the sub-agent. Two briefs for one agent id make it ambiguous which \
contract the agent runs from.",
    bad: "dark-factory/briefs/SWARM-AR-restore-drill.md",
    good: "dark-factory/briefs/SWARM-AS-restore-drill.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let (Some(agent), Some(node)) = (brief.agent(), brief.field("agent")) else { continue };
        let others: Vec<&str> = view.briefs_of(agent).filter(|p| *p != brief.path).collect();
        if let Some(first) = others.first() {
            let more = if others.len() > 1 { format!(" (and {} more)", others.len() - 1) } else { String::new() };
            sink.emit(
                brief.path,
                Span::at(node.line(), node.col(), agent.chars().count() as u32),
                "agent",
                format!("agent id `{agent}` is already used by `{first}`{more}"),
            )
            .help("give this brief a fresh agent id; each agent id names one brief");
        }
    }
}
