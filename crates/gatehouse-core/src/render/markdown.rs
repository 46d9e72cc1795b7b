//! Markdown, for a file that asks for it (`gatehouse check --format
//! markdown >> "$GITHUB_STEP_SUMMARY"`, a pull request comment): a table of
//! the checks, then each check's findings and the blocks its summary carries
//! (tallies, state moves), as a check run's summary shows them.

use std::fmt::Write;

use super::text::summary_line;
use super::{Keep, escape_controls};
use crate::model::{Conclusion, Report};

pub fn markdown(report: &Report) -> String {
    let clean = |s: &str| escape_controls(s, Keep::Nothing).into_owned();
    let mut out = String::from("| Check | Conclusion | Summary |\n|---|---|---|\n");
    for check in &report.checks {
        let conclusion = match check.conclusion {
            Conclusion::Success => "success",
            Conclusion::Failure => "**failure**",
            Conclusion::Neutral => "neutral",
        };
        let summary = clean(&summary_line(check)).replace('|', "\\|");
        let _ = writeln!(out, "| `{}` | {conclusion} | {summary} |", check.name);
    }
    for check in &report.checks {
        if check.findings.is_empty() && check.details.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### `{}`\n", check.name);
        for f in &check.findings {
            let _ = write!(
                out,
                "- **{}** `{}` `{}:{}`: {}",
                f.severity.as_str(),
                f.rule,
                clean(&f.path),
                f.span.line,
                clean(&f.message)
            );
            if let Some(help) = &f.help {
                let _ = write!(out, " — {}", clean(help));
            }
            out.push('\n');
        }
        for block in &check.details {
            out.push('\n');
            out.push_str(&escape_controls(block.trim_end(), Keep::LinesAndTabs));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Check, CheckReport, Finding, Severity, Span};

    #[test]
    fn checks_findings_and_details_are_markdown() {
        let finding = Finding {
            rule: "brief/field-type",
            severity: Severity::Error,
            path: "a.md".into(),
            span: Span::line(8),
            message: "`x` is |bad|".into(),
            help: Some("write `x: 1`".into()),
            fingerprint: String::new(),
            fix: None,
        };
        let report = Report {
            checks: vec![CheckReport {
                check: Check::Briefs,
                name: "gatehouse/briefs",
                conclusion: Conclusion::Failure,
                documents: 1,
                cites: 0,
                evaluated: true,
                details: vec!["| Brief | Agent |\n|---|---|\n| `a.md` | SWARM-A |\n".into()],
                findings: vec![finding],
            }],
        };
        let out = markdown(&report);
        assert!(out.starts_with("| Check | Conclusion | Summary |\n|---|---|---|\n| `gatehouse/briefs` | **failure** | 1 document checked; 1 error"), "{out}");
        assert!(
            out.contains(
                "\n### `gatehouse/briefs`\n\n- **error** `brief/field-type` `a.md:8`: `x` is |bad| — write `x: 1`\n"
            ),
            "{out}"
        );
        assert!(out.contains("\n| Brief | Agent |\n|---|---|\n| `a.md` | SWARM-A |\n"), "{out}");
    }
}
