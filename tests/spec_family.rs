//! The spec family end to end on in-memory ChangeSets: the bad inputs the
//! issue names, several specs in one change, the history warning, and the
//! summary's state moves.

use std::collections::BTreeSet;
use std::path::Path;

use std::sync::Arc;

use gatehouse::model::{ChangeSet, FileContent, Files, RepoIndex, RepoTree, Report, Severity};
use gatehouse::rules;

const ROOT: &str = "fondue/specs/retry-queue";

/// The shared fixture spec, as files under `fondue/specs/<name>/`.
fn shared(name: &str) -> Files {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/gatehouse-core/fixtures/rules/spec/_shared/fondue/specs/retry-queue");
    let mut files = Files::new();
    for rel in gatehouse::source::fs::list(&dir).unwrap() {
        let text = std::fs::read_to_string(dir.join(&rel)).unwrap();
        files.insert(format!("fondue/specs/{name}/{rel}"), FileContent::Text(text.into()));
    }
    files
}

fn set(files: &mut Files, path: &str, text: &str) {
    files.insert(path.to_string(), FileContent::Text(text.into()));
}

fn evaluate(base: Files, head: Files) -> Report {
    rules::evaluate(&ChangeSet { base, head, ..Default::default() })
}

/// (rule, path, line) of every finding of the spec check.
fn fired(report: &Report) -> BTreeSet<(String, String, u32)> {
    report
        .findings()
        .filter(|f| f.rule.starts_with("spec/"))
        .map(|f| (f.rule.to_string(), f.path.clone(), f.span.line))
        .collect()
}

fn has(report: &Report, rule: &str, path: &str, line: u32) -> bool {
    fired(report).contains(&(rule.to_string(), path.to_string(), line))
}

#[test]
fn the_shared_spec_is_valid_and_shows_its_path() {
    let report = evaluate(Files::new(), shared("retry-queue"));
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    let specs = report.checks.iter().find(|c| c.name == "gatehouse/specs").unwrap();
    assert_eq!(specs.documents, 1);
    let details = specs.details.join("\n");
    assert!(details.contains("`fondue/specs/retry-queue`: new → `implementation:02:Review`"), "{details}");
    assert!(details.contains("`brief` → `pre-plan:Draft` → `pre-plan:Review` → `plan:Draft`"), "{details}");
}

#[test]
fn state_file_with_trailing_junk() {
    let mut head = shared("retry-queue");
    set(&mut head, &format!("{ROOT}/current-state.txt"), "implementation:02:Review\nimplementation:02:Answer\n");
    let report = evaluate(Files::new(), head);
    assert!(has(&report, "spec/state-grammar", &format!("{ROOT}/current-state.txt"), 2), "{:?}", fired(&report));
}

#[test]
fn review_without_a_verdict() {
    let mut head = shared("retry-queue");
    set(
        &mut head,
        &format!("{ROOT}/review/pre-plan/03-review.md"),
        "# Review of pre-plan/04-draft.md\n\nLooks fine to me.\n\n",
    );
    let report = evaluate(Files::new(), head);
    let path = format!("{ROOT}/review/pre-plan/03-review.md");
    assert!(has(&report, "spec/verdict", &path, 3), "{:?}", fired(&report));
    // Without the closing verdict, pre-plan's gate has no evidence either.
    assert!(has(&report, "spec/gate-evidence", &format!("{ROOT}/current-state.txt"), 1));
}

#[test]
fn answer_that_skips_a_finding() {
    let mut head = shared("retry-queue");
    let path = format!("{ROOT}/review/pre-plan/02-answer.md");
    set(
        &mut head,
        &path,
        "# Answer\n\n- #2 declined (Nit)\n- #2 declined (Nit)\n\nVerdict: next-round pre-plan/04-draft.md\n",
    );
    let report = evaluate(Files::new(), head);
    let lines: Vec<u32> = report.findings().filter(|f| f.rule == "spec/answer-coverage").map(|f| f.span.line).collect();
    assert_eq!(lines, [4, 6], "{:?}", fired(&report));
}

#[test]
fn declining_a_blocker_is_refused() {
    let mut head = shared("retry-queue");
    let path = format!("{ROOT}/review/pre-plan/02-answer.md");
    set(
        &mut head,
        &path,
        "# Answer\n\n- #1 declined (Nit)\n- #2 declined (Nit)\n\nVerdict: next-round pre-plan/04-draft.md\n",
    );
    let report = evaluate(Files::new(), head);
    assert!(has(&report, "spec/answer-coverage", &path, 3));
}

#[test]
fn jump_from_pre_plan_draft_to_implementation_02() {
    let mut base = Files::new();
    set(&mut base, &format!("{ROOT}/current-state.txt"), "pre-plan:Draft\n");
    set(&mut base, &format!("{ROOT}/roster.md"), "# Roster\n");
    let mut head = Files::new();
    for (p, c) in shared("retry-queue") {
        if !p.contains("/review/") && !p.contains("/plan/") {
            head.insert(p, c);
        }
    }
    set(&mut head, &format!("{ROOT}/current-state.txt"), "implementation:02:Draft\n");
    let report = evaluate(base, head);
    let state = format!("{ROOT}/current-state.txt");
    assert!(has(&report, "spec/gate-evidence", &state, 1), "{:?}", fired(&report));
    assert!(has(&report, "spec/artifact-required", &state, 1));
    let messages: Vec<&str> =
        report.findings().filter(|f| f.rule == "spec/gate-evidence").map(|f| f.message.as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("review/pre-plan/")), "{messages:?}");
}

#[test]
fn several_specs_are_each_checked() {
    let mut head = shared("retry-queue");
    head.extend(shared("billing-export"));
    set(&mut head, "fondue/specs/billing-export/current-state.txt", "implementation:02:Review junk\n");
    set(&mut head, "fondue/specs/retry-queue/landed.md", "attempt-01 implementation starts at nope\n");
    let report = evaluate(Files::new(), head);
    let specs = report.checks.iter().find(|c| c.name == "gatehouse/specs").unwrap();
    assert_eq!(specs.documents, 2);
    assert!(has(&report, "spec/state-grammar", "fondue/specs/billing-export/current-state.txt", 1));
    assert!(has(&report, "spec/landed-format", "fondue/specs/retry-queue/landed.md", 1));
}

#[test]
fn untouched_specs_are_not_checked() {
    let files = shared("retry-queue");
    let report = evaluate(files.clone(), files);
    let specs = report.checks.iter().find(|c| c.name == "gatehouse/specs").unwrap();
    assert_eq!(specs.documents, 0);
}

#[test]
fn landed_sha_outside_history_is_a_warning() {
    let head = shared("retry-queue");
    let history: BTreeSet<String> = ["3f9c2a1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_string()].into();
    let report = rules::evaluate(&ChangeSet { head, history: Some(history), ..Default::default() });
    let found: Vec<_> =
        report.findings().filter(|f| f.rule == "spec/landed-format").map(|f| (f.span.line, f.severity)).collect();
    assert_eq!(found, [(2, Severity::Warning)]);
}

/// The shared spec reopened: the live attempt moved into `attempts/01/`
/// (except the files of `left`), `reopen.md` written, the state `brief`.
fn reopened(base: &Files, left: &[&str]) -> Files {
    let mut head = Files::new();
    for (p, c) in base {
        let rel = &p[ROOT.len() + 1..];
        let live = ["pre-plan/", "plan/", "review/", "audit/"].iter().any(|d| rel.starts_with(d));
        if live && !left.iter().any(|l| rel.starts_with(l)) {
            head.insert(format!("{ROOT}/attempts/01/{rel}"), c.clone());
        } else {
            head.insert(p.clone(), c.clone());
        }
    }
    set(&mut head, &format!("{ROOT}/attempts/01/reopen.md"), "# Reopen\n\nState: implementation:02:Review\n");
    set(&mut head, &format!("{ROOT}/current-state.txt"), "brief\n");
    let roster = head[&format!("{ROOT}/roster.md")].text().unwrap().to_string();
    let reset = ["arch-1", "arev-1", "coder-2", "crev-2"].iter().fold(roster, |r, h| r.replace(h, "-"));
    set(&mut head, &format!("{ROOT}/roster.md"), &reset);
    head
}

#[test]
fn reopen_moves_the_attempt_and_goes_back_to_brief() {
    let base = shared("retry-queue");
    let head = reopened(&base, &[]);
    let report = evaluate(base.clone(), head.clone());
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    // The same move without the attempt folder is an illegal step back.
    let mut bare = base.clone();
    set(&mut bare, &format!("{ROOT}/current-state.txt"), "brief\n");
    let report = evaluate(base, bare);
    assert!(has(&report, "spec/state-transition", &format!("{ROOT}/current-state.txt"), 1));
}

#[test]
fn a_reopen_sets_the_attempt_roles_handles_back_to_unset() {
    let base = shared("retry-queue");
    let mut head = reopened(&base, &[]);
    let roster = format!("{ROOT}/roster.md");
    // The Architect and the Coder keep their handles; the others are reset.
    let text =
        head[&roster].text().unwrap().replace("| high | - |\n| Architecture", "| high | arch-1 |\n| Architecture");
    let text = text.replace("| opus | high | - |\n| Code Reviewer", "| opus | high | coder-2 |\n| Code Reviewer");
    set(&mut head, &roster, &text);
    let report = evaluate(base, head);
    let expected = [("spec/roster".to_string(), roster.clone(), 8), ("spec/roster".to_string(), roster, 10)];
    assert_eq!(fired(&report), expected.into());
}

#[test]
fn a_reopen_moves_every_folder_of_the_attempt() {
    let base = shared("retry-queue");
    let head = reopened(&base, &["plan/"]);
    let report = evaluate(base, head);
    let expected: BTreeSet<_> = ["phase-01.md", "phase-02.md", "plan.md", "research.md"]
        .iter()
        .map(|f| ("spec/attempts".to_string(), format!("{ROOT}/plan/{f}"), 1))
        .collect();
    let attempts: BTreeSet<_> = fired(&report).into_iter().filter(|f| f.0 == "spec/attempts").collect();
    assert_eq!(attempts, expected);
}

#[test]
fn archiving_a_done_spec_and_deleting_one() {
    let mut base = shared("retry-queue");
    set(&mut base, &format!("{ROOT}/current-state.txt"), "handover\n");
    let mut head = Files::new();
    for (p, c) in &base {
        head.insert(p.replace("fondue/specs/", "fondue/specs/archive/"), c.clone());
    }
    set(&mut head, "fondue/specs/archive/retry-queue/current-state.txt", "done\n");
    let report = evaluate(base.clone(), head);
    assert!(!fired(&report).iter().any(|f| f.0 == "spec/archive-state"), "{:?}", fired(&report));
    let report = evaluate(base, Files::new());
    assert!(has(&report, "spec/archive-state", &format!("{ROOT}/current-state.txt"), 1));
}

#[test]
fn the_demo_specs_show_one_valid_folder_and_one_real_finding() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo");
    let changes = gatehouse::source::fs::changeset(&dir, None, None, &[]).unwrap();
    let report = rules::evaluate(&changes);
    let answer = "fondue/specs/search-index/review/pre-plan/02-answer.md".to_string();
    assert_eq!(fired(&report), [("spec/answer-coverage".to_string(), answer, 5)].into());
    let specs = report.checks.iter().find(|c| c.name == "gatehouse/specs").unwrap();
    let details = specs.details.join("\n");
    assert!(details.contains("`fondue/specs/csv-export`: new → `plan:Review`"), "{details}");
    assert!(details.contains("`fondue/specs/search-index`: new → `pre-plan:Review`"), "{details}");
}

/// The shared spec carried on to `audit:fixes:Review`: phase 02 closed, the
/// tests lens ended on `nothing to change`, the conventions lens approved,
/// two audit findings and the audit-fixes request.
fn at_audit_fixes(fixes_request: &str, since: &str) -> Files {
    let mut head = shared("retry-queue");
    let file = |rel: &str| format!("{ROOT}/{rel}");
    let text = |files: &Files, rel: &str| files[&file(rel)].text().unwrap().to_string();
    set(&mut head, &file("current-state.txt"), "audit:fixes:Review\n");
    set(&mut head, &file("review/phase-02/01-review.md"), "# Review\n\nVerdict: approved 8b41d07..c0ffee1\n");
    let landed = text(&head, "landed.md")
        + "attempt-01 phase-02 closed at c0ffee1\nattempt-01 audit-conventions closed at d00d123\n";
    set(&mut head, &file("landed.md"), &landed);
    let stats = text(&head, "stats.md")
        + "| 2026-03-06 | Tests Auditor | opus | audit:tests:Draft | nothing to change | - | 50k | 20m |\n";
    set(&mut head, &file("stats.md"), &stats);
    set(
        &mut head,
        &file("review/audit-conventions/00-request.md"),
        &format!(
            "# Request\n\n- **Subject:** c0ffee1..d00d123\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n- **Since:** {since} - the spec's code\n"
        ),
    );
    set(&mut head, &file("review/audit-conventions/01-review.md"), "# Review\n\nVerdict: approved c0ffee1..d00d123\n");
    set(
        &mut head,
        &file("audit/findings.md"),
        "# Audit findings\n\n## #1 The dead-letter move logs nothing\n\n**Severity:** Nit\n\nNo log line.\n\n**Proposed solution:** log the job id.\n\n## #2 A payload over 1 MB fails the move\n\n**Severity:** Blocker\n\nThe column is `varchar(1048576)`.\n\n**Proposed solution:** use `bytea`.\n",
    );
    set(&mut head, &file("review/audit-fixes/00-request.md"), fixes_request);
    head
}

#[test]
fn audit_fixes_request_answers_every_audit_finding() {
    let full = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n";
    let report = evaluate(Files::new(), at_audit_fixes(full, "3f9c2a1"));
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    let details = report.checks.iter().find(|c| c.name == "gatehouse/specs").unwrap().details.join("\n");
    assert!(details.contains("`audit:tests:Draft` → `audit:conventions:Draft`"), "{details}");

    let partial = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n";
    let report = evaluate(Files::new(), at_audit_fixes(partial, "3f9c2a1"));
    let path = format!("{ROOT}/review/audit-fixes/00-request.md");
    assert_eq!(fired(&report), [("spec/answer-coverage".to_string(), path, 7)].into());
}

#[test]
fn audit_fixes_may_decline_an_audit_finding_recorded_as_blocker() {
    // The Code Reviewer judges an audit finding's severity "whatever the
    // entry records": #2 is recorded as Blocker and declined as a Nit.
    let declined = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 declined (Nit)\n";
    let report = evaluate(Files::new(), at_audit_fixes(declined, "3f9c2a1"));
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
}

#[test]
fn since_is_the_first_landed_sha() {
    let full = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n";
    let report = evaluate(Files::new(), at_audit_fixes(full, "8b41d07"));
    let path = format!("{ROOT}/review/audit-conventions/00-request.md");
    assert_eq!(fired(&report), [("spec/request-fields".to_string(), path, 6)].into());
}

#[test]
fn a_topic_that_ended_on_nothing_to_change_gets_no_landed_line() {
    let request = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n";
    let landed = format!("{ROOT}/landed.md");
    let mut head = at_audit_fixes(request, "3f9c2a1");
    let text = head[&landed].text().unwrap().replace(
        "attempt-01 audit-conventions",
        "attempt-01 audit-tests closed at c0ffee1\nattempt-01 audit-conventions",
    );
    set(&mut head, &landed, &text);
    let report = evaluate(Files::new(), head);
    assert_eq!(fired(&report), [("spec/landed-format".to_string(), landed, 4)].into());
}

#[test]
fn audit_finding_ids_continue_from_the_highest() {
    let request = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n- #3 fixed in e1e1e1e\n";
    let findings = format!("{ROOT}/audit/findings.md");
    let later = "\n## #N Retries are not logged\n\n**Severity:** Nit\n\nNo log line either.\n\n**Proposed solution:** log them.\n";
    let mut head = at_audit_fixes(request, "3f9c2a1");
    let text = head[&findings].text().unwrap().to_string();
    set(&mut head, &findings, &(text.replace("## #2 A payload", "## #3 A payload") + &later.replace("#N", "#2")));
    let report = evaluate(Files::new(), head);
    let expected = [
        ("spec/finding-format".to_string(), findings.clone(), 11),
        ("spec/finding-format".to_string(), findings.clone(), 19),
    ];
    assert_eq!(fired(&report), expected.into());
    let mut head = at_audit_fixes(request, "3f9c2a1");
    set(&mut head, &findings, &(text + &later.replace("#N", "#3")));
    let report = evaluate(Files::new(), head);
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
}

/// The shared spec at `handover`: `audit-fixes` approved and landed.
fn after_audit_fixes(state: &str) -> Files {
    let full = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n";
    let mut head = at_audit_fixes(full, "3f9c2a1");
    set(
        &mut head,
        &format!("{ROOT}/review/audit-fixes/01-review.md"),
        "# Review\n\nVerdict: approved d00d123..e1e1e1e\n",
    );
    let landed =
        head[&format!("{ROOT}/landed.md")].text().unwrap().to_string() + "attempt-01 audit-fixes closed at e1e1e1e\n";
    set(&mut head, &format!("{ROOT}/landed.md"), &landed);
    set(&mut head, &format!("{ROOT}/current-state.txt"), &format!("{state}\n"));
    head
}

/// Evaluates the change with the repository's file listing: the head's
/// files and `extra`.
fn with_listing(base: Files, head: Files, extra: &[&str]) -> Report {
    let mut listing: Vec<String> = head.keys().cloned().collect();
    listing.extend(extra.iter().map(|p| p.to_string()));
    let mut repos = RepoIndex::default();
    repos.insert(gatehouse::model::LOCAL_REPO, None, Arc::new(RepoTree::new(listing)));
    rules::evaluate(&ChangeSet { base, head, repos, ..Default::default() })
}

#[test]
fn handover_update_is_not_skipped_with_a_knowledge_base_or_project_skill() {
    let state = format!("{ROOT}/current-state.txt");
    let gate = ("spec/gate-evidence".to_string(), state.clone(), 1);
    // Neither exists: the state goes straight to `handover`.
    let report = with_listing(Files::new(), after_audit_fixes("handover"), &["README.md", ".claude/settings.json"]);
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    // A project skill exists: the update runs first.
    let report = with_listing(Files::new(), after_audit_fixes("handover"), &[".claude/skills/retry-queue/SKILL.md"]);
    assert_eq!(fired(&report), [gate.clone()].into());
    let help: Vec<&str> = report.findings().filter_map(|f| f.help.as_deref()).collect();
    assert!(help.iter().any(|h| h.contains("so the update runs before `handover`")), "{help:?}");
    // A knowledge base exists (known from the head alone).
    let mut head = after_audit_fixes("handover");
    set(&mut head, "fondue/kb/index.md", "# Knowledge base\n");
    assert_eq!(fired(&evaluate(Files::new(), head)), [gate.clone()].into());
    // Neither is in the repository: the update may still run, since a project
    // may keep `fondue/kb/` out of git.
    let full = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n";
    let base = at_audit_fixes(full, "3f9c2a1");
    let report = with_listing(base, after_audit_fixes("handover:Draft"), &["README.md"]);
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
}

#[test]
fn the_first_pre_plan_review_needs_the_reviewers_research() {
    let mut head = shared("retry-queue");
    head.remove(&format!("{ROOT}/pre-plan/02-reviewer-research.md"));
    let review = format!("{ROOT}/review/pre-plan/01-review.md");
    assert_eq!(fired(&evaluate(Files::new(), head)), [("spec/artifact-required".to_string(), review, 1)].into());
}

#[test]
fn a_finding_moved_to_audit_findings_names_one_that_is_there() {
    let request = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n- #3 fixed in e1e1e1e\n";
    let answer = format!("{ROOT}/review/audit-conventions/02-answer.md");
    let moved_to = |id: u32| {
        let mut head = at_audit_fixes(request, "3f9c2a1");
        set(
            &mut head,
            &format!("{ROOT}/review/audit-conventions/01-review.md"),
            "# Review\n\n## #1 The retry limit is a bare number\n\n**Severity:** Nit\n\nThe rules ask for a named constant.\n\n**Proposed solution:** name it.\n\nVerdict: changes-requested\n",
        );
        set(
            &mut head,
            &answer,
            &format!(
                "# Answer\n\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 accepted, moved to audit/findings.md#{id}\n\nVerdict: closed c0ffee1..d00d123\n"
            ),
        );
        let findings = format!("{ROOT}/audit/findings.md");
        let text = head[&findings].text().unwrap().to_string()
            + "\n## #3 The retry limit is a bare number\n\n**Severity:** Nit\n\nFrom review/audit-conventions/01-review.md#1.\n\n**Proposed solution:** name it.\n";
        set(&mut head, &findings, &text);
        evaluate(Files::new(), head)
    };
    let report = moved_to(3);
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    assert_eq!(fired(&moved_to(4)), [("spec/answer-coverage".to_string(), answer, 6)].into());
}

#[test]
fn further_handover_requests_are_numbered_without_gaps() {
    let with_requests = |names: &[&str]| {
        let mut head = after_audit_fixes("handover");
        for name in names {
            set(&mut head, &format!("{ROOT}/handover/{name}"), "Write a runbook for the dead-letter table, for ops.\n");
        }
        with_listing(Files::new(), head, &["README.md"])
    };
    let report = with_requests(&["00-request.md", "01-request.md"]);
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    let gap = format!("{ROOT}/handover/02-request.md");
    assert_eq!(
        fired(&with_requests(&["00-request.md", "02-request.md"])),
        [("spec/review-numbering".to_string(), gap, 1)].into()
    );
}

#[test]
fn phase_files_are_numbered_from_01_without_gaps() {
    let mut head = shared("retry-queue");
    let text = "# Phase\n\n## Tasks\n\n1. Nothing yet.\n";
    set(&mut head, &format!("{ROOT}/plan/phase-3.md"), text);
    set(&mut head, &format!("{ROOT}/plan/phase-04.md"), text);
    let required: BTreeSet<_> =
        fired(&evaluate(Files::new(), head)).into_iter().filter(|f| f.0 == "spec/artifact-required").collect();
    let expected: BTreeSet<_> = ["phase-3.md", "phase-04.md"]
        .iter()
        .map(|f| ("spec/artifact-required".to_string(), format!("{ROOT}/plan/{f}"), 1))
        .collect();
    assert_eq!(required, expected);
}

#[test]
fn a_local_ruling_moves_reopen_md_into_the_rulings_evidence() {
    let mut base = shared("retry-queue");
    let reopen = format!("{ROOT}/reopen.md");
    set(&mut base, &reopen, "# Reopen\n\nRESULT: the dead-letter move loses payloads over 1 MB.\n");
    let head = shared("retry-queue");
    assert_eq!(fired(&evaluate(base.clone(), head.clone())), [("spec/user-log".to_string(), reopen, 1)].into());
    let mut ruled = head;
    let log = format!("{ROOT}/99-user.md");
    let text = ruled[&log].text().unwrap().to_string()
        + "\n## 2026-03-06 implementation:02:Review\n**Asked:** Reopen, or fix it in phase 02?\n**Ruling:** Local: the Coder fixes it in phase 02.\n**Evidence:** RESULT: the dead-letter move loses payloads over 1 MB.\n";
    set(&mut ruled, &log, &text);
    let report = evaluate(base, ruled);
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
}

/// The shared spec back at `pre-plan:Answer`: the first review asked for
/// changes, and no second draft exists yet.
fn at_pre_plan_answer() -> Files {
    let later =
        ["/plan/", "/review/plan/", "/review/phase-", "/landed.md", "04-draft.md", "02-answer.md", "03-review.md"];
    let mut files: Files =
        shared("retry-queue").into_iter().filter(|(p, _)| !later.iter().any(|l| p.contains(l))).collect();
    set(&mut files, &format!("{ROOT}/current-state.txt"), "pre-plan:Answer\n");
    files
}

/// The Answer turn: the answer naming `draft`, and the draft itself.
fn answered_with(draft: &str) -> Files {
    let mut head = at_pre_plan_answer();
    let draft_text = shared("retry-queue")[&format!("{ROOT}/pre-plan/04-draft.md")].clone();
    head.insert(format!("{ROOT}/pre-plan/{draft}"), draft_text);
    set(
        &mut head,
        &format!("{ROOT}/review/pre-plan/02-answer.md"),
        &format!(
            "# Answer to 01-review.md\n\n- #1 accepted, fixed in pre-plan/{draft}\n- #2 declined (Nit)\n\nVerdict: next-round pre-plan/{draft}\n"
        ),
    );
    set(&mut head, &format!("{ROOT}/current-state.txt"), "pre-plan:Review\n");
    head
}

#[test]
fn a_new_draft_takes_the_next_free_number() {
    let report = evaluate(at_pre_plan_answer(), answered_with("05-draft.md"));
    let immutable: BTreeSet<_> = fired(&report).into_iter().filter(|f| f.0 == "spec/immutable").collect();
    assert_eq!(immutable, [("spec/immutable".to_string(), format!("{ROOT}/pre-plan/05-draft.md"), 1)].into());
    let report = evaluate(at_pre_plan_answer(), answered_with("04-draft.md"));
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
}

#[test]
fn a_phase_file_is_approved_once_plan_has_closed() {
    let base = shared("retry-queue");
    let phase = format!("{ROOT}/plan/phase-02.md");
    let mut head = base.clone();
    let edited = base[&phase].text().unwrap().replace("fifth retry", "third retry");
    set(&mut head, &phase, &edited);
    let report = evaluate(base.clone(), head);
    assert_eq!(fired(&report), [("spec/immutable".to_string(), phase.clone(), 5)].into());
    // During plan's answer turn the Architect edits phase files in place.
    let mut plan_answer = base.clone();
    set(&mut plan_answer, &format!("{ROOT}/current-state.txt"), "plan:Answer\n");
    let mut head = plan_answer.clone();
    set(&mut head, &phase, &edited);
    let report = evaluate(plan_answer, head);
    assert!(!fired(&report).iter().any(|f| f.0 == "spec/immutable"), "{:?}", fired(&report));
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    const FILES: [&str; 10] = [
        "current-state.txt",
        "landed.md",
        "roster.md",
        "stats.md",
        "99-user.md",
        "pre-plan/00-brief.md",
        "plan/plan.md",
        "review/pre-plan/02-answer.md",
        "review/phase-01/01-review.md",
        "audit/findings.md",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "\\PC{0,80}",
            "(implementation:|audit:|pre-plan:|handover|done|[0-9]{1,3}|Draft|Review|:|\n| )*",
            "(## #|[0-9]{1,4}|- #| declined \\(Nit\\)|Verdict: |approved |closed |\\| |\\*\\*Severity:\\*\\* |Nit|\n)*",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any content in any of a spec's files, at the base and the head,
        /// gives findings, never a panic.
        #[test]
        fn arbitrary_spec_files(edits in proptest::collection::vec((0..FILES.len(), text(), any::<bool>()), 1..6)) {
            let base = shared("retry-queue");
            let mut head = base.clone();
            let mut base = base;
            for (i, text, on_base) in edits {
                let target = if on_base { &mut base } else { &mut head };
                set(target, &format!("{ROOT}/{}", FILES[i]), &text);
            }
            let _ = evaluate(base, head);
        }
    }
}

/// The shared spec at `implementation:02:Review` with the phase's first
/// review written, and without the reviewer's pre-plan research its first
/// pre-plan review needed.
fn reviewed_without_reviewer_research() -> Files {
    let mut files = shared("retry-queue");
    files.remove(&format!("{ROOT}/pre-plan/02-reviewer-research.md"));
    set(
        &mut files,
        &format!("{ROOT}/review/phase-02/01-review.md"),
        "# Review\n\n## #1 The retry limit is a bare number\n\n**Severity:** Nit\n\nThe rules ask for a named constant.\n\n**Proposed solution:** name it.\n\nVerdict: changes-requested\n",
    );
    files
}

#[test]
fn a_state_the_base_already_had_is_a_notice_on_a_change_that_only_moves_the_state() {
    let base = reviewed_without_reviewer_research();
    let mut head = base.clone();
    set(&mut head, &format!("{ROOT}/current-state.txt"), "implementation:02:Answer\n");
    let report = evaluate(base, head);
    let review = format!("{ROOT}/review/pre-plan/01-review.md");
    assert_eq!(fired(&report), [("spec/artifact-required".to_string(), review.clone(), 1)].into());
    let finding = report.findings().find(|f| f.path == review).unwrap();
    assert_eq!(finding.severity, Severity::Notice);
    assert_eq!(
        finding.message,
        "predates this change: the first pre-plan review is written, but `pre-plan/02-reviewer-research.md` does not exist"
    );
    assert!(!report.has_errors());
    let specs = report.checks.iter().find(|c| c.name == "gatehouse/specs").unwrap();
    assert_eq!(specs.conclusion, gatehouse::model::Conclusion::Success);
}

#[test]
fn the_change_that_introduces_the_state_is_blocked_by_it() {
    // The review is added while the reviewer's research is missing.
    let mut base = reviewed_without_reviewer_research();
    let review = format!("{ROOT}/review/pre-plan/01-review.md");
    let text = base[&review].text().unwrap().to_string();
    base.remove(&review);
    let mut head = base.clone();
    set(&mut head, &review, &text);
    let report = evaluate(base, head);
    let finding = report.findings().find(|f| f.path == review && f.rule == "spec/artifact-required").unwrap();
    assert_eq!(finding.severity, Severity::Error, "{finding:?}");
    assert!(!finding.message.starts_with("predates"), "{finding:?}");
    // The research file is deleted by the change: the old review's finding
    // is the change's.
    let base = shared("retry-queue");
    let mut head = base.clone();
    head.remove(&format!("{ROOT}/pre-plan/02-reviewer-research.md"));
    let report = evaluate(base, head);
    let finding = report.findings().find(|f| f.path == review && f.rule == "spec/artifact-required").unwrap();
    assert_eq!(finding.severity, Severity::Error, "{finding:?}");
}

#[test]
fn a_moved_finding_names_an_id_appended_for_it() {
    let request = "# Request\n\n- **Subject:** d00d123..e1e1e1e\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n- #1 declined (Nit)\n- #2 fixed in e1e1e1e\n- #3 fixed in e1e1e1e\n";
    let review_rel = format!("{ROOT}/review/audit-conventions/01-review.md");
    let answer = format!("{ROOT}/review/audit-conventions/02-answer.md");
    let findings = format!("{ROOT}/audit/findings.md");
    // The base has the lens review and findings #1 and #2; the change writes
    // the answer (its lines `moves`) and appends #3.
    let change = |moves: &str| {
        let mut base = at_audit_fixes(request, "3f9c2a1");
        set(
            &mut base,
            &review_rel,
            "# Review\n\n## #1 The retry limit is a bare number\n\n**Severity:** Nit\n\nThe rules ask for a named constant.\n\n**Proposed solution:** name it.\n\n## #2 The backoff is not capped\n\n**Severity:** Nit\n\nThe rules cap every wait.\n\n**Proposed solution:** cap it.\n\nVerdict: changes-requested\n",
        );
        let mut head = base.clone();
        set(
            &mut head,
            &answer,
            &format!(
                "# Answer\n\n- **Build:** cargo build - green\n- **Gates:** cargo test - green\n\n{moves}\nVerdict: closed c0ffee1..d00d123\n"
            ),
        );
        let text = head[&findings].text().unwrap().to_string()
            + "\n## #3 The retry limit is a bare number\n\n**Severity:** Nit\n\nFrom review/audit-conventions/01-review.md#1.\n\n**Proposed solution:** name it.\n";
        set(&mut head, &findings, &text);
        evaluate(base, head)
    };
    let messages = |report: &Report| -> Vec<String> {
        report.findings().filter(|f| f.rule == "spec/answer-coverage").map(|f| f.message.clone()).collect()
    };
    let report = change("- #1 accepted, moved to audit/findings.md#3\n- #2 declined (Nit)\n");
    assert!(fired(&report).is_empty(), "{:?}", fired(&report));
    // #2 was a finding before the answer: nothing was appended for the move.
    let report = change("- #1 accepted, moved to audit/findings.md#3\n- #2 accepted, moved to audit/findings.md#2\n");
    assert_eq!(fired(&report), [("spec/answer-coverage".to_string(), answer.clone(), 7)].into());
    assert_eq!(
        messages(&report),
        [
            "#2 is moved to `audit/findings.md#2`, which was there before this answer: a moved finding is appended with a new id"
        ]
    );
    // Two findings moved to the one appended finding.
    let report = change("- #1 accepted, moved to audit/findings.md#3\n- #2 accepted, moved to audit/findings.md#3\n");
    assert_eq!(
        messages(&report),
        [
            "#2 is moved to `audit/findings.md#3`, which `review/audit-conventions/02-answer.md` already moved a finding to"
        ]
    );
}

#[test]
fn a_spec_the_base_had_without_a_state_is_a_notice_on_a_change_to_its_stats() {
    let mut base = shared("retry-queue");
    base.remove(&format!("{ROOT}/current-state.txt"));
    let mut head = base.clone();
    let stats = format!("{ROOT}/stats.md");
    let text = head[&stats].text().unwrap().to_string()
        + "| 2026-03-06 | Code Reviewer | opus | implementation:02:Review | changes-requested | 1 Nit | 20k | 4m |\n";
    set(&mut head, &stats, &text);
    let report = evaluate(base.clone(), head);
    let state = format!("{ROOT}/current-state.txt");
    let missing = report.findings().find(|f| f.rule == "spec/state-missing").unwrap();
    assert_eq!((missing.path.as_str(), missing.severity), (state.as_str(), Severity::Notice), "{missing:?}");
    assert!(missing.message.starts_with("predates this change: "), "{missing:?}");
    assert!(!report.has_errors(), "{:?}", fired(&report));
    // The change that deletes the state file is blocked by it.
    let report = evaluate(shared("retry-queue"), base);
    let missing = report.findings().find(|f| f.rule == "spec/state-missing").unwrap();
    assert_eq!(missing.severity, Severity::Error);
}
