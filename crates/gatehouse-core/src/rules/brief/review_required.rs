use super::BriefView;
use crate::config::{CONFIG_PATH, ReviewConfig, Threshold};
use crate::docs::brief::Brief;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/review-required",
    view: BriefView,
    severity: Notice,
    summary: "the review threshold: over 100 LOC or more than one repo needs brief-PR review",
    why: "ADR-099's pilot scope: \"any brief over 100 LOC estimate or touching more than one repo MUST \
go through brief-PR review\" (2-of-3 of Marcus, Priya, Lin plus Dana's advisory pass); smaller briefs \
are \"operator's call\". The two cuts are independent: a brief touching more than one repository \
needs review \"regardless of LOC estimate\" (ADR-099), even when `lines_estimate` is missing or invalid. \
This notice says which side of the line a brief falls on and why; the \
`gatehouse/review` gate enforces it. The cut is configurable as `briefs.review_threshold` \
(`lines`, `repos`).",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

/// Why a brief needs review under the threshold; empty when it is exempt.
/// Either side of the threshold decides alone: a brief over the repository
/// cut needs review "regardless of LOC estimate" (ADR-099), and one over the
/// line cut whatever its repositories. `None` when neither side says review
/// and one of the fields it reads is missing or malformed.
pub fn reasons(brief: &Brief, t: Threshold) -> Option<Vec<String>> {
    let lines = brief.lines_estimate().filter(|n| *n > 0);
    let repos = brief.field("repos_touched").and_then(|r| r.as_seq()).map(|_| brief.repos().len() as u64);
    let mut reasons = Vec::new();
    if let Some(lines) = lines.filter(|n| *n > t.lines as i64) {
        reasons.push(format!("lines_estimate {lines} > {}", t.lines));
    }
    if let Some(repos) = repos.filter(|n| *n > t.repos) {
        reasons.push(format!("{repos} repos touched > {}", t.repos));
    }
    if reasons.is_empty() && (lines.is_none() || repos.is_none()) {
        return None;
    }
    Some(reasons)
}

/// What the configured policy asks before an agent acts on the brief, or how
/// to configure one.
fn policy_help(policy: Option<&ReviewConfig>) -> String {
    match policy {
        Some(policy) => {
            format!("the review policy of `{CONFIG_PATH}`: {} before an agent acts on this brief", policy.describe())
        }
        None => format!(
            "`{CONFIG_PATH}` has no `review:` policy, so the `gatehouse/review` gate requires no approval; \
             name the team's reviewers to enforce ADR-099's brief-PR review: `review: {{ core: {{ reviewers: [<login>, …], required: 2 }} }}`"
        ),
    }
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let Some(reasons) = reasons(brief, view.threshold) else { continue };
        if reasons.is_empty() {
            continue;
        }
        let field = if reasons[0].starts_with("lines_estimate") { "lines_estimate" } else { "repos_touched" };
        sink.emit(
            brief.path,
            Span::line(brief.field_line(field)),
            "review",
            format!("brief-PR review required: {}", reasons.join(" and ")),
        )
        .help(policy_help(view.changes.config.review.as_ref()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_states_the_configured_policy_or_how_to_configure_one() {
        let policy =
            ReviewConfig { core_reviewers: vec!["ana".into(), "bo".into()], core_required: 1, ..Default::default() };
        assert_eq!(
            policy_help(Some(&policy)),
            "the review policy of `.github/gatehouse.yml`: 1 of ana, bo approve before an agent acts on this brief"
        );
        let unconfigured = policy_help(None);
        assert!(unconfigured.contains("has no `review:` policy") && unconfigured.contains("reviewers: [<login>"));
    }
}
