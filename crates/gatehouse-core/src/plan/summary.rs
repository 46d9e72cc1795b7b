//! Check-run titles and summaries, written for the PR author first: what
//! failed, what to fix first, then the family's own blocks (tally tables,
//! state moves). Markdown, within GitHub's limits.

use crate::config::{CONFIG_PATH, REVIEW_EXAMPLE};
use crate::gate::{Applicability, Outcome};
use crate::model::{Check, CheckReport, Conclusion, Finding, PR_BODY, Severity};
use crate::render::plural;

/// GitHub's limit on `output.summary` and `output.text`, in characters.
pub const SUMMARY_LIMIT: usize = 65535;
/// Errors listed under "Fix these first".
const FIX_FIRST: usize = 10;

/// What one check run shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOutput {
    pub name: String,
    pub conclusion: &'static str,
    pub title: String,
    pub summary: String,
}

fn counts(findings: &[&Finding]) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let mut parts = Vec::new();
    for severity in [Severity::Error, Severity::Warning, Severity::Notice] {
        let n = count(severity);
        if n > 0 {
            parts.push(plural(n, severity.as_str()));
        }
    }
    if parts.is_empty() { "no findings".into() } else { parts.join(", ") }
}

/// The output of one check: the config's or a family's.
pub fn render(check: &CheckReport) -> CheckOutput {
    let noun = check.check.noun();
    let findings: Vec<&Finding> = check.findings.iter().collect();
    let (conclusion, title) = match check.conclusion {
        Conclusion::Neutral if !check.evaluated => ("neutral", "Not evaluated: the config is invalid".to_string()),
        Conclusion::Neutral if check.check == Check::Config => ("neutral", "The config is unchanged".to_string()),
        Conclusion::Neutral => ("neutral", format!("No {noun} changed")),
        Conclusion::Success if check.check == Check::Config => {
            ("success", format!("The config is valid ({})", counts(&findings)))
        }
        Conclusion::Success => ("success", format!("{} ({})", passing(check), counts(&findings))),
        Conclusion::Failure => ("failure", counts(&findings)),
    };
    let mut summary = String::new();
    match check.conclusion {
        Conclusion::Neutral if !check.evaluated => summary.push_str(&format!(
            "**Not evaluated: the config is invalid.** `{CONFIG_PATH}` has errors (the `{}` check lists them), so \
             the {noun} of this pull request would be read by a config the team did not write. Fix the config, and \
             the next push evaluates them.\n",
            Check::Config.name()
        )),
        Conclusion::Neutral if check.check == Check::Config => summary.push_str(&format!(
            "This pull request does not change `{CONFIG_PATH}`: the checks use the base branch's config.\n"
        )),
        Conclusion::Neutral => summary.push_str(&format!("This pull request changes no {noun}: nothing to check.\n")),
        Conclusion::Success => {
            let what = match check.check {
                Check::Config => format!(
                    "`{CONFIG_PATH}` is valid.** This pull request changes it; pull requests are evaluated by the \
                     base branch's config, so the change applies once it is merged."
                ),
                _ => format!("{}.**", passing(check)),
            };
            summary.push_str(&format!(
                "**{what} {}\n",
                if findings.is_empty() {
                    "Nothing to fix.".to_string()
                } else {
                    format!("Non-blocking: {}.", counts(&findings))
                }
            ))
        }
        Conclusion::Failure => {
            let errors: Vec<&&Finding> = findings.iter().filter(|f| f.severity == Severity::Error).collect();
            let place = match (check.check, check.documents) {
                (Check::Config, _) => {
                    format!(
                        "in `{CONFIG_PATH}`; until the config is valid, the other gatehouse checks are not evaluated"
                    )
                }
                (_, 0) => "in the pull request body".to_string(),
                (_, n) => format!("in {}", plural(n, noun_one(noun))),
            };
            summary.push_str(&format!(
                "**{} {} the merge** {place}.\n\n### Fix these first\n\n",
                plural(errors.len(), "error"),
                if errors.len() == 1 { "blocks" } else { "block" },
            ));
            for (n, f) in errors.iter().take(FIX_FIRST).enumerate() {
                let (path, line, rule) = (&f.path, f.span.line, f.rule);
                summary.push_str(&format!("{}. `{path}:{line}` {} (`{rule}`)\n", n + 1, one_line(&f.message)));
                if let Some(help) = &f.help {
                    summary.push_str(&format!("   — {}\n", one_line(help)));
                }
            }
            if errors.len() > FIX_FIRST {
                summary.push_str(&format!("\n…and {} more: see the annotations.\n", errors.len() - FIX_FIRST));
            }
        }
    }
    let on_body: Vec<&&Finding> = findings.iter().filter(|f| f.path == PR_BODY).collect();
    if !on_body.is_empty() {
        summary.push_str("\n### In the pull request body\n\n");
        for f in on_body {
            summary.push_str(&format!("- **{}** {} (`{}`)\n", f.severity.as_str(), one_line(&f.message), f.rule));
            if let Some(help) = &f.help {
                summary.push_str(&format!("  — {}\n", one_line(help)));
            }
        }
    }
    for block in &check.details {
        summary.push('\n');
        summary.push_str(block);
        summary.push('\n');
    }
    let fixable = findings.iter().filter(|f| f.fix.is_some()).count();
    if fixable > 0 {
        summary.push_str(&format!(
            "\n**{} can be fixed with a click**: apply the suggestion in its review comment (where its lines are in \
             the diff), or run `gatehouse check --fix` to apply every one. gatehouse applied each fix and ran its rules \
             again before offering it.\n",
            plural(fixable, "finding")
        ));
    }
    if !findings.is_empty() {
        summary.push_str(&format!(
            "\nEvery finding in a file is annotated on its line ({}). Run `gatehouse check` locally to see the same report; \
             `gatehouse explain <rule>` says why a rule exists and how to satisfy it.\n",
            counts(&findings)
        ));
    }
    CheckOutput { name: check.name.to_string(), conclusion, title, summary: fit(summary) }
}

/// The review gate's check run.
pub const REVIEW_CHECK: &str = "gatehouse/review";
/// The heading of the review gate's reasons in its summary; the App's
/// reminders and comment answers read the summary up to or from it.
pub const GATE_REASONS: &str = "**Why the gate applies**";

/// The review gate's output: neutral where the gate does not apply (saying
/// why), else the policy's verdict with exactly what is still missing.
pub fn review_gate(applicability: &Applicability, outcome: Option<&Outcome>) -> CheckOutput {
    let reasons: String = applicability.reasons.iter().map(|r| format!("- {r}\n")).collect();
    let (conclusion, title, summary) = match outcome {
        Some(outcome) if applicability.applies => {
            let title = if outcome.passed {
                "Review gate passed".to_string()
            } else {
                format!("Review gate: {} still missing", plural(outcome.missing.len(), "item"))
            };
            let conclusion = if outcome.passed { "success" } else { "failure" };
            (conclusion, title, format!("{}\n\n{GATE_REASONS}\n\n{reasons}", outcome.summary().trim_end()))
        }
        _ => (
            "neutral",
            "Review gate does not apply".to_string(),
            format!("The review gate does not apply:\n\n{reasons}"),
        ),
    };
    CheckOutput { name: REVIEW_CHECK.into(), conclusion, title, summary: fit(summary) }
}

/// The review gate where it applies but the repository's config has no
/// `review:` policy: neutral, requiring and requesting nobody, with the lines
/// that configure one.
pub fn review_gate_unconfigured(applicability: &Applicability) -> CheckOutput {
    let reasons: String = applicability.reasons.iter().map(|r| format!("- {r}\n")).collect();
    let summary = format!(
        "**The review gate is not configured.** This pull request has changes the review gate covers, but \
         `{CONFIG_PATH}` on the base branch has no `review:` policy, so gatehouse requires no approval and \
         requests no review.\n\n**Why the gate would apply**\n\n{reasons}\n\
         To gate these changes on the team's approvals, add a policy with your reviewers' GitHub logins to \
         `{CONFIG_PATH}` on the default branch (`gatehouse init` writes one):\n\n```yaml\n{REVIEW_EXAMPLE}```\n"
    );
    CheckOutput {
        name: REVIEW_CHECK.into(),
        conclusion: "neutral",
        title: "Review gate not configured".into(),
        summary: fit(summary),
    }
}

/// Every check when the PR could not be read whole: fail closed, say why.
pub fn fail_closed(name: &str, reason: &str) -> CheckOutput {
    CheckOutput {
        name: name.to_string(),
        conclusion: "failure",
        title: "Cannot evaluate this pull request".into(),
        summary: fit(format!(
            "**gatehouse could not evaluate this pull request**, so this check fails closed.\n\n{reason}\n"
        )),
    }
}

/// A run whose job failed for good (GitHub refused a call, or stayed
/// unreachable past the retry deadline): nothing was decided about the
/// documents, and the Re-run button tries again.
pub fn job_failed(name: &str, error: &str) -> CheckOutput {
    CheckOutput {
        name: name.to_string(),
        conclusion: "failure",
        title: "gatehouse could not finish this check".into(),
        summary: fit(format!(
            "**gatehouse could not finish evaluating this pull request**, so this check fails closed; nothing \
             was decided about its documents.\n\nWhat went wrong: {error}\n\nPress **Re-run** on this check (or \
             push a new commit) to evaluate the pull request again.\n"
        )),
    }
}

/// What passed: "1 agent brief passes", "3 agent briefs pass", "1 cite in
/// the pull request body passes" (a check that read only the body's cites).
fn passing(check: &CheckReport) -> String {
    let noun = check.check.noun();
    match (check.documents, check.cites) {
        (0, 1) => "1 cite in the pull request body passes".to_string(),
        (0, n) => format!("{n} cites in the pull request body pass"),
        (1, _) => format!("1 {} passes", noun_one(noun)),
        (n, _) => format!("{n} {noun} pass"),
    }
}

fn noun_one(noun: &str) -> &str {
    match noun {
        "agent briefs" => "agent brief",
        "voting docs" => "voting doc",
        "spec folders" => "spec folder",
        "decision manifests" => "decision manifest",
        "repo configs" => "repo config",
        other => other,
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts a summary to GitHub's limit, saying so.
pub fn fit(summary: String) -> String {
    if summary.chars().count() <= SUMMARY_LIMIT {
        return summary;
    }
    let note =
        "\n\n…the summary was cut here to fit GitHub's 65,535-character limit; the annotations list every finding.\n";
    let keep = SUMMARY_LIMIT - note.chars().count();
    let mut out: String = summary.chars().take(keep).collect();
    out.push_str(note);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Span;

    fn finding(rule: &'static str, severity: Severity, line: u32) -> Finding {
        Finding {
            rule,
            severity,
            path: "dark-factory/briefs/SWARM-AR-backup.md".into(),
            span: Span::line(line),
            message: "`ADR-095` is cited but no ADR with that id exists".into(),
            help: Some("cite an existing ADR".into()),
            fingerprint: "00".into(),
            fix: None,
        }
    }

    #[test]
    fn failure_summary_leads_with_what_to_fix() {
        let check = CheckReport {
            check: Check::Briefs,
            name: "gatehouse/briefs",
            conclusion: Conclusion::Failure,
            documents: 2,
            cites: 0,
            evaluated: true,
            details: vec![],
            findings: vec![
                finding("brief/adr-missing", Severity::Error, 4),
                finding("brief/out-of-scope-empty", Severity::Warning, 9),
            ],
        };
        let out = render(&check);
        assert_eq!(out.conclusion, "failure");
        assert_eq!(out.title, "1 error, 1 warning");
        insta::assert_snapshot!(out.summary);
    }

    #[test]
    fn counts_agree_with_their_nouns_and_verbs() {
        let check = CheckReport {
            check: Check::Voting,
            name: "gatehouse/voting",
            conclusion: Conclusion::Failure,
            documents: 1,
            cites: 0,
            evaluated: true,
            details: vec![],
            findings: vec![
                finding("voting/tally", Severity::Error, 4),
                finding("voting/tally", Severity::Error, 5),
                finding("voting/tally", Severity::Notice, 6),
            ],
        };
        let out = render(&check);
        assert_eq!(out.title, "2 errors, 1 notice");
        assert!(out.summary.starts_with("**2 errors block the merge** in 1 voting doc.\n"), "{}", out.summary);
    }

    #[test]
    fn a_check_says_what_it_looked_at() {
        let check = |family: Check, conclusion, documents, cites, evaluated, findings| CheckReport {
            check: family,
            name: family.name(),
            conclusion,
            documents,
            cites,
            evaluated,
            details: vec![],
            findings,
        };
        let skipped = render(&check(Check::Voting, Conclusion::Neutral, 0, 0, false, vec![]));
        assert_eq!((skipped.conclusion, skipped.title.as_str()), ("neutral", "Not evaluated: the config is invalid"));
        assert!(skipped.summary.starts_with("**Not evaluated: the config is invalid.**"), "{}", skipped.summary);
        let mut on_body = finding("cite/brief", Severity::Error, 3);
        on_body.path = PR_BODY.into();
        let cite = render(&check(Check::Briefs, Conclusion::Failure, 0, 1, true, vec![on_body]));
        assert!(
            cite.summary.starts_with("**1 error blocks the merge** in the pull request body.\n"),
            "{}",
            cite.summary
        );
        let passed = render(&check(Check::Briefs, Conclusion::Success, 0, 2, true, vec![]));
        assert_eq!(passed.title, "2 cites in the pull request body pass (no findings)");
        let untouched = render(&check(Check::Config, Conclusion::Neutral, 0, 0, true, vec![]));
        assert_eq!(untouched.title, "The config is unchanged");
    }

    #[test]
    fn the_review_gate_lists_what_is_missing_and_why_it_applies() {
        let policy = crate::config::ReviewConfig {
            core_reviewers: vec!["gyrum-marcus".into(), "gyrum-priya".into(), "gyrum-lin".into()],
            advisory: vec!["gyrum-dana".into()],
            ..Default::default()
        };
        let reviews = vec![crate::gate::Review {
            login: "gyrum-marcus".into(),
            state: crate::gate::ReviewState::Approved,
            commit: Some("abc1234def".into()),
            submitted_at: Some("2026-11-29T10:00:00Z".into()),
        }];
        let outcome = crate::gate::evaluate(&policy, &reviews, &["author".into()], "abc1234def");
        let applies = Applicability {
            applies: true,
            reasons: vec!["`dark-factory/briefs/SWARM-AR-pg-backup.md`: lines_estimate 400 > 100".into()],
            documents: vec!["dark-factory/briefs/SWARM-AR-pg-backup.md".into()],
        };
        let out = review_gate(&applies, Some(&outcome));
        assert_eq!((out.conclusion, out.title.as_str()), ("failure", "Review gate: 2 items still missing"));
        insta::assert_snapshot!(out.summary);
        let exempt = Applicability {
            applies: false,
            reasons: vec!["brief under threshold: operator's call".into()],
            documents: vec![],
        };
        assert_eq!(review_gate(&exempt, None).conclusion, "neutral");
        let unconfigured = review_gate_unconfigured(&applies);
        assert_eq!((unconfigured.conclusion, unconfigured.title.as_str()), ("neutral", "Review gate not configured"));
        insta::assert_snapshot!(unconfigured.summary);
    }

    #[test]
    fn long_summaries_are_cut_with_a_note() {
        let cut = fit("x".repeat(SUMMARY_LIMIT + 10));
        assert_eq!(cut.chars().count(), SUMMARY_LIMIT);
        assert!(cut.ends_with("list every finding.\n"));
    }
}
