use std::collections::BTreeMap;

use super::{Spec, SpecView};
use crate::docs::spec::review::{self, AnswerKind, AnswerLine, Kind, ReviewFile};
use crate::docs::spec::state::{Part, Topic};
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/answer-coverage",
    view: SpecView,
    severity: Error,
    summary: "an answer answers every finding of the review before it exactly once (only a review's Nits declined)",
    why: "fondue `spec` v9, Turns: the author's Answer turn is \"answer every finding of the newest review\". \
With the fondue engine's answer format (docs/seed-coverage.md, Engine formats) that is one line per finding: \
`- #N accepted, fixed in …`, `- #N accepted, fixed differently in …: <why>`, `- #N challenged: …`, \
`- #N declined (Nit)` (Nits only), `- #N deadlocked: …` or `- #N question: …`; in a lens topic also \
`- #N accepted, moved to audit/findings.md#<id>`. Likewise the `audit-fixes` request \"lists every id as \
`#<id> fixed in <commit>`, `#<id> challenged: <position>` or `#<id> declined (Nit)`\" of \
`audit/findings.md`. A finding left unanswered, answered twice, or a review's Blocker declined is a finding \
the next review cannot check. An audit finding's recorded severity does not bind the Coder: \"the Code \
Reviewer judges it by them, whatever the entry records\" (Glossary, Audit finding), and \"a challenged or \
declined audit finding is a Blocker when it holds and is a Blocker by these rules, whatever severity its \
entry records\" (What counts as a Blocker). So `- #2 declined (Nit)` answering an audit finding recorded \
as Blocker is the Code Reviewer's call, not an error. A lens auditor's finding moved out of its scope \
\"goes there too: its answer says `#<id> accepted, moved to audit/findings.md#<new id>`\", so the new id is \
a finding of `audit/findings.md`, appended for that move (\"Ids continue from the highest one in the file\"): \
not an id that was there before the answer was written, nor one another answer already moved a finding to.",
    bad: "fondue/specs/retry-queue/review/pre-plan/02-answer.md",
    good: Example {
        path: "fondue/specs/retry-queue/review/pre-plan/02-answer.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/pre-plan/02-answer.md"
        ),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        // Audit finding id → the answer that moved a finding to it.
        let mut claimed = BTreeMap::new();
        for files in spec.reviews.values() {
            let by_number: BTreeMap<u32, (&str, &ReviewFile, Kind)> =
                files.iter().filter_map(|e| e.numbered.map(|(n, k)| (n, (e.rel, &e.doc, k)))).collect();
            for (&n, &(rel, answer, kind)) in &by_number {
                if kind != Kind::Answer {
                    continue;
                }
                let Some(&(review_rel, review, Kind::Review)) = n.checked_sub(1).and_then(|p| by_number.get(&p)) else {
                    continue;
                };
                let name = review_rel.rsplit('/').next().unwrap_or(review_rel);
                coverage(&spec.path(rel), answer, review, name, Severities::Bind, sink);
                moved(spec, rel, answer, &mut claimed, sink);
            }
        }
        // The audit-fixes request answers audit/findings.md.
        let (Some(findings), Some(request)) = (
            spec.text("audit/findings.md"),
            spec.review(Topic::Audit(Part::Fixes)).iter().find(|e| e.numbered == Some((0, Kind::Request))),
        ) else {
            continue;
        };
        let findings = review::parse(findings);
        coverage(&spec.path(request.rel), &request.doc, &findings, "audit/findings.md", Severities::Judged, sink);
    }
}

/// Each `accepted, moved to audit/findings.md#<id>` names a finding there
/// that the move appended: not one that was there before the answer (seen
/// when the change writes the answer, against the base's findings), and not
/// one an earlier answer of the spec already moved a finding to.
fn moved(spec: &Spec, rel: &str, answer: &ReviewFile, claimed: &mut BTreeMap<u32, String>, sink: &mut Sink) {
    let path = spec.path(rel);
    let mut targets = answer.answers.iter().filter_map(|a| Some((a, a.moved_to?))).peekable();
    if targets.peek().is_none() {
        return;
    }
    let findings = spec.text("audit/findings.md").map(review::parse).unwrap_or_default();
    // The findings there before this answer, when the change writes it.
    let before = (!spec.base.contains_key(rel))
        .then(|| spec.base_text("audit/findings.md").map(review::parse).unwrap_or_default());
    for (a, id) in targets {
        let anchor = format!("#{}:moved", a.id);
        let (message, help) = if !findings.findings.iter().any(|f| f.id == id) {
            (
                format!("#{} is moved to `audit/findings.md#{id}`, which is not a finding there", a.id),
                "append the finding to audit/findings.md with the next id, and name that id",
            )
        } else if before.as_ref().is_some_and(|b| b.findings.iter().any(|f| f.id == id)) {
            (
                format!(
                    "#{} is moved to `audit/findings.md#{id}`, which was there before this answer: a moved finding is \
                     appended with a new id",
                    a.id
                ),
                "append the finding to audit/findings.md with the next id (one above the highest), and name that id",
            )
        } else if let Some(first) = claimed.get(&id) {
            (
                format!("#{} is moved to `audit/findings.md#{id}`, which `{first}` already moved a finding to", a.id),
                "append each moved finding with an id of its own, and name that id",
            )
        } else {
            claimed.insert(id, rel.to_string());
            continue;
        };
        sink.emit(&path, Span::line(a.line), anchor, message).help(help);
    }
}

/// Whether the severities of the answered findings limit the answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Severities {
    /// A review's findings: only a Nit may be declined.
    Bind,
    /// Audit findings: the Code Reviewer judges a decline by the Blocker
    /// rules of `audit-fixes`, whatever severity the entry records.
    Judged,
}

/// Checks that `answer` answers every finding of `review` (named `name`) once.
fn coverage(path: &str, answer: &ReviewFile, review: &ReviewFile, name: &str, severities: Severities, sink: &mut Sink) {
    let findings: BTreeMap<u32, bool> = review.findings.iter().map(|f| (f.id, f.is_nit())).collect();
    let mut answered = BTreeMap::new();
    for a in &answer.answers {
        let anchor = format!("#{}", a.id);
        let Some(&nit) = findings.get(&a.id) else {
            sink.emit(
                path,
                Span::line(a.line),
                format!("{anchor}:unknown"),
                format!("#{} is not a finding of `{name}`", a.id),
            )
            .help(format!("answer only the findings of `{name}`"));
            continue;
        };
        if answered.insert(a.id, a.line).is_some() {
            sink.emit(
                path,
                Span::line(a.line),
                format!("{anchor}:twice"),
                format!("finding #{} is answered twice", a.id),
            )
            .help("answer each finding exactly once");
            continue;
        }
        shape(path, a, nit || severities == Severities::Judged, sink);
    }
    let at = answer.verdict().map_or(answer.last_line, |v| v.line).max(1);
    for &id in findings.keys().filter(|id| !answered.contains_key(*id)) {
        sink.emit(path, Span::line(at), format!("#{id}:missing"), format!("finding #{id} of `{name}` has no answer"))
            .help(format!("add `- #{id} accepted, fixed in …` (or challenged / declined (Nit) / deadlocked / question) before the verdict"));
    }
}

/// `may_decline`: the finding is a Nit, or its severity is not binding.
fn shape(path: &str, a: &AnswerLine, may_decline: bool, sink: &mut Sink) {
    let anchor = format!("#{}", a.id);
    match a.kind {
        None => {
            sink.emit(path, Span::line(a.line), format!("{anchor}:shape"), format!("the answer to #{} is none of the engine's answers", a.id))
                .help("write `- #N accepted, fixed in …`, `accepted, fixed differently in …: <why>`, `challenged: …`, `declined (Nit)`, `deadlocked: …` or `question: …`");
        }
        Some(AnswerKind::DeclinedNit) if !may_decline => {
            sink.emit(
                path,
                Span::line(a.line),
                format!("{anchor}:declined"),
                format!("#{} is declined, but it is not a Nit", a.id),
            )
            .help("only a Nit may be declined: accept, challenge or raise a question on a Blocker");
        }
        Some(_) => {}
    }
}
