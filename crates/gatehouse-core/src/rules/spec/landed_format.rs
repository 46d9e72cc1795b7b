use super::SpecView;
use crate::docs::spec::files::{LandedEvent, parse_landed};
use crate::docs::spec::state::{State, Step, Topic};
use crate::model::{Severity, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/landed-format",
    view: SpecView,
    severity: Error,
    summary: "landed.md lines are `attempt-<NN> implementation starts at <sha>` / `… phase-<NN> | audit-<part> closed at <sha>`",
    why: "fondue `spec` v9, landed.md: \"It records where the code of each phase and each audit topic ends, so \
a reopened spec can tell which commits belong to which phase or topic\", in three line shapes: \
`attempt-<NN> implementation starts at <sha>`, `attempt-<NN> phase-<NN> closed at <sha>` and \
`attempt-<NN> audit-<part> closed at <sha>`. \"`<sha>` is `git rev-parse HEAD` when the line is \
written\" and \"`attempt-<NN>` is the number the live attempt would take in `attempts/`\". The audit and \
handover read `<sha>` from its first line. The Arbiter appends a line when \"a reply closed a phase or an \
audit topic\", and \"a topic that ended on `nothing to change` gets none\" (What the Arbiter does on a \
transition): an auditor that replied `nothing to change` committed nothing and opened no review, so an \
`audit-<part> closed` line for it marks a boundary no commit has. In git mode a sha that is not in the repository's history is \
a warning: the commit may have been rewritten away.",
    bad: "fondue/specs/retry-queue/landed.md",
    good: Example {
        path: "fondue/specs/retry-queue/landed.md",
        text: include_str!("../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/landed.md"),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let Some(text) = spec.text("landed.md") else { continue };
        let path = spec.path("landed.md");
        let (lines, problems) = parse_landed(text);
        for p in problems {
            sink.emit(&path, Span::line(p.line), format!("line:{}", p.line), p.message)
                .help("write `attempt-<NN> implementation starts at <sha>`, `attempt-<NN> phase-<NN> closed at <sha>` or `attempt-<NN> audit-<part> closed at <sha>`");
        }
        let live = spec
            .head
            .keys()
            .filter_map(|r| r.strip_prefix("attempts/")?.split_once('/'))
            .map(|(n, _)| n)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            + 1;
        let mut started = std::collections::BTreeSet::new();
        let mut last_attempt = 0;
        for l in &lines {
            let anchor = format!("attempt-{:02}:{:?}", l.attempt, l.event);
            if usize::from(l.attempt) > live || l.attempt < last_attempt {
                sink.emit(
                    &path,
                    Span::line(l.line),
                    anchor.clone(),
                    format!(
                        "`attempt-{:02}` is not the live attempt ({live:02}) or an earlier one in order",
                        l.attempt
                    ),
                )
                .help("attempt-<NN> is one more than the highest folder in attempts/, or 01 when there is none");
            }
            last_attempt = last_attempt.max(l.attempt);
            if let LandedEvent::Audit(part) = l.event
                && l.attempt == spec.attempt
                && spec.review(Topic::Audit(part)).is_empty()
                && spec.stats_say(State::Audit(part, Step::Draft), "nothing to change")
            {
                sink.emit(
                    &path,
                    Span::line(l.line),
                    format!("{anchor}:nothing"),
                    format!("`audit-{}` ended on `nothing to change`, and such a topic gets no line", part.as_str()),
                )
                .help("remove the line: only a phase or an audit topic that closed on `approved` or `closed` gets one");
            }
            if l.event == LandedEvent::Starts {
                started.insert(l.attempt);
            } else if !started.contains(&l.attempt) {
                sink.emit(
                    &path,
                    Span::line(l.line),
                    anchor.clone(),
                    format!("a close line of `attempt-{:02}` before its `implementation starts` line", l.attempt),
                )
                .help("the first line of an attempt is `attempt-<NN> implementation starts at <sha>`");
            }
            // History holds full shas; landed.md may abbreviate: the first
            // full sha at or after the prefix is the only candidate.
            let known = |h: &std::collections::BTreeSet<String>| {
                h.range(l.sha.clone()..).next().is_some_and(|full| full.starts_with(l.sha.as_str()))
            };
            if view.changes.history.as_ref().is_some_and(|h| !known(h)) {
                sink.emit(&path, Span::line(l.line), format!("sha:{}", l.sha), format!("commit `{}` is not in the repository's history", l.sha))
                    .help("check the sha with `git rev-parse`; a rewritten history breaks the phase boundaries landed.md records")
                    .severity(Severity::Warning);
            }
        }
    }
}
