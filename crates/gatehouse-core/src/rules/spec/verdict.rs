use super::SpecView;
use crate::docs::spec::review::{Kind, VerdictKind};
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/verdict",
    view: SpecView,
    severity: Error,
    summary: "a review or answer ends with exactly one well-formed `Verdict:` line",
    why: "The fondue engine's review format (docs/seed-coverage.md, Engine formats), which spec v9 runs on: a review \"ends with exactly one \
line: `Verdict: approved <subject>`, `Verdict: approved-with-fixes <subject> | #2, #4` or `Verdict: \
changes-requested`\"; an answer ends with `Verdict: next-round <subject>`, `closed <subject>`, `deadlocked \
<thread>…` or `question <refs>`. The seed closes every stage \"on verdict `approved` or `closed`\", and \
the transition that follows reads that line, so a file without it, or with two, moves nothing.",
    bad: "fondue/specs/retry-queue/review/phase-01/01-review.md",
    good: Example {
        path: "fondue/specs/retry-queue/review/phase-01/01-review.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/phase-01/01-review.md"
        ),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        for (_, entry) in spec.review_files() {
            let Some((_, kind)) = entry.numbered else { continue };
            let doc = &entry.doc;
            let path = spec.path(entry.rel);
            if kind == Kind::Request {
                if let Some(v) = doc.verdicts.first() {
                    sink.emit(&path, Span::line(v.line), "request-verdict", "a request carries no verdict")
                        .help("remove the `Verdict:` line; the review that answers the request gives it");
                }
                continue;
            }
            let Some(last) = doc.verdicts.last() else {
                sink.emit(
                    &path,
                    Span::line(doc.last_line),
                    "missing",
                    format!("this {} has no `Verdict:` line", kind.as_str()),
                )
                .help(shapes(kind));
                continue;
            };
            for extra in &doc.verdicts[1..] {
                sink.emit(
                    &path,
                    Span::line(extra.line),
                    format!("extra:{}", extra.word),
                    "a second `Verdict:` line: a file ends with exactly one",
                )
                .help("keep one verdict, on the last line");
            }
            if last.line != doc.last_line {
                sink.emit(
                    &path,
                    Span::line(last.line),
                    "not-last",
                    "the `Verdict:` line is not the last line of the file",
                )
                .help("end the file with the verdict line");
            }
            let Some(verdict) = last.kind else {
                sink.emit(
                    &path,
                    Span::line(last.line),
                    format!("word:{}", last.word),
                    format!("`{}` is not a verdict", last.word),
                )
                .help(shapes(kind));
                continue;
            };
            if verdict.belongs_to() != kind {
                sink.emit(
                    &path,
                    Span::line(last.line),
                    format!("kind:{}", verdict.word()),
                    format!(
                        "`{}` is not a verdict of {} {}",
                        verdict.word(),
                        if kind == Kind::Answer { "an" } else { "a" },
                        kind.as_str()
                    ),
                )
                .help(shapes(kind));
                continue;
            }
            if let Some(problem) = content_problem(verdict, &last.subject, &last.fixes, doc) {
                sink.emit(&path, Span::line(last.line), format!("content:{}", verdict.word()), problem)
                    .help(shapes(kind));
            }
        }
    }
}

fn content_problem(
    verdict: VerdictKind,
    subject: &str,
    fixes: &[u32],
    doc: &crate::docs::spec::review::ReviewFile,
) -> Option<String> {
    let needs_subject = !matches!(verdict, VerdictKind::ChangesRequested);
    if needs_subject && subject.is_empty() {
        return Some(format!("`Verdict: {}` names no subject", verdict.word()));
    }
    match verdict {
        VerdictKind::Approved => doc
            .findings
            .iter()
            .find(|f| f.is_blocker())
            .map(|f| format!("`approved` with Blocker #{} open: a review with a Blocker is `changes-requested` or `approved-with-fixes`", f.id)),
        VerdictKind::ApprovedWithFixes if fixes.is_empty() => {
            Some("`approved-with-fixes` lists no findings after ` | ` (e.g. `| #2, #4`)".to_string())
        }
        VerdictKind::ApprovedWithFixes => fixes
            .iter()
            .find(|id| !doc.findings.iter().any(|f| f.id == **id))
            .map(|id| format!("`approved-with-fixes` lists #{id}, which is not a finding of this review")),
        _ => None,
    }
}

fn shapes(kind: Kind) -> &'static str {
    if kind == Kind::Review {
        "end the review with one of `Verdict: approved <subject>`, `Verdict: approved-with-fixes <subject> | #2, #4`, `Verdict: changes-requested`"
    } else {
        "end the answer with one of `Verdict: next-round <subject>`, `Verdict: closed <subject>`, `Verdict: deadlocked <thread>…`, `Verdict: question <refs>`"
    }
}
