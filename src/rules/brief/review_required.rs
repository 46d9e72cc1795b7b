use super::BriefView;
use crate::config::Threshold;
use crate::docs::brief::Brief;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/review-required",
    default_severity: Severity::Notice,
    summary: "the review threshold: over 100 LOC or more than one repo needs brief-PR review",
    why: "ADR-099's pilot scope: \"any brief over 100 LOC estimate or touching more than one repo MUST \
go through brief-PR review\" (2-of-3 of Marcus, Priya, Lin plus Dana's advisory pass); smaller briefs \
are \"operator's call\". This notice says which side of the line a brief falls on and why; the \
`gatehouse/review` gate enforces it. The cut is configurable as `briefs.review_threshold` \
(`lines`, `repos`).",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../fixtures/rules/brief/review-required/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../fixtures/rules/brief/review-required/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
}

/// Why a brief needs review under the threshold; empty when it is exempt.
/// `None` when the fields the threshold reads are not well-formed.
pub fn reasons(brief: &Brief, t: Threshold) -> Option<Vec<String>> {
    let lines = brief.lines_estimate()?;
    brief.field("repos_touched")?.as_seq()?;
    let repos = brief.repos().len() as u64;
    let mut reasons = Vec::new();
    if lines > t.lines as i64 {
        reasons.push(format!("lines_estimate {lines} > {}", t.lines));
    }
    if repos > t.repos {
        reasons.push(format!("{repos} repos touched > {}", t.repos));
    }
    Some(reasons)
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Some(reasons) = reasons(brief, view.threshold) else { continue };
        if reasons.is_empty() {
            continue;
        }
        let line = brief.field_line("lines_estimate");
        sink.emit(brief.path, Span::line(line), "review", format!("brief-PR review required: {}", reasons.join(" and ")))
            .help("ADR-099: 2 of the 3 core personas must approve and the advisory reviewer must review before an agent acts on this brief");
    }
}
