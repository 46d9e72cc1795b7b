//! Table-driven tests, one clause of the policy at a time.

use super::*;

const HEAD: &str = "abc1234def5678";
const OLD: &str = "0011223344556677";

fn policy() -> ReviewConfig {
    ReviewConfig {
        core_reviewers: vec!["gyrum-marcus".into(), "gyrum-priya".into(), "gyrum-lin".into()],
        advisory: vec!["gyrum-dana".into()],
        ..Default::default()
    }
}

fn review(login: &str, state: ReviewState, commit: &str, at: &str) -> Review {
    Review { login: login.into(), state, commit: Some(commit.into()), submitted_at: Some(at.into()) }
}

use ReviewState::*;

fn approve(login: &str) -> Review {
    review(login, Approved, HEAD, "2026-05-01T10:00:00Z")
}

fn dana() -> Review {
    review("gyrum-dana", Commented, OLD, "2026-05-01T09:00:00Z")
}

#[test]
fn clauses() {
    struct Case {
        name: &'static str,
        reviews: Vec<Review>,
        authors: Vec<&'static str>,
        passed: bool,
        missing: Vec<&'static str>,
    }
    let cases = vec![
        Case {
            name: "quorum met, advisory reviewed",
            reviews: vec![approve("gyrum-marcus"), approve("gyrum-lin"), dana()],
            authors: vec![],
            passed: true,
            missing: vec![],
        },
        Case {
            name: "one approval short",
            reviews: vec![approve("gyrum-marcus"), dana()],
            authors: vec![],
            passed: false,
            missing: vec!["1 more approval from gyrum-priya or gyrum-lin on abc1234"],
        },
        Case {
            name: "no reviews at all",
            reviews: vec![],
            authors: vec![],
            passed: false,
            missing: vec![
                "2 more approvals from gyrum-marcus, gyrum-priya or gyrum-lin on abc1234",
                "gyrum-dana has not reviewed",
            ],
        },
        Case {
            name: "advisory missing",
            reviews: vec![approve("gyrum-marcus"), approve("gyrum-priya")],
            authors: vec![],
            passed: false,
            missing: vec!["gyrum-dana has not reviewed"],
        },
        Case {
            name: "advisory may request changes: any state counts",
            reviews: vec![
                approve("gyrum-marcus"),
                approve("gyrum-priya"),
                review("gyrum-dana", ChangesRequested, HEAD, "2026-05-01T11:00:00Z"),
            ],
            authors: vec![],
            passed: true,
            missing: vec![],
        },
        Case {
            name: "one core change request is within the limit",
            reviews: vec![
                approve("gyrum-marcus"),
                approve("gyrum-priya"),
                review("gyrum-lin", ChangesRequested, HEAD, "2026-05-01T11:00:00Z"),
                dana(),
            ],
            authors: vec![],
            passed: true,
            missing: vec![],
        },
        Case {
            name: "two core change requests exceed it",
            reviews: vec![
                approve("gyrum-marcus"),
                review("gyrum-priya", ChangesRequested, HEAD, "2026-05-01T11:00:00Z"),
                review("gyrum-lin", ChangesRequested, HEAD, "2026-05-01T11:00:00Z"),
                dana(),
            ],
            authors: vec![],
            passed: false,
            missing: vec![
                "1 more approval from gyrum-priya or gyrum-lin on abc1234",
                "gyrum-priya, gyrum-lin request changes (at most 1 may); a later approval by the same reviewer replaces a request",
            ],
        },
        Case {
            name: "a later approval replaces a change request; a later comment does not undo it",
            reviews: vec![
                review("gyrum-priya", ChangesRequested, OLD, "2026-05-01T08:00:00Z"),
                review("gyrum-lin", ChangesRequested, OLD, "2026-05-01T08:00:00Z"),
                review("gyrum-priya", Approved, HEAD, "2026-05-01T12:00:00Z"),
                review("gyrum-priya", Commented, HEAD, "2026-05-01T13:00:00Z"),
                approve("gyrum-marcus"),
                dana(),
            ],
            authors: vec![],
            passed: true,
            missing: vec![],
        },
        Case {
            name: "recusal shrinks the quorum to 2-of-2",
            reviews: vec![approve("gyrum-priya"), approve("gyrum-lin"), dana()],
            authors: vec!["gyrum-marcus"],
            passed: true,
            missing: vec![],
        },
        Case {
            name: "a recused reviewer's approval does not count",
            reviews: vec![approve("gyrum-marcus"), approve("gyrum-lin"), dana()],
            authors: vec!["Gyrum-Marcus"],
            passed: false,
            missing: vec!["1 more approval from gyrum-priya on abc1234"],
        },
        Case {
            name: "two recusals fail closed",
            reviews: vec![approve("gyrum-lin"), approve("gyrum-priya"), dana()],
            authors: vec!["gyrum-marcus", "gyrum-priya[bot]"],
            passed: false,
            missing: vec![
                "gyrum-marcus and gyrum-priya authored commits in this PR and are recused; with two or more recusals the gate fails closed",
            ],
        },
        Case {
            name: "stale approvals do not count",
            reviews: vec![approve("gyrum-marcus"), review("gyrum-lin", Approved, OLD, "2026-05-01T10:00:00Z"), dana()],
            authors: vec![],
            passed: false,
            missing: vec!["1 more approval from gyrum-priya or gyrum-lin on abc1234"],
        },
        Case {
            name: "logins match case-insensitively and with [bot]",
            reviews: vec![
                approve("GYRUM-MARCUS"),
                approve("gyrum-lin[bot]"),
                review("Gyrum-Dana", Commented, HEAD, "2026-05-01T10:00:00Z"),
            ],
            authors: vec![],
            passed: true,
            missing: vec![],
        },
        Case {
            name: "a dismissed approval no longer counts",
            reviews: vec![
                approve("gyrum-marcus"),
                approve("gyrum-lin"),
                review("gyrum-lin", Dismissed, HEAD, "2026-05-01T12:00:00Z"),
                dana(),
            ],
            authors: vec![],
            passed: false,
            missing: vec!["1 more approval from gyrum-priya or gyrum-lin on abc1234"],
        },
        Case {
            name: "pending reviews are not reviews",
            reviews: vec![
                approve("gyrum-marcus"),
                approve("gyrum-lin"),
                review("gyrum-dana", Pending, HEAD, "2026-05-01T12:00:00Z"),
            ],
            authors: vec![],
            passed: false,
            missing: vec!["gyrum-dana has not reviewed"],
        },
        Case {
            name: "an abbreviated head commit id matches",
            reviews: vec![
                review("gyrum-marcus", Approved, "abc1234", "2026-05-01T10:00:00Z"),
                approve("gyrum-lin"),
                dana(),
            ],
            authors: vec![],
            passed: true,
            missing: vec![],
        },
    ];
    for case in cases {
        let authors: Vec<String> = case.authors.iter().map(|a| a.to_string()).collect();
        let outcome = evaluate(&policy(), &case.reviews, &authors, HEAD);
        assert_eq!(outcome.passed, case.passed, "{}: {outcome:?}", case.name);
        assert_eq!(outcome.missing_lines(), case.missing, "{}", case.name);
    }
}

#[test]
fn stale_approvals_count_when_the_policy_says_so() {
    let mut p = policy();
    p.stale_on_push = false;
    let reviews = [review("gyrum-marcus", Approved, OLD, "1"), review("gyrum-lin", Approved, OLD, "2"), dana()];
    assert!(evaluate(&p, &reviews, &[], HEAD).passed);
    p.stale_on_push = true;
    let outcome = evaluate(&p, &reviews, &[], HEAD);
    assert_eq!(outcome.stale, vec!["gyrum-marcus", "gyrum-lin"]);
    let summary = outcome.summary();
    assert!(
        summary.contains(
            "- gyrum-marcus on `0011223`: no longer counts: the documents that made the gate apply were not compared"
        ),
        "{summary}"
    );
}

const BRIEF: &str = "dark-factory/briefs/SWARM-AR-pg-backup.md";
const NOTES: &str = "notes/todo.md";

/// The brief's blob at the head is `head_blob`; at OLD it was `old_blob`.
fn contents(head_blob: &str, old_blob: Option<&str>) -> Contents {
    let mut contents = Contents::default();
    contents.head.insert(BRIEF.into(), Some(head_blob.into()));
    if let Some(old) = old_blob {
        contents.approved.insert(OLD.into(), [(BRIEF.to_string(), Some(old.to_string()))].into());
    }
    contents
}

#[test]
fn an_approval_follows_the_documents_that_made_the_gate_apply() {
    let reviews = [review("gyrum-marcus", Approved, OLD, "1"), approve("gyrum-lin"), dana()];
    // A rebase, a merge from the base or an edit elsewhere: the brief's blob is the same.
    let outcome = evaluate_contents(&policy(), &reviews, &[], HEAD, &contents("b1", Some("b1")));
    assert!(outcome.passed, "{outcome:?}");
    assert_eq!(outcome.approvals, ["gyrum-marcus", "gyrum-lin"]);
    let summary = outcome.summary();
    assert!(
        summary.contains(&format!(
            "- gyrum-marcus on `0011223`: counts: `{BRIEF}` is byte for byte the same at the head."
        )),
        "{summary}"
    );
    assert!(summary.contains("- gyrum-lin on `abc1234`: counts: given on the current head."), "{summary}");

    // A push that edits the brief ends the approval given before it.
    let outcome = evaluate_contents(&policy(), &reviews, &[], HEAD, &contents("b2", Some("b1")));
    assert!(!outcome.passed);
    assert_eq!(outcome.stale, ["gyrum-marcus"]);
    assert_eq!(outcome.missing_lines(), ["1 more approval from gyrum-marcus or gyrum-priya on abc1234"]);
    assert!(
        outcome
            .summary()
            .contains(&format!("- gyrum-marcus on `0011223`: no longer counts: `{BRIEF}` has changed since.")),
        "{}",
        outcome.summary()
    );

    // A document that was not there when the approval was given is a change too.
    let mut added = contents("b1", Some("b1"));
    added.head.insert(NOTES.into(), Some("n1".into()));
    let outcome = evaluate_contents(&policy(), &reviews, &[], HEAD, &added);
    assert_eq!(outcome.stale, ["gyrum-marcus"]);
    assert!(outcome.standings[0].why.starts_with(&format!("`{NOTES}` has changed")), "{:?}", outcome.standings);

    // A commit whose documents could not be read counts for nothing.
    let outcome = evaluate_contents(&policy(), &reviews, &[], HEAD, &contents("b1", None));
    assert_eq!(outcome.stale, ["gyrum-marcus"]);
    assert!(outcome.standings[0].why.contains("could not be read"), "{:?}", outcome.standings);
}

#[test]
fn any_push_ends_every_approval_when_the_policy_says_so() {
    let mut p = policy();
    p.approvals_end_on = crate::config::ApprovalsEnd::AnyPush;
    let reviews = [review("gyrum-marcus", Approved, OLD, "1"), approve("gyrum-lin"), dana()];
    let outcome = evaluate_contents(&p, &reviews, &[], HEAD, &contents("b1", Some("b1")));
    assert!(!outcome.passed);
    assert_eq!(outcome.stale, ["gyrum-marcus"]);
    assert!(outcome.standings[0].why.contains("any_push"), "{:?}", outcome.standings);
}

#[test]
fn recusal_can_be_turned_off() {
    let mut p = policy();
    p.recusal = false;
    let reviews = [approve("gyrum-marcus"), approve("gyrum-lin"), dana()];
    let outcome = evaluate(&p, &reviews, &["gyrum-marcus".into(), "gyrum-lin".into()], HEAD);
    assert!(outcome.passed, "{outcome:?}");
    assert!(outcome.recused.is_empty());
}
