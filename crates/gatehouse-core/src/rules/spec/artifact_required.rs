use super::{Spec, SpecView};
use crate::docs::spec::review::Kind;
use crate::docs::spec::state::{Part, State, Step, Topic, parse_nn};
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/artifact-required",
    view: SpecView,
    severity: Error,
    summary: "the files the state needs exist (brief, drafts, plan, phase files, the review round)",
    why: "fondue `spec` v9, Turns: each state is one role's turn on named files. `pre-plan:Review` reviews \
\"the draft the newest file names\"; plan writes `plan/plan.md`, `plan/research.md` and \"`plan/phase-NN.md` \
for every phase\" (v9 has no light mode, so research is always written); `implementation:NN:Draft` \
implements `phase-NN.md` (\"`NN` is always two digits, from `01`\", and the last phase is \"the highest `NN` \
in `plan/`\", so phase files are numbered 01, 02, … without gaps); `landed.md` is appended \"when the implementation of an attempt starts\"; a \
`audit-fixes` runs \"with the findings file in place of a phase file\"; a \
`<x>:Review` turn reviews the newest request or answer of `review/<topic>/`, and a `<x>:Answer` turn \
answers its newest review. A state without the files its turn works on cannot be taken. The Architecture \
Reviewer's first pre-plan turn \"runs in this order, and the order is the rule\": it writes \"the research \
results and their own intended approach … into `02-reviewer-research.md`\", and \"only then\" opens the \
draft and writes the review, so a `review/pre-plan/01-review.md` without that file skipped the step.",
    bad: "fondue/specs/retry-queue/current-state.txt",
    good: "fondue/specs/retry-queue/current-state.txt",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        reviewer_research(spec, sink);
        phase_files(spec, sink);
        let Some(state) = spec.state() else { continue };
        for (anchor, what) in needs(spec, state) {
            sink.emit(&spec.path("current-state.txt"), Span::line(1), anchor, format!("`{state}` needs {what}"))
                .help("add what the state's turn works on, or set the state the folder is really in");
        }
    }
}

/// `plan/phase-NN.md` are numbered from `01` without gaps.
fn phase_files(spec: &Spec, sink: &mut Sink) {
    let mut expected = 1;
    let mut named: Vec<(Option<u8>, &str)> = spec
        .head
        .keys()
        .filter_map(|rel| Some((rel.strip_prefix("plan/phase-")?.strip_suffix(".md")?, *rel)))
        .filter(|(nn, _)| !nn.contains('/'))
        .map(|(nn, rel)| (parse_nn(nn), rel))
        .collect();
    named.sort_unstable();
    for (nn, rel) in named {
        let message = match nn {
            None => format!("`{rel}` is not named `plan/phase-NN.md` (`NN` two digits, from `01`)"),
            Some(n) if n != expected => {
                format!("`{rel}` should be `plan/phase-{expected:02}.md`: phases are numbered 01, 02, … without gaps")
            }
            Some(n) => {
                expected = n + 1;
                continue;
            }
        };
        if let Some(n) = nn {
            expected = n + 1;
        }
        sink.emit(&spec.path(rel), Span::line(1), format!("phase:{rel}"), message)
            .help("number the phase files 01, 02, …: the last phase is the highest NN in plan/");
    }
}

/// The first pre-plan review needs the reviewer's own research beside it.
fn reviewer_research(spec: &Spec, sink: &mut Sink) {
    const RESEARCH: &str = "pre-plan/02-reviewer-research.md";
    let first = spec.review(Topic::PrePlan).iter().find(|e| e.numbered == Some((1, Kind::Review)));
    if let Some(review) = first.filter(|_| !spec.has(RESEARCH)) {
        sink.emit(
            &spec.path(review.rel),
            Span::line(1),
            RESEARCH,
            format!("the first pre-plan review is written, but `{RESEARCH}` does not exist"),
        )
        .help("the Architecture Reviewer writes its research and intended approach into `pre-plan/02-reviewer-research.md` before it opens the draft");
    }
}

/// The missing files `state` needs: (anchor, description).
fn needs(spec: &Spec, state: State) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut file = |rel: &str| {
        if !spec.has(rel) {
            out.push((rel.to_string(), format!("`{rel}`")));
        }
    };
    if matches!(state, State::Done | State::Abandoned) {
        return out;
    }
    file("roster.md");
    if state == State::Brief {
        return out;
    }
    file("pre-plan/00-brief.md");
    let planned = !matches!(state, State::PrePlan(_) | State::Plan(Step::Draft));
    if planned {
        file("plan/plan.md");
        file("plan/research.md");
    }
    if let State::Implementation(nn, _) = state {
        file(&format!("plan/phase-{nn:02}.md"));
    }
    if matches!(state, State::Implementation(..) | State::Audit(..) | State::HandoverUpdate(_) | State::Handover) {
        file("landed.md");
    }
    if let State::Audit(Part::Fixes, _) = state {
        file("audit/findings.md");
    }
    if planned && spec.last_phase.is_none() {
        out.push(("plan/phase-NN.md".into(), "at least one `plan/phase-NN.md`".into()));
    }
    if matches!(state, State::PrePlan(Step::Review | Step::Answer)) && !spec.head.keys().any(|r| is_draft(r)) {
        out.push(("pre-plan/NN-draft.md".into(), "a draft `pre-plan/NN-draft.md` (from `03`)".into()));
    }
    if let Some((topic, step @ (Step::Review | Step::Answer))) = state.topic() {
        let dir = topic.dir();
        let newest = spec.review(topic).iter().filter_map(|e| e.numbered).max_by_key(|n| n.0).map(|n| n.1);
        let (ok, want) = match step {
            Step::Review => (matches!(newest, Some(Kind::Request | Kind::Answer)), "a request or an answer"),
            _ => (newest == Some(Kind::Review), "a review"),
        };
        if !ok {
            out.push((format!("review/{dir}"), format!("`review/{dir}/` whose newest file is {want}")));
        }
    }
    out
}

/// `pre-plan/NN-draft.md` with `NN` from `03`.
pub(super) fn is_draft(rel: &str) -> bool {
    draft_number(rel).is_some_and(|n| n >= 3)
}

pub(super) fn draft_number(rel: &str) -> Option<u32> {
    let num = rel.strip_prefix("pre-plan/")?.strip_suffix("-draft.md")?;
    (num.len() >= 2 && num.bytes().all(|b| b.is_ascii_digit())).then(|| num.parse().ok())?
}
