//! Architecture decision records: ids, status, successor, and their text for
//! quote matching, in the forms teams keep them: `ADR-099` ids (file name or
//! title), adr-tools/Nygard (`doc/adr/0005-use-sqlite.md`, `# 5. Use SQLite`,
//! a `## Status` section, `Superseded by [6. Title](0006-title.md)`), MADR
//! 2–4 (the number from the file name alone, `status:` in the front matter or
//! a `* Status:` line), log4brains (`- Status:` lines) and the npm `adr`
//! tool (a `## Status` section kept as a dated log, newest last).

use std::collections::BTreeMap;

use super::frontmatter;
use super::markdown;

/// One ADR as the brief rules need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adr {
    /// The ADR number: `ADR-099`, `ADR-99` and `0099-title.md` are all 99.
    pub number: u32,
    pub path: String,
    /// The status word, lower-cased (`proposed`, `accepted`, `rejected`,
    /// `deprecated`, `superseded`, `on hold`).
    pub status: Option<String>,
    /// The successor's number, from `Superseded by: ADR-NNN`, `superseded by
    /// ADR-0123` or `Superseded by [6. Title](0006-title.md)`.
    pub superseded_by: Option<u32>,
    /// The numbers this ADR says it supersedes (`Supersedes [5. …](0005-….md)`).
    pub supersedes: Vec<u32>,
    /// The line that states the status (or, without one, the successor or
    /// what it supersedes); 1 when none does.
    pub status_line: u32,
    /// The text with whitespace, typographic quotes and dashes folded and
    /// emphasis stripped, for quote matching.
    pub folded: String,
}

impl Adr {
    /// Reads an ADR; `None` when no number is found: not in the file name
    /// (`ADR-095-….md`, `0005-….md`), nor in its title (`# ADR-095: …`,
    /// `# 5. …`, or a first line `ADR-099: …`).
    pub fn parse(path: &str, text: &str) -> Option<Adr> {
        // Its lines as a reader sees them: escapes and entities written out.
        let resolved = super::seen::resolved(text);
        let text = resolved.as_ref();
        let file = path.rsplit('/').next().unwrap_or(path);
        let split = frontmatter::split(text);
        let title = title_line(split.body);
        let number = id_prefix(file)
            .or_else(|| title.and_then(|t| mentions(t).first().map(|m| m.number)))
            .or_else(|| numbered(file, &['-', '_', '.']))
            .or_else(|| title.and_then(|t| numbered(t, &['.', ':'])))?;
        let status_node = split.frontmatter.as_ref().ok().and_then(|fm| fm.root().get("status"));
        let mut status: Option<Status> = status_node.and_then(|node| node.scalar_text()).and_then(read_status);
        let mut status_line = status.as_ref().and(status_node).map(|node| node.line());
        let mut superseded_by = status.as_ref().and_then(|s| s.successor);
        let mut supersedes = Vec::new();
        let md = markdown::parse(split.body, split.body_line);
        // `Superseded by [6. Title][6]` names its successor as the inline
        // link does.
        let body = markdown::with_inline_references(split.body);
        let in_fence = |line: u32| md.fences.iter().any(|f| (f.line..=f.end_line).contains(&line));
        let mut status_section = false;
        // Whether the status was read from a `## Status` section, whose
        // later dated entries replace it.
        let mut section_status = false;
        for (line, raw) in (split.body_line..).zip(body.lines()) {
            if in_fence(line) {
                continue;
            }
            let plain = strip_emphasis(raw);
            let plain = plain.trim_start();
            let item = super::label::list_item(plain).unwrap_or(plain).trim_start();
            if item.starts_with('#') {
                status_section = item.trim_start_matches('#').trim().eq_ignore_ascii_case("status");
                section_status = false;
                continue;
            }
            // A `## Status` section may be a log, one dated entry a line,
            // newest last (the npm `adr` tool's form): its last entry that
            // names a status word is the status.
            let logged = status_section.then(|| log_entry(item)).flatten();
            if status.is_none() || logged.is_some() && section_status {
                let value = label_value(item, "status")
                    .or(logged)
                    .or_else(|| (status_section && status.is_none() && !item.trim().is_empty()).then_some(item));
                if let Some(read) = value.and_then(read_status) {
                    if let Some(next) = read.successor {
                        superseded_by = Some(next);
                    }
                    section_status = status_section;
                    status = Some(read);
                    status_line = Some(line);
                }
            }
            let lower = spelled(item);
            if superseded_by.is_none() {
                let at = lower.find("superseded by:").or_else(|| lower.starts_with("superseded by").then_some(0));
                if let Some(at) = at {
                    superseded_by = numbers_in(clause(&item[at + "superseded by".len()..])).first().copied();
                    if superseded_by.is_some() {
                        status_line.get_or_insert(line);
                    }
                }
            }
            let at = lower.find("supersedes:").or_else(|| lower.starts_with("supersedes").then_some(0));
            if let Some(at) = at {
                let named = numbers_in(clause(&item[at + "supersedes".len()..]));
                if !named.is_empty() {
                    status_line.get_or_insert(line);
                }
                supersedes.extend(named);
            }
        }
        Some(Adr {
            number,
            path: path.to_string(),
            status: status.map(|s| s.word),
            superseded_by,
            supersedes,
            status_line: status_line.unwrap_or(1),
            folded: fold(&super::seen::seen(text)),
        })
    }

    /// Superseded, rejected or deprecated: a brief should not build on it.
    /// `proposed`, `accepted` and `on hold` leave it in force; so does being
    /// amended (`Amends`/`Amended by`).
    pub fn is_retired(&self) -> bool {
        self.superseded_by.is_some() || matches!(self.status.as_deref(), Some("superseded" | "rejected" | "deprecated"))
    }

    /// Accepted, or with no status at all: what it says it supersedes is
    /// superseded.
    fn in_force(&self) -> bool {
        matches!(self.status.as_deref(), None | Some("accepted"))
    }
}

/// The ADRs by number (the first of a number, in the order given, is kept).
/// An ADR an in-force one says it supersedes is superseded by it, though its
/// own text was not updated.
pub fn index(adrs: impl IntoIterator<Item = Adr>) -> BTreeMap<u32, Adr> {
    let mut out: BTreeMap<u32, Adr> = BTreeMap::new();
    for adr in adrs {
        out.entry(adr.number).or_insert(adr);
    }
    let successions: Vec<(u32, u32)> = out
        .values()
        .filter(|adr| adr.in_force())
        .flat_map(|adr| adr.supersedes.iter().map(|&old| (old, adr.number)))
        .collect();
    for (old, new) in successions {
        if let Some(adr) = out.get_mut(&old).filter(|adr| adr.number != new) {
            adr.superseded_by.get_or_insert(new);
        }
    }
    out
}

/// A status value and the successor it names.
struct Status {
    word: String,
    successor: Option<u32>,
}

/// Reads `Accepted`, `superseded by ADR-0123`, `Superseded by [6. T](0006-t.md)`,
/// `On hold`; `None` for a blank or a placeholder.
fn read_status(value: &str) -> Option<Status> {
    let value = strip_emphasis(value);
    let value = value.trim().trim_start_matches(['[', '{', '"', '\'', '(']).trim();
    let lower = spelled(value);
    let word = if lower.starts_with("on hold") || lower.starts_with("on-hold") {
        "on hold".to_string()
    } else {
        lower.split(|c: char| !c.is_alphanumeric() && c != '-').find(|w| !w.is_empty())?.to_string()
    };
    // The founding documents' form runs on: `Status: Accepted Date: … Related: …`.
    let own = ["related:", "date:", "deciders:"].iter().filter_map(|l| lower.find(l)).min().unwrap_or(lower.len());
    let successor = lower[..own].find("superseded by").and_then(|at| numbers_in(&value[at + 13..own]).first().copied());
    Some(Status { word, successor })
}

/// The value of a `Label:` line (`Status: Accepted`, `status: accepted`).
fn label_value<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let head = line.get(..label.len())?;
    let rest = line[label.len()..].trim_start().strip_prefix(':')?;
    head.eq_ignore_ascii_case(label).then_some(rest)
}

/// `text` lower-cased, with adr-tools' spelling `supercede` (its own, in
/// every record it supersedes: `Superceded by [3. …](…)`) read as
/// `supersede`. ASCII lower-casing and the respelling keep every byte where
/// it was, so an offset into the result is one into `text`.
fn spelled(text: &str) -> String {
    text.to_ascii_lowercase().replace("superced", "supersed")
}

/// The status words of a dated status log's entries.
const LOGGED: [&str; 8] =
    ["proposed", "accepted", "rejected", "deprecated", "superseded", "superceded", "draft", "on hold"];

/// A dated entry of a status log (`2024-03-12 superseded`, `2024-03-12:
/// Accepted`): the text after the date, when it starts with a status word.
fn log_entry(item: &str) -> Option<&str> {
    let item = item.trim();
    let date = item.get(..10).filter(|d| super::voting::is_date(d))?;
    let rest = item[date.len()..].trim_start_matches([':', ' ', '-', '\u{2013}', '\u{2014}', '\t']);
    let lower = rest.to_lowercase();
    LOGGED.iter().any(|word| lower.starts_with(word)).then_some(rest)
}

/// The text up to the next label on the same line (`Amends`, `Date:`, …).
fn clause(text: &str) -> &str {
    let lower = text.to_ascii_lowercase();
    ["amends", "amended by", "superseded by", "supersedes", "related:", "date:"]
        .iter()
        .filter_map(|label| lower.find(label))
        .min()
        .map_or(text, |at| &text[..at])
}

/// The ADR numbers a clause names: `ADR-NNN` mentions, and links whose text
/// starts with a number (`[6. Title](…)`) or whose target is a numbered file.
fn numbers_in(text: &str) -> Vec<u32> {
    let mut out: Vec<u32> = mentions(text).iter().map(|m| m.number).collect();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else { break };
        let label = &after[..close];
        let target = after[close + 2..].split(')').next().unwrap_or("");
        let file = target.split('#').next().unwrap_or("").rsplit('/').next().unwrap_or("");
        let from_label = if mentions(label).is_empty() { numbered(label.trim(), &['.', ':']) } else { None };
        if let Some(n) = from_label.or_else(|| id_prefix(file)).or_else(|| numbered(file, &['-', '_', '.'])) {
            out.push(n);
        }
        rest = &after[close + 2..];
    }
    out.dedup();
    out
}

/// The first heading, else the first non-blank line when it starts with an
/// ADR id (`ADR-099: Agent briefs …`).
fn title_line(body: &str) -> Option<&str> {
    let mut lines = body.lines().map(str::trim_start).filter(|l| !l.is_empty());
    if let Some(heading) = body.lines().map(str::trim_start).find(|l| l.starts_with('#')) {
        return Some(heading.trim_start_matches('#').trim_start());
    }
    lines.next().filter(|l| mentions(l).first().is_some_and(|m| m.offset == 0))
}

/// `ADR-0005-…`, `adr_5.md`, `ADR0005`: the number after an `ADR` prefix.
fn id_prefix(file: &str) -> Option<u32> {
    let prefix = file.get(..3).filter(|p| p.eq_ignore_ascii_case("adr"))?;
    let rest = file[prefix.len()..].trim_start_matches(['-', '_']);
    numbered(rest, &['-', '_', '.', ':', ' '])
}

/// Leading digits (at most 9) followed by one of `ends`: `0005-use-x.md`, `5. Use X`.
fn numbered(text: &str, ends: &[char]) -> Option<u32> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 || !text[digits..].starts_with(ends) {
        return None;
    }
    text[..digits].parse().ok()
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
    for start in memchr::memmem::find_iter(bytes, b"ADR") {
        if start < from {
            continue;
        }
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

/// Parses a declared id (`ADR-095`, `ADR-5`, `ADR-0005`); `None` when it is
/// not of that shape.
pub fn parse_id(id: &str) -> Option<u32> {
    let digits = id.strip_prefix("ADR-")?;
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// ADR `number` spelled as the declared `id` spells its own (`ADR-5` gives
/// `ADR-6`, `ADR-095` gives `ADR-096`), so one message keeps one spelling.
pub fn spelled_like(id: &str, number: u32) -> String {
    let width = id.strip_prefix("ADR-").map_or(3, str::len);
    format!("ADR-{number:0width$}")
}

/// Removes markdown emphasis markers.
pub fn strip_emphasis(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '*' | '_' | '`')).collect()
}

/// Folds runs of whitespace to one space, typographic quotes to straight
/// ones (`’ ‘` to `'`, `“ ” „` to `"`), dashes and hyphens (`—`, `–`, `‑`, `--`) to `-`, and
/// strips emphasis, so a quote matches the ADR however an editor typed it.
pub fn fold(text: &str) -> String {
    let straight: String = strip_emphasis(text)
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201b}' | '\u{2032}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' => '"',
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => '-',
            c => c,
        })
        .collect();
    let mut out = straight.split_whitespace().collect::<Vec<_>>().join(" ");
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out
}

#[cfg(test)]
mod tests;
