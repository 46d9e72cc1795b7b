//! The spec root's engine files and the brief (docs/seed-coverage.md, Engine formats; seed 003,
//! Artifacts): `landed.md`, `roster.md`, `stats.md`, `99-user.md` and
//! `pre-plan/00-brief.md`. Every parser keeps lines and collects problems
//! instead of failing.

use super::review::Problem;
use super::state::{Part, parse_nn};

fn problem(line: usize, message: impl Into<String>) -> Problem {
    Problem { line: line as u32 + 1, message: message.into() }
}

/// A `<sha>`: 7 to 40 lowercase hex digits.
pub fn is_sha(text: &str) -> bool {
    (7..=40).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `YYYY-MM-DD` with a plausible month and day.
pub fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| {
        text.get(r).filter(|s| s.bytes().all(|c| c.is_ascii_digit())).and_then(|s| s.parse::<u32>().ok())
    };
    matches!((num(0..4), num(5..7), num(8..10)), (Some(_), Some(1..=12), Some(1..=31)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LandedEvent {
    Starts,
    Phase(u8),
    Audit(Part),
}

/// One line of `landed.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landed {
    pub line: u32,
    pub attempt: u8,
    pub event: LandedEvent,
    pub sha: String,
}

/// `landed.md`: `attempt-<NN> implementation starts at <sha>`,
/// `attempt-<NN> phase-<NN> closed at <sha>`, `attempt-<NN> audit-<part>
/// closed at <sha>`. Blank lines are allowed only at the end.
pub fn parse_landed(text: &str) -> (Vec<Landed>, Vec<Problem>) {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let last = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).last().map_or(0, |(i, _)| i + 1);
    for (i, raw) in text.lines().enumerate().take(last) {
        match landed_line(raw) {
            Ok((attempt, event, sha)) => {
                lines.push(Landed { line: i as u32 + 1, attempt, event, sha: sha.to_string() })
            }
            Err(why) => problems.push(problem(i, why)),
        }
    }
    (lines, problems)
}

fn landed_line(raw: &str) -> Result<(u8, LandedEvent, &str), String> {
    const SHAPES: &str = "`attempt-<NN> implementation starts at <sha>`, `attempt-<NN> phase-<NN> closed at <sha>` or `attempt-<NN> audit-<part> closed at <sha>`";
    let words: Vec<&str> = raw.trim_end().split(' ').collect();
    let attempt = words.first().and_then(|w| w.strip_prefix("attempt-")).and_then(parse_nn);
    let Some(attempt) = attempt else {
        return Err(format!("`{raw}` does not start with `attempt-<NN>`; a line is {SHAPES}"));
    };
    let (event, sha) = match words.as_slice() {
        [_, "implementation", "starts", "at", sha] => (LandedEvent::Starts, *sha),
        [_, topic, "closed", "at", sha] => {
            let event = if let Some(nn) = topic.strip_prefix("phase-") {
                parse_nn(nn).map(LandedEvent::Phase)
            } else if let Some(part) = topic.strip_prefix("audit-") {
                Part::parse(part).map(LandedEvent::Audit)
            } else {
                None
            };
            let Some(event) = event else {
                return Err(format!("`{topic}` is not `phase-<NN>` or `audit-<part>` (tests, conventions, fixes)"));
            };
            (event, *sha)
        }
        _ => return Err(format!("`{raw}` is not a landed line; a line is {SHAPES}")),
    };
    if !is_sha(sha) {
        return Err(format!("`{sha}` is not a commit sha (7 to 40 lowercase hex digits, from `git rev-parse HEAD`)"));
    }
    Ok((attempt, event, sha))
}

/// One row of the roster's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosterRow {
    pub line: u32,
    pub role: String,
    pub effort: String,
    /// The session handle, `-` when unset.
    pub handle: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roster {
    pub title: bool,
    pub skill: Option<u32>,
    /// The `**Sessions:**` value and its line.
    pub sessions: Option<(String, u32)>,
    /// The line of the `| Role | Agent | Model | Effort | Handle |` header.
    pub table: Option<u32>,
    /// Without a table, the first line that has a table row's pipes but no
    /// delimiter row (`|---|---|`) under a header, so GFM reads no table.
    pub stray_row: Option<u32>,
    pub rows: Vec<RosterRow>,
    pub problems: Vec<Problem>,
}

pub const EFFORTS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];
const ROSTER_HEADER: [&str; 5] = ["Role", "Agent", "Model", "Effort", "Handle"];

/// The cells of a table line, as GitHub Flavored Markdown reads them (GFM
/// 0.29 §4.10): split at each `|` not escaped as `\|`, the pipes at either
/// end optional, each cell trimmed. `None` for a line without a `|`.
fn cells(line: &str) -> Option<Vec<&str>> {
    let line = line.trim();
    if !line.contains('|') {
        return None;
    }
    let inner = line.strip_prefix('|').unwrap_or(line);
    let inner = match inner.strip_suffix('|') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => inner,
    };
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = inner.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        if b == b'|' && (at == 0 || bytes[at - 1] != b'\\') {
            out.push(inner[start..at].trim());
            start = at + 1;
        }
    }
    out.push(inner[start..].trim());
    Some(out)
}

/// A delimiter row's cells: `---`, `:--`, `--:`, `:-:` (GFM §4.10).
fn is_rule(cells: &[&str]) -> bool {
    cells.iter().all(|c| {
        let dashes = c.strip_prefix(':').unwrap_or(c);
        let dashes = dashes.strip_suffix(':').unwrap_or(dashes);
        !dashes.is_empty() && dashes.bytes().all(|b| b == b'-')
    })
}

/// One GFM table: the header's line (0-based) and cells, and its body rows.
struct Table<'t> {
    header_line: usize,
    header: Vec<&'t str>,
    rows: Vec<(usize, Vec<&'t str>)>,
}

/// The tables of a text, as GFM reads them (§4.10): a header row, then a
/// delimiter row of as many cells, then rows up to the first blank line or
/// line without a `|`, each with as many cells as the header (the excess
/// ignored, missing ones empty). Lines inside fenced code blocks are none.
fn tables(text: &str) -> Vec<Table<'_>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Table> = Vec::new();
    let mut fence: Option<&str> = None;
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            i += 1;
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            i += 1;
            continue;
        }
        let header = cells(lines[i]);
        let delimiter = lines.get(i + 1).and_then(|l| cells(l));
        match (header, delimiter) {
            (Some(header), Some(delimiter)) if is_rule(&delimiter) && delimiter.len() == header.len() => {
                let mut table = Table { header_line: i, header, rows: Vec::new() };
                i += 2;
                while let Some(mut row) = lines.get(i).filter(|l| !l.trim().is_empty()).and_then(|l| cells(l)) {
                    row.resize(table.header.len(), "");
                    table.rows.push((i, row));
                    i += 1;
                }
                out.push(table);
            }
            _ => i += 1,
        }
    }
    out
}

/// `roster.md`: `# Roster`, `**Skill:** …`, `**Sessions:** fresh |
/// continue`, and the table `| Role | Agent | Model | Effort | Handle |`
/// (its outer pipes optional, as in any GFM table).
pub fn parse_roster(text: &str) -> Roster {
    let mut roster = Roster::default();
    let found = tables(text);
    let in_table = |i: usize| found.iter().any(|t| (t.header_line..t.header_line + 2 + t.rows.len()).contains(&i));
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if in_table(i) {
            continue;
        }
        if line == "# Roster" {
            roster.title = true;
        } else if let Some((name, value)) = super::super::label::any_label(line) {
            if name.eq_ignore_ascii_case("skill") {
                roster.skill.get_or_insert(i as u32 + 1);
            } else if name.eq_ignore_ascii_case("sessions") {
                roster.sessions.get_or_insert((value.to_string(), i as u32 + 1));
            }
        } else if roster.stray_row.is_none() && cells(line).is_some_and(|c| c.len() > 1) {
            roster.stray_row = Some(i as u32 + 1);
        }
    }
    let Some(table) = found.into_iter().next() else { return roster };
    roster.table = Some(table.header_line as u32 + 1);
    if table.header != ROSTER_HEADER {
        roster.problems.push(problem(
            table.header_line,
            format!("the table header is `| {} |`, not `| {} |`", ROSTER_HEADER.join(" | "), table.header.join(" | ")),
        ));
    }
    for (i, cells) in table.rows {
        if cells.len() != 5 {
            roster.problems.push(problem(
                i,
                format!("a roster row has 5 cells (Role, Agent, Model, Effort, Handle), this one has {}", cells.len()),
            ));
            continue;
        }
        if cells.iter().any(|c| c.is_empty()) {
            roster
                .problems
                .push(problem(i, format!("the row of `{}` has an empty cell; an unset Handle is `-`", cells[0])));
        }
        roster.rows.push(RosterRow {
            line: i as u32 + 1,
            role: cells[0].to_string(),
            effort: cells[3].to_string(),
            handle: cells[4].to_string(),
        });
    }
    roster
}

/// One row of `stats.md`: the state and the reply's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatsRow {
    pub line: u32,
    pub state: String,
    pub result: String,
}

const STATS_HEADER: [&str; 8] = ["Date", "Role", "Model", "State", "Result", "Counts", "Tokens", "Time"];

/// `stats.md`: the table `| Date | Role | Model | State | Result | Counts |
/// Tokens | Time |`, one row per reply.
pub fn parse_stats(text: &str) -> Vec<StatsRow> {
    tables(text)
        .into_iter()
        .filter(|t| t.header == STATS_HEADER)
        .flat_map(|t| t.rows)
        .filter(|(_, cells)| cells.len() == STATS_HEADER.len())
        .map(|(i, cells)| StatsRow { line: i as u32 + 1, state: cells[3].to_string(), result: cells[4].to_string() })
        .collect()
}

/// A ruling of `99-user.md`: `## <YYYY-MM-DD> <state>[ | settles <file>#<id>]`,
/// then `**Asked:**` and `**Ruling:**`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    pub line: u32,
    pub date: String,
    pub asked: bool,
    pub ruling: bool,
    /// A `**Evidence:**` line (a local ruling on a reopen carries one).
    pub evidence: bool,
}

/// `99-user.md`: the rulings, and the headings that do not have the shape.
pub fn parse_user_log(text: &str) -> (Vec<Ruling>, Vec<Problem>) {
    let mut rulings: Vec<Ruling> = Vec::new();
    let mut problems = Vec::new();
    // Lines under a malformed heading belong to no ruling.
    let mut current = false;
    for (i, raw) in text.lines().enumerate() {
        if let Some(rest) = raw.strip_prefix("## ") {
            current = match ruling_heading(rest) {
                Ok(date) => {
                    rulings.push(Ruling {
                        line: i as u32 + 1,
                        date: date.to_string(),
                        asked: false,
                        ruling: false,
                        evidence: false,
                    });
                    true
                }
                Err(why) => {
                    problems.push(problem(i, why));
                    false
                }
            };
        } else if let Some(last) = rulings.last_mut().filter(|_| current) {
            // `**Asked:**`, or `__Asked:__`: strong either way.
            let t = raw.trim_start();
            let strong = super::super::label::label(t).filter(|_| t.starts_with("**") || t.starts_with("__"));
            let name = strong.map_or("", |(name, _)| name);
            last.asked |= name == "Asked";
            last.ruling |= name == "Ruling";
            last.evidence |= name == "Evidence";
        }
    }
    (rulings, problems)
}

/// `<YYYY-MM-DD> <state>[ | settles <file>#<id>]` → the date.
fn ruling_heading(rest: &str) -> Result<&str, String> {
    let (head, settles) = match rest.split_once(" | ") {
        Some((head, tail)) => (head, Some(tail)),
        None => (rest, None),
    };
    let (date, state) = head.split_once(' ').unwrap_or((head, ""));
    if !is_date(date) {
        return Err(format!("`## {rest}` does not start with a date `YYYY-MM-DD`"));
    }
    if let Err((_, why)) = super::state::State::parse(state.trim()) {
        return Err(format!("`## {rest}`: the state after the date is wrong: {why}"));
    }
    if let Some(tail) = settles {
        let target = tail.strip_prefix("settles ").and_then(|t| t.trim().rsplit_once('#'));
        if !target
            .is_some_and(|(file, id)| !file.is_empty() && !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(format!("`| {tail}` is not `| settles <file>#<id>`"));
        }
    }
    Ok(date)
}

/// An `Amended <date>: <what changed>; ruling in 99-user.md` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Amendment {
    pub line: u32,
    /// `None` when the line does not have the seed's shape.
    pub date: Option<String>,
}

/// `pre-plan/00-brief.md`: `# <title>`, optional amendment lines under it,
/// then `## Goal`, `## Context`, `## Open questions`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Brief {
    /// The line of the `# ` title, when the first non-blank line is one.
    pub title: Option<u32>,
    pub amendments: Vec<Amendment>,
    /// Level-2 headings and their lines, in order.
    pub sections: Vec<(String, u32)>,
    /// A v8 `Mode:` line.
    pub mode: Option<u32>,
    pub lines: u32,
}

pub const BRIEF_SECTIONS: [&str; 3] = ["Goal", "Context", "Open questions"];

pub fn parse_brief(text: &str) -> Brief {
    let mut brief = Brief::default();
    // Headings as CommonMark reads them: `#`/`##` lines or text underlined
    // by `=`/`-` (§4.3); a setext heading's underline is part of it.
    let headings = crate::docs::markdown::parse(text, 1).headings;
    let mut underline = false;
    let mut seen_content = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        brief.lines = line;
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(heading) = headings.iter().find(|h| h.line == line) {
            match heading.level {
                1 if !seen_content => brief.title = Some(line),
                2 => brief.sections.push((heading.text.clone(), line)),
                _ => {}
            }
            underline = heading.setext;
            seen_content = true;
            continue;
        }
        if std::mem::take(&mut underline) && t.chars().all(|c| c == '=' || c == '-') {
            continue;
        }
        if let Some(rest) = t.strip_prefix("Amended ") {
            brief.amendments.push(Amendment { line, date: amendment_date(rest) });
        } else if t.starts_with("Mode:") && brief.sections.is_empty() {
            brief.mode = Some(line);
        }
        seen_content = true;
    }
    brief
}

/// `<date>: <what changed>; ruling in 99-user.md` → the date.
fn amendment_date(rest: &str) -> Option<String> {
    let (date, what) = rest.split_once(": ")?;
    let (change, ruling) = what.rsplit_once("; ")?;
    (is_date(date) && !change.trim().is_empty() && ruling.trim() == "ruling in 99-user.md").then(|| date.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn landed_lines() {
        let (lines, problems) = parse_landed(
            "attempt-01 implementation starts at 1a2b3c4\nattempt-01 phase-01 closed at 5d6e7f8\nattempt-01 audit-tests closed at 9a9a9a9\nattempt-1 phase-02 closed at abc\nattempt-01 phase-2 closed at 5d6e7f8\n\n",
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2].event, LandedEvent::Audit(Part::Tests));
        assert_eq!(problems.iter().map(|p| p.line).collect::<Vec<_>>(), [4, 5]);
    }

    #[test]
    fn roster_table() {
        let r = parse_roster(
            "# Roster\n\n**Skill:** spec\n**Sessions:** fresh\n\n| Role | Agent | Model | Effort | Handle |\n|---|---|---|---|---|\n| Architect | claude | fable | high | - |\n| Coder | claude | opus | | - |\n",
        );
        assert!(r.title);
        assert_eq!(r.sessions, Some(("fresh".into(), 4)));
        assert_eq!(r.rows.len(), 2);
        assert_eq!((r.rows[0].handle.as_str(), r.rows[1].handle.as_str()), ("-", "-"));
        assert_eq!(r.problems.iter().map(|p| p.line).collect::<Vec<_>>(), [9]);
    }

    #[test]
    fn roster_tables_are_read_as_gfm_reads_them() {
        let r = parse_roster(
            "# Roster\n\n__Skill:__ spec\n**Sessions**: continue\n\nRole | Agent | Model | Effort | Handle\n:--- | --- | --- | --- | ---:\nArchitect | claude | fable | high | -\n| Coder | claude | opus | max | s\\|1 |\n",
        );
        assert_eq!((r.skill, r.sessions, r.table), (Some(3), Some(("continue".into(), 4)), Some(6)));
        assert_eq!(r.rows.iter().map(|row| row.role.as_str()).collect::<Vec<_>>(), ["Architect", "Coder"]);
        assert_eq!(r.rows[1].handle, "s\\|1");
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        let r = parse_roster("# Roster\n\n| Role | Agent | Model | Effort | Handle |\n| Coder | c | o | max | - |\n");
        assert_eq!((r.table, r.stray_row), (None, Some(3)));
    }

    #[test]
    fn brief_shape() {
        let b = parse_brief(
            "# Retry queue\nAmended 2026-03-02: scope narrowed to jobs; ruling in 99-user.md\nAmended someday\nMode: light\n\n## Goal\n\nx\n\n## Context\n\n## Open questions\n",
        );
        assert_eq!(b.title, Some(1));
        assert_eq!(b.amendments[0].date.as_deref(), Some("2026-03-02"));
        assert_eq!(b.amendments[1].date, None);
        assert_eq!(b.mode, Some(4));
        assert_eq!(b.sections.len(), 3);
    }

    #[test]
    fn user_log() {
        let (rulings, problems) = parse_user_log(
            "# User rulings\n\n## 2026-03-02 pre-plan:Answer | settles review/pre-plan/01-review.md#2\n**Asked:** a\n**Ruling:** b\n\n## 2026-03-05 plan:Drafting\n## yesterday brief\n## 2026-03-06 brief | settles nothing\n",
        );
        assert_eq!(rulings.len(), 1);
        assert!(rulings[0].asked && rulings[0].ruling);
        assert_eq!(problems.iter().map(|p| p.line).collect::<Vec<_>>(), [7, 8, 9]);
    }

    #[test]
    fn dates_and_shas() {
        assert!(is_date("2026-02-28") && !is_date("2026-13-01") && !is_date("2026-2-28"));
        assert!(is_sha("1a2b3c4") && !is_sha("1A2B3C4") && !is_sha("abc"));
    }

    proptest! {
        #[test]
        fn never_panic(text in "\\PC{0,200}") {
            let _ = parse_landed(&text);
            let _ = parse_roster(&text);
            let _ = parse_stats(&text);
            let _ = parse_user_log(&text);
            let _ = parse_brief(&text);
        }

        #[test]
        fn never_panic_near_formats(text in "(attempt-|[0-9]{1,3}|phase-|audit-| closed at | |\\||## |Amended |: |; |-|\n|é)*") {
            let _ = parse_landed(&text);
            let _ = parse_roster(&text);
            let _ = parse_stats(&text);
            let _ = parse_user_log(&text);
            let _ = parse_brief(&text);
        }
    }
}
