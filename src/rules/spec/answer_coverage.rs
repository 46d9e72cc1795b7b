use std::collections::BTreeMap;

use super::{ReviewEntry, SpecView};
use crate::docs::spec::review::{AnswerKind, Kind};
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "spec/answer-coverage",
    default_severity: Severity::Error,
    summary: "an answer answers every finding of the review before it exactly once (only Nits declined)",
    why: "fondue `spec` v9, Turns: the author's Answer turn is \"answer every finding of the newest review\". \
With the engine's answer format (DESIGN §3.3) that is one line per finding: `- #N accepted, fixed in …`, \
`- #N accepted, fixed differently in …: <why>`, `- #N challenged: …`, `- #N declined (Nit)` (Nits only), \
`- #N deadlocked: …` or `- #N question: …`; in a lens topic also `- #N accepted, moved to \
audit/findings.md#<id>`. A finding left unanswered, answered twice, or a Blocker declined is a finding the \
next review cannot check.",
    bad: Example {
        path: "fondue/specs/retry-queue/review/pre-plan/02-answer.md",
        text: include_str!(
            "../../../fixtures/rules/spec/answer-coverage/fail/head/fondue/specs/retry-queue/review/pre-plan/02-answer.md"
        ),
    },
    good: Example {
        path: "fondue/specs/retry-queue/review/pre-plan/02-answer.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/pre-plan/02-answer.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<SpecView<'a>> {
    Rule { info: &INFO, check }
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        for files in spec.reviews.values() {
            let by_number: BTreeMap<u32, &ReviewEntry> =
                files.iter().filter_map(|e| e.numbered.map(|(n, _)| (n, e))).collect();
            for (&n, answer) in &by_number {
                if answer.numbered.map(|(_, k)| k) != Some(Kind::Answer) {
                    continue;
                }
                let Some(review) = n
                    .checked_sub(1)
                    .and_then(|p| by_number.get(&p))
                    .filter(|r| r.numbered.map(|(_, k)| k) == Some(Kind::Review))
                else {
                    continue;
                };
                coverage(&spec.path(answer.rel), answer, review, sink);
            }
        }
    }
}

fn coverage(path: &str, answer: &ReviewEntry, review: &ReviewEntry, sink: &mut Sink) {
    let findings: BTreeMap<u32, bool> = review.doc.findings.iter().map(|f| (f.id, f.is_nit())).collect();
    let mut answered = BTreeMap::new();
    for a in &answer.doc.answers {
        let anchor = format!("#{}", a.id);
        let Some(&nit) = findings.get(&a.id) else {
            sink.emit(
                path,
                Span::line(a.line),
                format!("{anchor}:unknown"),
                format!("#{} is not a finding of `{}`", a.id, review.name),
            )
            .help(format!("answer only the findings of `{}`", review.name));
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
        match a.kind {
            None => {
                sink.emit(path, Span::line(a.line), format!("{anchor}:shape"), format!("the answer to #{} is none of the engine's answers", a.id))
                    .help("write `- #N accepted, fixed in …`, `accepted, fixed differently in …: <why>`, `challenged: …`, `declined (Nit)`, `deadlocked: …` or `question: …`");
            }
            Some(AnswerKind::DeclinedNit) if !nit => {
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
    let at = answer.doc.verdict().map_or(answer.doc.last_line, |v| v.line);
    for (&id, _) in findings.iter().filter(|(id, _)| !answered.contains_key(*id)) {
        sink.emit(path, Span::line(at), format!("#{id}:missing"), format!("finding #{id} of `{}` has no answer", review.name))
            .help(format!("add `- #{id} accepted, fixed in …` (or challenged / declined (Nit) / deadlocked / question) before the verdict"));
    }
}
