use super::*;

#[test]
fn the_adr_examples() {
    assert!(!assess("the feature works").testable());
    assert!(assess("endpoint returns 200 with the documented schema").testable());
}

#[test]
fn tokens_keep_code_quotes_and_explanations_apart() {
    let kinds: Vec<(Kind, &str)> = tokenize("the API is fast: `GET /x` prints \"ok\" (p95 < 200 ms), tenant's")
        .iter()
        .map(|t| (t.kind, t.raw))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (Kind::Word, "the"),
            (Kind::Word, "API"),
            (Kind::Word, "is"),
            (Kind::Word, "fast"),
            (Kind::Break, ":"),
            (Kind::Code, "GET /x"),
            (Kind::Word, "prints"),
            (Kind::Quote, "ok"),
            (Kind::Break, "("),
            (Kind::Word, "p95"),
            (Kind::Word, "<"),
            (Kind::Word, "200"),
            (Kind::Word, "ms"),
            (Kind::Word, "tenant's"),
        ]
    );
}

#[test]
fn quality_words_pinned_down_pass() {
    for ok in [
        "the API is fast: p95 under 300 ms",
        "handles a missing config gracefully by exiting with code 2",
        "the importer is robust against `\\r\\n` line endings",
        "`make lint` passes on a clean checkout",
        "the server drains connections during a graceful shutdown",
    ] {
        assert!(assess(ok).testable(), "{ok}: {:?}", assess(ok));
    }
}

#[test]
fn names_sentiments_and_generic_verbs_are_read() {
    // A capitalised word inside a sentence names a value or a control.
    assert!(assess("The chart does not install until every node reports Ready").testable());
    assert!(assess("the dialog closes when Done is clicked").testable());
    // What people feel about the system is not something a test observes.
    assert_eq!(assess("Do users like the new layout?").vague[0].kind, VagueKind::Quality);
    assert!(assess("the list is sorted like the sidebar").vague.is_empty());
    // A hedge on a verb that names no behaviour stays vague whatever the
    // sentence names; on a verb that names one it adds no doubt.
    assert_eq!(assess("Then it behaves correctly").verdict(), Verdict::Untestable);
    assert_eq!(assess("Then the system behaves correctly for admins").verdict(), Verdict::Unsure);
    assert_eq!(assess("PII is handled appropriately").verdict(), Verdict::Unsure);
    assert!(assess("rejects rows correctly when the id column is missing").testable());
    assert!(assess("Modals trap and restore focus correctly").testable());
    for vague in ["The feature is fully functional", "optimisation", "all cases covered", "self-review done"] {
        assert_eq!(assess(vague).verdict(), Verdict::Untestable, "{vague}");
    }
    assert!(assess("Every icon-only button has an accessible name").testable());
    // Named things with only a vague word said of them warn.
    for vague in
        ["Backwards compatible", "data size optimisation", "The site is accessible", "users like the new layout"]
    {
        assert_eq!(assess(vague).verdict(), Verdict::Unsure, "{vague}");
    }
}

#[test]
fn vague_words_are_reported_as_written() {
    let a = assess("it works as expected");
    let found: Vec<(&str, VagueKind)> = a.vague.iter().map(|v| (v.text.as_str(), v.kind)).collect();
    assert_eq!(found, vec![("works", VagueKind::Quality), ("as expected", VagueKind::Hedge)]);
    let a = assess("code is reviewed by the team");
    assert_eq!(a.vague[0].kind, VagueKind::Process);
    let a = assess("all edge cases are handled");
    assert_eq!(a.vague[0], Vague { text: "handled".into(), kind: VagueKind::Catchall });
    assert!(assess("backups").predicate.is_none());
    assert!(assess("a nightly backup").predicate.is_none());
    assert!(assess("everything passes").behaviour_only);
}

#[test]
fn a_behaviour_alone_is_not_blocked() {
    // A behaviour a check can see is something to look at, but with nothing
    // named that it is of the rubric is unsure.
    for behaviour in ["The app starts", "It compiles", "everything passes"] {
        assert_eq!(assess(behaviour).verdict(), Verdict::Unsure, "{behaviour}");
    }
    assert!(assess("the page loads").testable());
    for nothing in ["Behaves correctly", "It functions", "Make it better", "the feature works"] {
        assert_eq!(assess(nothing).verdict(), Verdict::Untestable, "{nothing}");
    }
}
