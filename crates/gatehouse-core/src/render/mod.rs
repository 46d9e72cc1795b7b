//! Turning a Report into what people and tools read: rustc-style text, JSON
//! for agents, SARIF for code-scanning tools, GitHub workflow commands,
//! markdown for a file that asks for it.

mod github;
mod json;
mod markdown;
mod sarif;
mod text;

pub use github::github;
pub use json::{FindingOut, finding as finding_json, json};
pub use markdown::markdown;
pub use sarif::sarif;
pub use text::{findings as text_findings, for_terminal as markdown_for_terminal, text};

/// `n` and `noun`, with an `s` unless `n` is 1: `1 finding`, `3 findings`.
/// The one pluralising helper of every output (text, check-run summaries,
/// the site).
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// A size as an author reads it: `512 bytes`, `4 KiB`, `1.5 MiB`, `1 GiB`
/// (binary units, one decimal unless whole).
pub fn size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    let Some(&(unit, name)) = UNITS.iter().find(|(unit, _)| bytes >= *unit) else {
        return plural(bytes as usize, "byte");
    };
    let tenths = (bytes * 10 + unit / 2) / unit;
    match tenths % 10 {
        0 => format!("{} {name}", tenths / 10),
        d => format!("{}.{d} {name}", tenths / 10),
    }
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
    Markdown,
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

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(1023), "1023 bytes");
        assert_eq!(size(1024), "1 KiB");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size((1 << 20) + 1), "1 MiB");
        assert_eq!(size(50 << 20), "50 MiB");
        assert_eq!(size(1_610_612_736), "1.5 GiB");
    }
}
