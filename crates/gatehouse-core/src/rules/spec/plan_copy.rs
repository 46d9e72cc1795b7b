use super::{Spec, SpecView, first_difference};
use crate::docs::spec::state::Topic;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/plan-copy",
    view: SpecView,
    severity: Error,
    summary: "plan/plan.md is byte-identical to the final approved draft",
    why: "fondue `spec` v9, plan: \"Architect copies the final draft to `plan/plan.md` with `cp` - never by \
re-typing it\", and the Architecture Reviewer \"checks with `diff` that `plan.md` is identical to the final \
draft\". `plan/plan.md` is \"a verbatim copy of the final draft. It is never rewritten or summarised, \
because it carries that draft's approval.\" The final draft is the subject the closing verdict of \
`review/pre-plan/` names. The two are compared as written, byte for byte, as `diff` compares them: another \
spelling of the same Markdown is a re-typed copy.",
    bad: "fondue/specs/retry-queue/plan/plan.md",
    good: "fondue/specs/retry-queue/plan/plan.md",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let Some(plan) = spec.text("plan/plan.md") else { continue };
        let path = spec.path("plan/plan.md");
        let Some(draft) = final_draft(spec) else {
            sink.emit(
                &path,
                Span::line(1),
                "no-draft",
                "`plan/plan.md` exists, but `pre-plan/` has no draft it could be a copy of",
            )
            .help("plan.md is `cp pre-plan/<final>-draft.md plan/plan.md` of the approved draft");
            continue;
        };
        // As written: the spec's files are read resolved (escapes written
        // out), and the founding text's `diff` compares bytes.
        let written = |rel: &str| view.written.head.get(&spec.path(rel)).and_then(|c| c.text());
        let plan = written("plan/plan.md").unwrap_or(plan);
        match spec.text(&draft).map(|text| written(&draft).unwrap_or(text)) {
            Some(text) if text == plan => {}
            Some(text) => {
                sink.emit(
                    &path,
                    Span::line(first_difference(text, plan)),
                    draft.as_str(),
                    format!("`plan/plan.md` is not a byte copy of the final draft `{draft}`"),
                )
                .help(format!("run `cp {draft} plan/plan.md`; never re-type or summarise the approved draft"));
            }
            None => {
                sink.emit(
                    &path,
                    Span::line(1),
                    draft.as_str(),
                    format!("the final draft `{draft}` that plan.md copies does not exist"),
                )
                .help("name the approved draft in the closing verdict of review/pre-plan/, and copy it");
            }
        }
    }
}

/// The draft the closing verdict of `review/pre-plan/` names, else the
/// highest-numbered draft.
fn final_draft(spec: &Spec) -> Option<String> {
    let named = spec
        .review(Topic::PrePlan)
        .iter()
        .filter_map(|e| e.doc.verdict())
        .rfind(|v| v.kind.is_some_and(|k| k.closes()))
        .and_then(|v| {
            v.subject
                .split_whitespace()
                .find_map(|w| w.trim_matches('`').rsplit('/').next().filter(|n| n.ends_with("-draft.md")))
        })
        .map(|name| format!("pre-plan/{name}"));
    named.or_else(|| {
        spec.head
            .keys()
            .filter(|r| super::artifact_required::is_draft(r))
            .max_by_key(|r| super::artifact_required::draft_number(r))
            .map(|r| r.to_string())
    })
}
