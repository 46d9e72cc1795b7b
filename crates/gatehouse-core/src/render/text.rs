use std::fmt::Write;

use super::{Keep, escape_controls, plural};
use crate::model::{ChangeSet, CheckReport, Conclusion, Finding, Report, Severity};

/// rustc-style diagnostics, then one summary line per check (the config's
/// first). Every path,
/// message and source line has its control characters escaped: each line
/// of the output starts with what gatehouse put there.
pub fn text(report: &Report, changes: &ChangeSet) -> String {
    let mut out = String::new();
    for finding in report.findings() {
        snippet(&mut out, finding, changes);
    }
    for check in &report.checks {
        if !check.details.is_empty() {
            let _ = writeln!(out, "{}:", check.name);
            for block in &check.details {
                for line in for_terminal(block.trim_end()) {
                    let _ = writeln!(out, "{}", details_line(&line));
                }
                out.push('\n');
            }
        }
    }
    for check in &report.checks {
        let conclusion = match check.conclusion {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Neutral => "neutral",
        };
        let _ = writeln!(out, "{:<22} {conclusion:<8} {}", check.name, summary_line(check));
    }
    out
}

/// A check's scope, and its counts when it has findings or checked anything.
pub(super) fn summary_line(check: &CheckReport) -> String {
    let scope = check.scope();
    if !check.evaluated || (check.documents == 0 && check.cites == 0 && check.findings.is_empty()) {
        return scope;
    }
    let counts = [Severity::Error, Severity::Warning, Severity::Notice]
        .iter()
        .map(|s| plural(check.count(*s), s.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    format!("{scope}; {counts}")
}

/// A details block (markdown, as a check run's summary shows it) as a
/// terminal shows it: strong emphasis and headings as plain text, and a GFM
/// table as aligned columns without its pipes and delimiter row.
pub fn for_terminal(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut table: Vec<Vec<String>> = Vec::new();
    for line in block.lines().chain(std::iter::once("")) {
        let trimmed = line.trim();
        if trimmed.starts_with('|') && trimmed.ends_with('|') && trimmed.len() > 1 {
            let cells: Vec<String> = trimmed[1..trimmed.len() - 1].split('|').map(|c| plain(c.trim())).collect();
            let delimiter = cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')));
            if !delimiter {
                table.push(cells);
            }
            continue;
        }
        if !table.is_empty() {
            out.extend(columns(&table));
            table.clear();
        }
        out.push(plain(line));
    }
    out.pop();
    out
}

/// Markdown's strong emphasis (`**x**`) and a heading's `#` marks dropped:
/// a terminal shows the text.
fn plain(text: &str) -> String {
    let marks = text.bytes().take_while(|b| *b == b'#').count();
    let text = if (1..=6).contains(&marks) && text[marks..].starts_with(' ') { &text[marks + 1..] } else { text };
    // Outside code spans only, and only a `**` that opens emphasis (at the
    // start, or after a space or `(`, before a non-space) with its closing
    // one: a glob's `**` is text.
    let mut out = String::with_capacity(text.len());
    for (n, part) in text.split('`').enumerate() {
        if n > 0 {
            out.push('`');
        }
        if n % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let mut rest = part;
        while let Some(at) = rest.find("**") {
            let before = rest[..at].chars().next_back();
            let after = rest[at + 2..].chars().next();
            let opens = matches!(before, None | Some(' ' | '(')) && after.is_some_and(|c| c != ' ');
            let close = opens.then(|| rest[at + 2..].find("**")).flatten().map(|c| at + 2 + c);
            match close.filter(|&c| !rest[..c].ends_with(' ')) {
                Some(close) => {
                    out.push_str(&rest[..at]);
                    out.push_str(&rest[at + 2..close]);
                    rest = &rest[close + 2..];
                }
                None => {
                    out.push_str(&rest[..at + 2]);
                    rest = &rest[at + 2..];
                }
            }
        }
        out.push_str(rest);
    }
    out
}

/// Rows of cells, each column as wide as its widest cell.
fn columns(rows: &[Vec<String>]) -> Vec<String> {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count)
        .map(|i| rows.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).max().unwrap_or(0))
        .collect();
    rows.iter()
        .map(|row| {
            let cells = row.iter().enumerate().map(|(i, c)| format!("{c:<w$}", w = widths[i]));
            cells.collect::<Vec<_>>().join("  ").trim_end().to_string()
        })
        .collect()
}

/// A line of a check's details: file names and document values end up in
/// those, and a newline among them starts a line of their own, so a line
/// that would read as a GitHub workflow command (`::error …`) has its first
/// colon escaped, and control characters are escaped.
fn details_line(line: &str) -> String {
    let line = escape_controls(line, Keep::LinesAndTabs);
    let indent = line.len() - line.trim_start().len();
    if line[indent..].starts_with("::") {
        format!("{}\\{}", &line[..indent], &line[indent..])
    } else {
        line.into_owned()
    }
}

/// Findings alone, each with its source line, as `text` prints them.
pub fn findings<'f>(findings: impl IntoIterator<Item = &'f Finding>, changes: &ChangeSet) -> String {
    let mut out = String::new();
    for finding in findings {
        snippet(&mut out, finding, changes);
    }
    out
}

/// How a tab is shown in a source line.
const TAB: &str = "    ";

/// Where a caret starts and how wide it is on the shown line, for a span of
/// `width` characters after the first `skip`: a tab is shown as [`TAB`], so
/// a caret under one covers all of it.
fn caret_columns(source: &str, skip: u32, width: u32) -> (usize, usize) {
    let shown: Vec<usize> = source.chars().map(|c| if c == '\t' { TAB.len() } else { 1 }).collect();
    let at = |i: usize| shown.get(i).copied().unwrap_or(1);
    let (skip, width) = (skip as usize, width as usize);
    ((0..skip).map(at).sum(), (skip..skip + width).map(at).sum::<usize>().max(1))
}

fn snippet(out: &mut String, f: &Finding, changes: &ChangeSet) {
    let _ = writeln!(out, "{}[{}]: {}", f.severity.as_str(), f.rule, escape_controls(&f.message, Keep::Nothing));
    let line = f.span.line;
    let col = f.span.col.max(1);
    let source = changes.head.get(&f.path).and_then(|c| c.text()).and_then(|t| t.lines().nth(line as usize - 1));
    let gutter = line.to_string().len();
    let pad = " ".repeat(gutter);
    let _ = writeln!(out, "{pad}--> {}:{line}:{col}", escape_controls(&f.path, Keep::Nothing));
    if let Some(source) = source {
        let expanded = source.replace('\t', TAB);
        let shown = escape_controls(&expanded, Keep::Nothing);
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{line} | {shown}");
        if f.span.col > 0 {
            let width = if f.span.end_line == f.span.line && f.span.end_col > f.span.col {
                f.span.end_col - f.span.col
            } else {
                1
            };
            let (before, under) = caret_columns(source, col - 1, width);
            let _ = writeln!(out, "{pad} | {}{}", " ".repeat(before), "^".repeat(under));
        } else if f.span.end_line > f.span.line {
            let _ = writeln!(out, "{pad} | ... through line {}", f.span.end_line);
        }
    }
    if let Some(help) = &f.help {
        let _ = writeln!(out, "{pad} = help: {}", escape_controls(help, Keep::Nothing));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::{caret_columns, for_terminal};

    #[test]
    fn details_read_as_plain_text_and_aligned_columns() {
        let block = "**Tally** `g.md`\n\n| Section | Totals |\n|---|:---:|\n| dry-run | **A** +7.5 · B +0.5 |\n| r | A +11 |\n\nafter";
        assert_eq!(
            for_terminal(block),
            ["Tally `g.md`", "", "Section  Totals", "dry-run  A +7.5 · B +0.5", "r        A +11", "", "after"]
        );
    }

    #[test]
    fn headings_lose_their_marks_and_globs_keep_their_stars() {
        let block = "### Fix these first\n**2 errors** under docs/adr/**/*.md and `a/**/b`\n#5 stays";
        assert_eq!(
            for_terminal(block),
            ["Fix these first", "2 errors under docs/adr/**/*.md and `a/**/b`", "#5 stays"]
        );
    }

    #[test]
    fn carets_line_up_with_tabs_shown_as_spaces() {
        // `agent:<tab>X`: the tab is the 7th character and shown 4 wide.
        assert_eq!(caret_columns("agent:\tX", 6, 1), (6, 4));
        assert_eq!(caret_columns("agent:\tX", 7, 1), (10, 1));
        assert_eq!(caret_columns("\tkey: [a", 0, 1), (0, 4));
        assert_eq!(caret_columns("ab", 1, 5), (1, 5));
    }
}
