use std::collections::BTreeSet;

use super::SpecView;
use crate::docs::spec::review::{self, Kind, ReviewFile};
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/finding-format",
    view: SpecView,
    severity: Error,
    summary: "findings are `## #<id> <title>` with `**Severity:** Blocker | Nit` and a proposed solution",
    why: "The fondue engine's review format (docs/seed-coverage.md, Engine formats): a review holds findings \
`## #<id> <title>[ (re <file>#<id>)]`, each with `**Severity:** Blocker | Nit`, a description and \
`**Proposed solution:** …`. Spec v9 decides what counts as a Blocker per topic (\"What counts as a \
Blocker\"), answers cite findings by id, and an audit finding in `audit/findings.md` is \"shaped like an \
engine finding, with an id, a title, a severity, a description with its anchor, and a proposed \
solution\". An auditor appends its findings, and \"Ids continue from the highest one in the file\" \
(audit, Outside an auditor's scope): `#2` written after `#3` is out of order. A finding without an id or \
a severity cannot be answered or judged.",
    bad: "fondue/specs/retry-queue/review/plan/01-review.md",
    good: Example {
        path: "fondue/specs/retry-queue/review/plan/01-review.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/plan/01-review.md"
        ),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        for (_, entry) in spec.review_files() {
            if entry.numbered.is_some_and(|(_, k)| k == Kind::Review) {
                findings(&spec.path(entry.rel), &entry.doc, sink);
            }
        }
        if let Some(text) = spec.text("audit/findings.md") {
            let doc = review::parse(text);
            findings(&spec.path("audit/findings.md"), &doc, sink);
            continue_ids(&spec.path("audit/findings.md"), &doc, sink);
        }
    }
}

/// Audit finding ids continue from the highest one before them. A reused id
/// is the duplicate check's; this one reports an id below the highest or one
/// that skips ids.
fn continue_ids(path: &str, doc: &ReviewFile, sink: &mut Sink) {
    let mut highest: Option<u32> = None;
    let mut seen = BTreeSet::new();
    for f in &doc.findings {
        if !seen.insert(f.id) {
            continue;
        }
        if let Some(top) = highest
            && f.id != top + 1
        {
            let (anchor, message) = if f.id < top {
                (
                    "order",
                    format!(
                        "audit finding #{} comes after #{top}: ids continue from the highest one in the file",
                        f.id
                    ),
                )
            } else {
                (
                    "gap",
                    format!(
                        "audit finding #{} skips #{}: ids continue from the highest one in the file",
                        f.id,
                        top + 1
                    ),
                )
            };
            sink.emit(path, Span::line(f.line), format!("#{}:{anchor}", f.id), message)
                .help(format!("number the new finding #{}, one more than the highest id above it", top + 1));
        }
        highest = Some(highest.map_or(f.id, |top| top.max(f.id)));
    }
}

fn findings(path: &str, doc: &ReviewFile, sink: &mut Sink) {
    for p in &doc.finding_problems {
        sink.emit(path, Span::line(p.line), format!("heading:{}", p.line), p.message.clone())
            .help("write a finding's heading as `## #<id> <title>`, e.g. `## #3 The retry loop has no bound`");
    }
    let mut seen = BTreeSet::new();
    for f in &doc.findings {
        let anchor = format!("#{}", f.id);
        if !seen.insert(f.id) {
            sink.emit(
                path,
                Span::line(f.line),
                format!("{anchor}:duplicate"),
                format!("finding #{} appears twice", f.id),
            )
            .help("give every finding its own id");
        }
        match &f.severity {
            None => {
                sink.emit(
                    path,
                    Span::line(f.line),
                    format!("{anchor}:severity"),
                    format!("finding #{} has no `**Severity:**` line", f.id),
                )
                .help("add `**Severity:** Blocker` or `**Severity:** Nit` under the heading");
            }
            Some((value, line)) if value != "Blocker" && value != "Nit" => {
                sink.emit(
                    path,
                    Span::line(*line),
                    format!("{anchor}:severity"),
                    format!("finding #{} has severity `{value}`; a severity is `Blocker` or `Nit`", f.id),
                )
                .help("write `**Severity:** Blocker` or `**Severity:** Nit`");
            }
            Some(_) => {}
        }
        if !f.proposed_solution {
            sink.emit(
                path,
                Span::line(f.line),
                format!("{anchor}:solution"),
                format!("finding #{} has no `**Proposed solution:**`", f.id),
            )
            .help("add `**Proposed solution:** …` saying how to fix it");
        }
    }
}
