use super::VotingView;
use crate::model::{PR_BODY, Severity, Sink, Span};
use crate::rules::cite::cites;

declare_rule! {
    id: "voting/format-cite",
    view: VotingView,
    severity: Error,
    summary: "a PR that adds or changes a voting doc has `Voting-format: v1` in its body",
    why: "ADR-140, \"What we sign up to maintain\": \"The format-version cite discipline in PR bodies \
(Voting-format: v1). Phase 1's brief generator and Phase 2's vote wrapper anchor on the cite; missing cite is \
a reviewer-visible finding (same shape as Guideline: <module-type>@v<n> per ADR-117).\" One finding per PR, on \
the PR body. A local check without the PR body (`gatehouse check` without `--pr-body FILE`) cannot see the \
cite: it reports a notice saying so instead of failing.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

/// The cite this version of the format needs.
const CITE: &str = "v1";

fn check(view: &VotingView, sink: &mut Sink) {
    // Once per change, with its first doc.
    let Some(&(first, _)) = view.changed.first().filter(|_| view.first) else { return };
    let count = view.changed.len();
    let docs = if count == 1 { "a voting doc".to_string() } else { format!("{count} voting docs") };
    let Some(body) = &view.changes.pr.body else {
        sink.emit(first, Span::line(1), "format-cite", format!("the change touches {docs}, and the PR body was not given, so its `Voting-format: v1` line was not checked"))
            .help("pass the PR body with `--pr-body FILE` to check the cite")
            .severity(Severity::Notice);
        return;
    };
    let cited = cites(body, "Voting-format");
    if cited.iter().any(|c| c.value == CITE) {
        return;
    }
    let (span, message) = match cited.first() {
        // `v1 (ADR-140)`: the right version with more on the line.
        Some(other) if other.value.split_whitespace().next() == Some(CITE) => (
            Span::at(other.line, other.col, other.value.chars().count() as u32),
            format!(
                "the PR body's `Voting-format:` line reads `{}`: the line must hold the version alone, `Voting-format: {CITE}`",
                other.value
            ),
        ),
        Some(other) => (
            Span::at(other.line, other.col, other.value.chars().count() as u32),
            format!(
                "the PR body cites `Voting-format: {}`, but the changed voting docs are `voting/{CITE}`",
                other.value
            ),
        ),
        None => (Span::line(1), format!("the PR changes {docs} and its body has no `Voting-format: {CITE}` line")),
    };
    sink.emit(PR_BODY, span, "format-cite", message)
        .help("add the line `Voting-format: v1` to the PR description (ADR-140's format-version cite)");
}
