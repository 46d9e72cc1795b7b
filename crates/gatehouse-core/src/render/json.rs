use serde::Serialize;

use crate::model::{Check, Conclusion, Finding, Fix, Report, Severity};

/// The `--format json` document. Its shape is a public interface for agents:
/// fields are added, never renamed.
#[derive(Serialize)]
struct Output<'a> {
    version: u32,
    /// `failure` when any check fails, else `success`.
    conclusion: &'static str,
    checks: Vec<CheckOut<'a>>,
    findings: Vec<FindingOut<'a>>,
}

#[derive(Serialize)]
struct CheckOut<'a> {
    name: &'static str,
    conclusion: Conclusion,
    /// What the check looked at, in one line ([`crate::model::CheckReport::scope`]).
    summary: String,
    documents: usize,
    errors: usize,
    warnings: usize,
    notices: usize,
    details: &'a [String],
}

/// A finding as every command's JSON shows it (`check`, `new brief`): one
/// shape, `$defs/finding` of `gatehouse schema report`.
#[derive(Serialize)]
pub struct FindingOut<'a> {
    rule: &'static str,
    severity: Severity,
    /// The check run the finding belongs to (`gatehouse/config` for the
    /// repo config's).
    check: &'static str,
    path: &'a str,
    line: u32,
    column: Option<u32>,
    end_line: u32,
    end_column: Option<u32>,
    message: &'a str,
    help: Option<&'a str>,
    fingerprint: &'a str,
    /// A verified fix: `{message, edits: [{path, start, end, replacement}]}`,
    /// byte offsets in the head text; absent when none is offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<&'a Fix>,
}

/// `f` in the one JSON shape; `check` is the check run it belongs to.
pub fn finding<'a>(f: &'a Finding, check: Check) -> FindingOut<'a> {
    FindingOut {
        rule: f.rule,
        severity: f.severity,
        check: check.name(),
        path: &f.path,
        line: f.span.line,
        column: (f.span.col > 0).then_some(f.span.col),
        end_line: f.span.end_line,
        end_column: (f.span.end_col > 0).then_some(f.span.end_col),
        message: &f.message,
        help: f.help.as_deref(),
        fingerprint: &f.fingerprint,
        fix: f.fix.as_ref(),
    }
}

pub fn json(report: &Report) -> String {
    let checks = report
        .checks
        .iter()
        .map(|c| CheckOut {
            name: c.name,
            conclusion: c.conclusion,
            summary: c.scope(),
            documents: c.documents,
            errors: c.count(Severity::Error),
            warnings: c.count(Severity::Warning),
            notices: c.count(Severity::Notice),
            details: &c.details,
        })
        .collect();
    let findings = report.checks.iter().flat_map(|c| c.findings.iter().map(move |f| finding(f, c.check))).collect();
    let output =
        Output { version: 1, conclusion: if report.has_errors() { "failure" } else { "success" }, checks, findings };
    serde_json::to_string_pretty(&output).expect("plain data serializes")
}
