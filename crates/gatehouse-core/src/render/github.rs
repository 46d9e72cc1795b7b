use std::fmt::Write;

use super::{Keep, escape_controls};
use crate::model::{PR_BODY, Report, Severity};

/// GitHub Actions workflow commands: one annotation per finding. Control
/// characters in paths and messages are escaped, newlines percent-encoded
/// as the grammar asks, so every command stays on its line and nothing
/// reaches the log raw.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for f in report.findings() {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        };
        let mut props = String::new();
        let mut message = plain(&f.message);
        if f.path == PR_BODY {
            // The pull request's body is no file: the annotation names no
            // file, and its message says where.
            message = format!("in the pull request body, line {}: {message}", f.span.line);
        } else {
            let _ = write!(
                props,
                "file={},line={},endLine={},",
                property(&plain(&f.path)),
                f.span.line,
                f.span.end_line.max(f.span.line)
            );
            if f.span.col > 0 && f.span.end_line == f.span.line {
                let _ = write!(props, "col={},endColumn={},", f.span.col, f.span.end_col.max(f.span.col + 1));
            }
        }
        let _ = write!(props, "title={}", property(f.rule));
        if let Some(help) = &f.help {
            message = format!("{message}\nhelp: {}", plain(help));
        }
        let _ = writeln!(out, "::{command} {props}::{}", data(&message));
    }
    out
}

/// A field with its control characters escaped but for newlines and tabs,
/// which [`data`] encodes or the log shows as they are.
fn plain(s: &str) -> String {
    escape_controls(s, Keep::LinesAndTabs).into_owned()
}

/// Escapes a workflow command's message.
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_the_workflow_command_grammar() {
        assert_eq!(data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
