//! Architecture decision records: ids, status, successor, and their text for
//! quote matching.

/// One ADR as the brief rules need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adr {
    /// The ADR number: `ADR-099` and `ADR-99` are both 99.
    pub number: u32,
    pub path: String,
    /// The `Status:` word, lower-cased (`accepted`, `superseded`, `rejected`).
    pub status: Option<String>,
    /// The number in `Superseded by: ADR-NNN`, when one is named.
    pub superseded_by: Option<u32>,
    /// The text with whitespace folded and emphasis stripped, for quote matching.
    pub folded: String,
}

impl Adr {
    /// Reads an ADR; `None` when neither its file name nor its first heading
    /// carries an `ADR-<digits>` id.
    pub fn parse(path: &str, text: &str) -> Option<Adr> {
        let file = path.rsplit('/').next().unwrap_or(path);
        let number = file
            .strip_prefix("ADR-")
            .and_then(leading_number)
            .or_else(|| first_heading(text).and_then(|h| mentions(h).first().map(|m| m.number)))?;
        let mut status = None;
        let mut superseded_by = None;
        for line in text.lines() {
            let plain = strip_emphasis(line);
            if status.is_none()
                && let Some(rest) = after_label(&plain, "Status:")
            {
                status = rest
                    .split(|c: char| !c.is_alphanumeric() && c != '-')
                    .find(|w| !w.is_empty())
                    .map(str::to_ascii_lowercase);
            }
            if superseded_by.is_none()
                && let Some(rest) = after_label(&plain, "Superseded by:")
            {
                superseded_by = mentions(rest).first().map(|m| m.number);
            }
        }
        Some(Adr { number, path: path.to_string(), status, superseded_by, folded: fold(text) })
    }

    /// Superseded or rejected: a brief should not build on it.
    pub fn is_retired(&self) -> bool {
        self.superseded_by.is_some() || matches!(self.status.as_deref(), Some("superseded" | "rejected" | "deprecated"))
    }
}

fn first_heading(text: &str) -> Option<&str> {
    text.lines().map(str::trim_start).find(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#'))
}

fn after_label<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    line.find(label).map(|at| &line[at + label.len()..])
}

fn leading_number(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// An `ADR-<digits>` (or `ADR <digits>`) mention in running text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mention {
    pub number: u32,
    /// Byte offset of the `A` of `ADR`.
    pub offset: usize,
    /// Byte length of the mention.
    pub len: usize,
}

/// Finds ADR mentions: `ADR-095`, `ADR 95`, not `MADR-1` or `ADR-`.
pub fn mentions(text: &str) -> Vec<Mention> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("ADR") {
        let start = from + at;
        from = start + 3;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let Some(sep) = bytes.get(start + 3) else { break };
        if *sep != b'-' && *sep != b' ' {
            continue;
        }
        let digits = bytes[start + 4..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 9 || bytes.get(start + 4 + digits).is_some_and(|b| b.is_ascii_alphabetic()) {
            continue;
        }
        let number = text[start + 4..start + 4 + digits].parse().expect("ascii digits, at most 9");
        found.push(Mention { number, offset: start, len: 4 + digits });
        from = start + 4 + digits;
    }
    found
}

/// Parses a declared id (`ADR-095`); `None` when it is not of that shape.
pub fn parse_id(id: &str) -> Option<u32> {
    let digits = id.strip_prefix("ADR-")?;
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Removes markdown emphasis markers.
pub fn strip_emphasis(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '*' | '_' | '`')).collect()
}

/// Folds runs of whitespace to one space and strips emphasis, so a quote
/// matches the ADR across line breaks and formatting.
pub fn fold(text: &str) -> String {
    strip_emphasis(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_id_status_and_successor() {
        let adr = Adr::parse(
            "docs/adr/ADR-095-backups.md",
            "# ADR-095: Backups\n\n**Status:** Superseded\nSuperseded by: ADR-101\n",
        )
        .unwrap();
        assert_eq!((adr.number, adr.status.as_deref(), adr.superseded_by), (95, Some("superseded"), Some(101)));
        let adr = Adr::parse(
            "docs/adr/backups.md",
            "# ADR-99: Briefs\nStatus: Accepted Date: 2026-04-25\nSuperseded by: {{leave blank}}\n",
        )
        .unwrap();
        assert_eq!((adr.number, adr.status.as_deref(), adr.superseded_by), (99, Some("accepted"), None));
        assert!(!adr.is_retired());
        assert!(Adr::parse("docs/adr/README.md", "# Index\n").is_none());
    }

    #[test]
    fn finds_mentions_by_number() {
        let m = mentions("See ADR-095 and ADR 7, not MADR-3 or ADR-x or ADR-12b.");
        assert_eq!(m.iter().map(|m| m.number).collect::<Vec<_>>(), vec![95, 7]);
        assert_eq!(m[0].offset, 4);
        assert_eq!(parse_id("ADR-099"), Some(99));
        assert_eq!(parse_id("ADR099"), None);
        assert_eq!(fold("a  **b**\n  c"), "a b c");
    }
}
