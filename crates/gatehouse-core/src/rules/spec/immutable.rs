use super::{Spec, SpecView, first_difference};
use crate::docs::spec::files::parse_brief;
use crate::docs::spec::state::{State, parse_nn};
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/immutable",
    view: SpecView,
    severity: Error,
    summary: "drafts, review files, plan.md and approved phase files are never edited; a new draft takes the next free number; the brief changes by amendment",
    why: "fondue `spec` v9, pre-plan: \"Every accepted fix goes into a new draft file with the next free \
number. Draft files are never edited.\" Drafts are numbered from `03` up, so a new draft is one more than \
the highest number in `pre-plan/`: `05-draft.md` after `03-draft.md` skips `04`. Review folders hold files \
that are never edited and numbers never reused (the fondue engine's review format, docs/seed-coverage.md). \
`plan/plan.md` \"is never rewritten or summarised, because it carries that draft's approval\", and the \
Glossary's approved artifacts are \"the signed brief, `plan/plan.md`, and each `plan/phase-NN.md` once plan \
has closed\": a phase file is edited in place by plan's answer turns, and never after (\"the approved file \
stays as it is\"; a change that keeps the approach is an amendment the User rules on). The signed brief \
changes only by an amendment: \"a line under the title says `Amended <date>: <what changed>; ruling in \
99-user.md`\". Files leave the live attempt only by the reopen's move into `attempts/NN/`.",
    bad: "fondue/specs/retry-queue/pre-plan/03-draft.md",
    good: "fondue/specs/retry-queue/pre-plan/00-brief.md",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.specs.iter().filter(|s| !s.deleted) {
        for (&rel, base) in &spec.base {
            let brief = rel == "pre-plan/00-brief.md";
            if !(frozen(spec, rel) || brief) || spec.head.get(rel) == Some(base) || moved_to_attempt(spec, rel) {
                continue;
            }
            let path = spec.path(rel);
            let Some(head) = spec.text(rel) else {
                if !spec.has(rel) {
                    sink.emit(&path, Span::line(1), format!("deleted:{rel}"), format!("`{rel}` is deleted")).help(
                        "files of a spec are history: keep them; a reopen moves them into `attempts/NN/` unchanged",
                    );
                }
                continue;
            };
            let base = base.text().unwrap_or("");
            if brief {
                // Before sign-off the User is still writing the brief.
                if spec.base_state == Some(State::Brief) || amended(base, head) {
                    continue;
                }
                sink.emit(&path, Span::line(first_difference(base, head)), rel, "the signed brief is edited without an amendment line")
                    .help("add `Amended <date>: <what changed>; ruling in 99-user.md` under the title, with the ruling in `99-user.md`");
                continue;
            }
            sink.emit(
                &path,
                Span::line(first_difference(base, head)),
                rel,
                format!("`{rel}` is edited, and it never is"),
            )
            .help(help(rel));
        }
        draft_numbers(spec, sink);
    }
}

/// Each draft the change adds takes the next free number: one more than
/// the draft before it, from `03`.
fn draft_numbers(spec: &Spec, sink: &mut Sink) {
    let mut drafts: Vec<(u32, &str)> =
        spec.head.keys().filter_map(|rel| Some((super::artifact_required::draft_number(rel)?, *rel))).collect();
    drafts.sort_unstable();
    let mut next = 3;
    for (n, rel) in drafts.into_iter().filter(|(n, _)| *n >= 3) {
        if n > next && !spec.base.contains_key(rel) {
            sink.emit(
                &spec.path(rel),
                Span::line(1),
                format!("number:{rel}"),
                format!("`{rel}` skips `pre-plan/{next:02}-draft.md`: a new draft takes the next free number"),
            )
            .help(format!("name the draft `pre-plan/{next:02}-draft.md` (and the subject that names it)"));
        }
        next = n + 1;
    }
}

/// Drafts, review files, plan.md and, once plan has closed, the phase files.
fn frozen(spec: &Spec, rel: &str) -> bool {
    super::artifact_required::is_draft(rel)
        || rel.starts_with("review/")
        || rel == "plan/plan.md"
        || (is_phase_file(rel) && spec.base_state.is_some_and(plan_closed))
}

fn is_phase_file(rel: &str) -> bool {
    rel.strip_prefix("plan/phase-").and_then(|r| r.strip_suffix(".md")).and_then(parse_nn).is_some()
}

/// States after plan has closed (its approved phase files are fixed).
fn plan_closed(state: State) -> bool {
    matches!(
        state,
        State::Implementation(..) | State::Audit(..) | State::HandoverUpdate(_) | State::Handover | State::Done
    )
}

fn help(rel: &str) -> &'static str {
    if rel.starts_with("review/") {
        "leave review files as written: a new round is a new file with the next number"
    } else if rel == "plan/plan.md" {
        "restore plan.md: it is the approved draft; a change that keeps the approach is an amendment the User rules on"
    } else if is_phase_file(rel) {
        "restore the phase file: it was approved when plan closed; a change that keeps the approach is an amendment the User rules on (engine: User questions)"
    } else {
        "restore the draft and put the fix into a new draft with the next free number"
    }
}

/// The head adds a new amendment line to the brief.
fn amended(base: &str, head: &str) -> bool {
    let before = parse_brief(base).amendments.len();
    parse_brief(head).amendments.iter().filter(|a| a.date.is_some()).count() > before
}

/// A reopen moved the file, unchanged, into a new `attempts/NN/`.
fn moved_to_attempt(spec: &Spec, rel: &str) -> bool {
    let base = spec.base.get(rel);
    spec.head.iter().any(|(r, c)| {
        r.strip_prefix("attempts/").and_then(|t| t.split_once('/')).is_some_and(|(_, inner)| inner == rel)
            && Some(c) == base
            && !spec.base.contains_key(r)
    })
}
