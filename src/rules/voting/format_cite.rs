use super::VotingView;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "voting/format-cite",
    default_severity: Severity::Error,
    summary: "a PR that adds or changes a voting doc has `Voting-format: v1` in its body",
    why: "ADR-140, \"What we sign up to maintain\": \"The format-version cite discipline in PR bodies (Voting-format: v1). Phase 1's brief generator and Phase 2's vote wrapper anchor on the cite; missing cite is a reviewer-visible finding (same shape as Guideline: <module-type>@v<n> per ADR-117).\" One finding per PR, on the first voting doc it changes. A local check without the PR body (`gatehouse check` without `--pr-body FILE`) cannot see the cite: it reports a notice saying so instead of failing.",
    bad: Example {
        path: "dark-factory/guidelines/smoke-spec-path@v1.md",
        text: include_str!(
            "../../../fixtures/rules/voting/format-cite/fail/head/dark-factory/guidelines/smoke-spec-path@v1.md"
        ),
    },
    good: Example {
        path: "dark-factory/guidelines/smoke-spec-path@v1.md",
        text: include_str!(
            "../../../fixtures/rules/voting/format-cite/pass/head/dark-factory/guidelines/smoke-spec-path@v1.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<VotingView<'a>> {
    Rule { info: &INFO, check }
}

/// The cite this version of the format needs.
const CITE: &str = "v1";

fn check(view: &VotingView, sink: &mut Sink) {
    let Some(first) = view.docs.first() else { return };
    let count = view.docs.len();
    let docs = if count == 1 { "a voting doc".to_string() } else { format!("{count} voting docs") };
    let Some(body) = &view.changes.pr.body else {
        sink.emit(first.path, Span::line(1), "format-cite", format!("the change touches {docs}, and the PR body was not given, so its `Voting-format: v1` line was not checked"))
            .help("pass the PR body with `--pr-body FILE` to check the cite")
            .severity(Severity::Notice);
        return;
    };
    let cites: Vec<&str> = body.lines().filter_map(cite).collect();
    if cites.contains(&CITE) {
        return;
    }
    let message = match cites.first() {
        Some(other) => {
            format!("the PR body cites `Voting-format: {other}`, but the changed voting docs are `voting/{CITE}`")
        }
        None => format!("the PR changes {docs} and its body has no `Voting-format: {CITE}` line"),
    };
    sink.emit(first.path, Span::line(1), "format-cite", message)
        .help("add the line `Voting-format: v1` to the PR description (ADR-140's format-version cite)");
}

/// The version a `Voting-format: <v>` line cites.
fn cite(line: &str) -> Option<&str> {
    let (key, value) = line.trim().split_once(':')?;
    key.trim().eq_ignore_ascii_case("Voting-format").then(|| value.trim().trim_matches('`'))
}
