use super::SpecView;
use crate::docs::spec::state::{Part, State, Step, Topic};
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/nothing-to-change",
    view: SpecView,
    severity: Error,
    summary: "an auditor that replied `nothing to change` opened no review",
    why: "fondue `spec` v9, audit: \"An auditor replies `nothing to change` when it committed nothing and has \
nothing to list in a request: no equivalent mutant, no commit breach. It then opens no review; whatever it \
appended to `audit/findings.md` is judged in `audit-fixes`. Otherwise it opens a review.\" The reply is \
recorded in `stats.md` (a row whose State is `audit:tests:Draft` or `audit:conventions:Draft` and whose \
Result is `nothing to change`), so that row beside a `review/audit-tests/` or `review/audit-conventions/` \
folder contradicts itself: either the topic was reviewed and the reply was `request opened`, or nothing was \
opened. `stats.md` spans attempts, so only the rows of the live attempt count: those from its \
`pre-plan:Draft` row on.",
    bad: "fondue/specs/retry-queue/stats.md",
    good: "fondue/specs/retry-queue/stats.md",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.specs.iter().filter(|s| !s.deleted) {
        // The live attempt's rows: from its one `pre-plan:Draft` turn on.
        let first_draft = State::PrePlan(Step::Draft).to_string();
        let live = spec.stats.iter().rposition(|r| r.state.trim_matches('`') == first_draft).unwrap_or(0);
        for part in [Part::Tests, Part::Conventions] {
            let topic = Topic::Audit(part);
            if spec.review(topic).is_empty() {
                continue;
            }
            let state = State::Audit(part, Step::Draft).to_string();
            let rows = spec.stats[live..]
                .iter()
                .filter(|r| r.state.trim_matches('`') == state && r.result.contains("nothing to change"));
            for row in rows {
                let dir = topic.dir();
                sink.emit(
                    &spec.path("stats.md"),
                    Span::line(row.line),
                    format!("nothing-to-change:{dir}"),
                    format!("`{state}` replied `nothing to change`, but `review/{dir}/` is open"),
                )
                .help(
                    "an auditor that committed nothing and has nothing to list replies `nothing to change` and opens \
                     no review; one that opens a review replies `request opened`: fix the row or remove the review \
                     folder",
                );
            }
        }
    }
}
