//! Turning a Report into what people and tools read: rustc-style text, JSON
//! for agents, SARIF for code-scanning tools, GitHub workflow commands.

mod github;
mod json;
mod sarif;
mod text;

pub use github::github;
pub use json::{FindingOut, finding as finding_json, json};
pub use sarif::sarif;
pub use text::{findings as text_findings, text};

/// `n` and `noun`, with an `s` unless `n` is 1: `1 finding`, `3 findings`.
/// The one pluralising helper of every output (text, check-run summaries,
/// the site).
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// Which control characters [`escape_controls`] leaves as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// None: for a single field (a path, a source line), where a newline
    /// could start a line of its own.
    Nothing,
    /// Newlines and tabs: for a whole report, laid out in lines.
    LinesAndTabs,
}

/// `s` with its control characters (C0, DEL, C1) written as Rust escapes
/// (`\n`, `\u{1b}`), so a file name or a document cannot start lines of its
/// own (a forged `::error` command) or send escape sequences to a terminal.
pub fn escape_controls(s: &str, keep: Keep) -> std::borrow::Cow<'_, str> {
    let kept = |c: char| keep == Keep::LinesAndTabs && (c == '\n' || c == '\t');
    if !s.chars().any(|c| c.is_control() && !kept(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() && !kept(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The output formats of `gatehouse check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("a\n::error x\u{1b}[31m\u{9b}", Keep::Nothing), "a\\n::error x\\u{1b}[31m\\u{9b}");
        assert_eq!(escape_controls("a\tb\nc\rd", Keep::LinesAndTabs), "a\tb\nc\\rd");
        assert!(matches!(escape_controls("plain — text", Keep::Nothing), std::borrow::Cow::Borrowed(_)));
    }
}
