//! Files of `review/<topic>/` (the fondue engine's review formats, docs/seed-coverage.md): a
//! gapless sequence `00-request.md`, `01-review.md`, `02-answer.md`, …
//! Requests carry `- **Field:** value` lines; reviews carry findings
//! `## #<id> <title>` with `**Severity:**` and `**Proposed solution:**` and
//! end on one `Verdict:` line; answers carry one `- #N …` line per finding
//! and a verdict.

/// What a review file is, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Request,
    Review,
    Answer,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Review => "review",
            Kind::Answer => "answer",
        }
    }

    /// The kind the file numbered `n` must be: `00` the request, odd
    /// numbers reviews, even numbers from `02` answers.
    pub fn at(n: u32) -> Kind {
        match n {
            0 => Kind::Request,
            n if n % 2 == 1 => Kind::Review,
            _ => Kind::Answer,
        }
    }
}

/// `NN-<kind>.md` → (number, kind).
pub fn parse_name(name: &str) -> Option<(u32, Kind)> {
    let stem = name.strip_suffix(".md")?;
    let (num, kind) = stem.split_once('-')?;
    if num.len() < 2 || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let kind = match kind {
        "request" => Kind::Request,
        "review" => Kind::Review,
        "answer" => Kind::Answer,
        _ => return None,
    };
    Some((num.parse().ok()?, kind))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerdictKind {
    Approved,
    ApprovedWithFixes,
    ChangesRequested,
    NextRound,
    Closed,
    Deadlocked,
    Question,
}

impl VerdictKind {
    pub fn word(self) -> &'static str {
        match self {
            VerdictKind::Approved => "approved",
            VerdictKind::ApprovedWithFixes => "approved-with-fixes",
            VerdictKind::ChangesRequested => "changes-requested",
            VerdictKind::NextRound => "next-round",
            VerdictKind::Closed => "closed",
            VerdictKind::Deadlocked => "deadlocked",
            VerdictKind::Question => "question",
        }
    }

    /// The file kind that may carry this verdict.
    pub fn belongs_to(self) -> Kind {
        match self {
            VerdictKind::Approved | VerdictKind::ApprovedWithFixes | VerdictKind::ChangesRequested => Kind::Review,
            _ => Kind::Answer,
        }
    }

    /// `approved` and `closed` close the topic.
    pub fn closes(self) -> bool {
        matches!(self, VerdictKind::Approved | VerdictKind::Closed)
    }
}

/// A `Verdict:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub line: u32,
    /// `None` when the word after `Verdict:` is none of the seven.
    pub kind: Option<VerdictKind>,
    pub word: String,
    /// What follows the word: the subject (before ` | ` for
    /// approved-with-fixes), the thread or the refs.
    pub subject: String,
    /// The finding ids after ` | ` of `approved-with-fixes`.
    pub fixes: Vec<u32>,
}

/// A `- **Name:** value` field line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub value: String,
    pub line: u32,
}

/// A `## #<id> <title>` finding and what belongs to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub id: u32,
    pub title: String,
    pub line: u32,
    /// The `**Severity:**` value and its line.
    pub severity: Option<(String, u32)>,
    pub proposed_solution: bool,
}

impl Finding {
    pub fn is_nit(&self) -> bool {
        self.severity.as_ref().is_some_and(|(s, _)| s == "Nit")
    }

    pub fn is_blocker(&self) -> bool {
        self.severity.as_ref().is_some_and(|(s, _)| s == "Blocker")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerKind {
    Accepted,
    AcceptedDifferently,
    /// `accepted, moved to audit/findings.md#<id>` (lens topics).
    Moved,
    /// `fixed in <commit>`: an `audit-fixes` request's line for an audit finding.
    Fixed,
    Challenged,
    DeclinedNit,
    Deadlocked,
    Question,
}

/// A `- #N …` answer line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerLine {
    pub id: u32,
    pub line: u32,
    /// `None` when the words after `#N` are none of the engine's.
    pub kind: Option<AnswerKind>,
    /// The new id of `accepted, moved to audit/findings.md#<id>`.
    pub moved_to: Option<u32>,
}

/// A line that looks like part of the format but is malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub line: u32,
    pub message: String,
}

/// One parsed file of `review/<topic>/` (or `audit/findings.md`, which
/// holds findings in the same shape).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReviewFile {
    pub fields: Vec<Field>,
    pub findings: Vec<Finding>,
    /// Malformed finding headings.
    pub finding_problems: Vec<Problem>,
    pub verdicts: Vec<Verdict>,
    pub answers: Vec<AnswerLine>,
    /// The last line that is not blank (0 for an empty file).
    pub last_line: u32,
}

impl ReviewFile {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdicts.last()
    }
}

/// Parses a review file. Lines inside fenced code blocks are quoted
/// material, never part of the format.
pub fn parse(text: &str) -> ReviewFile {
    let mut doc = ReviewFile::default();
    let mut fence: Option<&str> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let trimmed = raw.trim();
        if !trimmed.is_empty() {
            doc.last_line = line;
        }
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        }
        // A label reads the same however it is emphasised (`Verdict:`,
        // `**Verdict:**`, `**Severity**:`).
        let label = crate::docs::label::any_label(trimmed);
        if let Some(rest) = raw.strip_prefix("## ") {
            heading(rest.trim(), line, &mut doc);
        } else if let Some(("Verdict", rest)) = label {
            doc.verdicts.push(verdict(rest, line));
        } else if let Some(("Severity", rest)) = label {
            if let Some(f) = doc.findings.last_mut() {
                f.severity.get_or_insert((rest.to_string(), line));
            }
        } else if let Some(("Proposed solution", _)) = label {
            if let Some(f) = doc.findings.last_mut() {
                f.proposed_solution = true;
            }
        } else if let Some(rest) = crate::docs::label::list_item(trimmed) {
            bullet(rest.trim(), line, &mut doc);
        }
    }
    doc
}

fn heading(rest: &str, line: u32, doc: &mut ReviewFile) {
    let Some(after) = rest.strip_prefix('#') else { return };
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let title = after[digits..].trim();
    let id = after[..digits].parse::<u32>().ok().filter(|id| *id > 0);
    match id {
        Some(id) if after[digits..].starts_with(' ') && !title.is_empty() => {
            doc.findings.push(Finding { id, title: title.to_string(), line, severity: None, proposed_solution: false });
        }
        _ => doc.finding_problems.push(Problem {
            line,
            message: format!("`## {rest}` is not a finding heading `## #<id> <title>` (id a number from 1)"),
        }),
    }
}

fn verdict(rest: &str, line: u32) -> Verdict {
    let (word, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let kind = [
        VerdictKind::Approved,
        VerdictKind::ApprovedWithFixes,
        VerdictKind::ChangesRequested,
        VerdictKind::NextRound,
        VerdictKind::Closed,
        VerdictKind::Deadlocked,
        VerdictKind::Question,
    ]
    .into_iter()
    .find(|k| k.word() == word);
    let (subject, fixes) = match (kind, tail.split_once('|')) {
        (Some(VerdictKind::ApprovedWithFixes), Some((subject, ids))) => (subject.trim(), ids_of(ids)),
        _ => (tail.trim(), Vec::new()),
    };
    Verdict { line, kind, word: word.to_string(), subject: subject.to_string(), fixes }
}

/// `#2, #4` → [2, 4]; anything that is not `#<n>` is skipped.
fn ids_of(text: &str) -> Vec<u32> {
    text.split(',').filter_map(|t| t.trim().strip_prefix('#')?.parse().ok()).collect()
}

const MOVED: &str = "accepted, moved to audit/findings.md#";

fn bullet(rest: &str, line: u32, doc: &mut ReviewFile) {
    if rest.starts_with(['*', '_']) {
        if let Some((name, value)) = crate::docs::label::label(rest) {
            doc.fields.push(Field { name: name.to_string(), value: value.to_string(), line });
        }
        return;
    }
    let Some(after) = rest.strip_prefix('#') else { return };
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let Ok(id) = after[..digits].parse::<u32>() else { return };
    let words = after[digits..].trim_start();
    let kind = if words.starts_with("accepted, fixed differently in ") {
        Some(AnswerKind::AcceptedDifferently)
    } else if words.starts_with("accepted, fixed in ") {
        Some(AnswerKind::Accepted)
    } else if words.starts_with(MOVED) {
        Some(AnswerKind::Moved)
    } else if words.starts_with("fixed in ") {
        Some(AnswerKind::Fixed)
    } else if words.starts_with("challenged:") {
        Some(AnswerKind::Challenged)
    } else if words == "declined (Nit)" || words.starts_with("declined (Nit)") {
        Some(AnswerKind::DeclinedNit)
    } else if words.starts_with("deadlocked:") {
        Some(AnswerKind::Deadlocked)
    } else if words.starts_with("question:") {
        Some(AnswerKind::Question)
    } else {
        None
    };
    let moved_to = words.strip_prefix(MOVED).and_then(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        rest[..digits].parse().ok()
    });
    doc.answers.push(AnswerLine { id, line, kind, moved_to });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const REVIEW: &str = "# Review of 03-draft.md\n\n## #1 The retry loop has no bound\n\n**Severity:** Blocker\n\nThe draft retries forever.\n\n**Proposed solution:** cap at 5.\n\n## #2 Naming (re 01-review.md#3)\n\n**Severity:** Nit\n\n**Proposed solution:** rename.\n\n```\nVerdict: approved nothing\n## #9 not a finding\n```\n\nVerdict: approved-with-fixes pre-plan/03-draft.md | #1, #2\n";

    #[test]
    fn reads_findings_and_the_verdict() {
        let doc = parse(REVIEW);
        assert_eq!(doc.findings.len(), 2);
        assert_eq!((doc.findings[0].id, doc.findings[0].line), (1, 3));
        assert!(doc.findings[0].is_blocker() && doc.findings[1].is_nit());
        assert!(doc.findings.iter().all(|f| f.proposed_solution));
        assert_eq!(doc.verdicts.len(), 1);
        let v = doc.verdict().unwrap();
        assert_eq!(
            (v.kind, v.line, v.subject.as_str(), v.fixes.clone()),
            (Some(VerdictKind::ApprovedWithFixes), 22, "pre-plan/03-draft.md", vec![1, 2])
        );
        assert_eq!(doc.last_line, 22);
    }

    #[test]
    fn emphasised_labels_read_as_plain_ones() {
        let plain = parse(REVIEW);
        let emphasised = parse(
            &REVIEW
                .replace("**Severity:** Blocker", "**Severity**: Blocker")
                .replace("**Proposed solution:**", "__Proposed solution:__")
                .replace("Verdict: approved-with-fixes", "**Verdict:** approved-with-fixes"),
        );
        assert_eq!(plain, emphasised);
    }

    #[test]
    fn reads_answers_and_fields() {
        let doc = parse(
            "- **Subject:** abc123..def456\n- **Build:** cargo build - green\n\n- #1 accepted, fixed in 04-draft.md\n- #2 declined (Nit)\n- #3 maybe later\n- #4 accepted, moved to audit/findings.md#7\n\nVerdict: next-round pre-plan/04-draft.md\n",
        );
        assert_eq!(doc.field("Build").map(|f| f.line), Some(2));
        let kinds: Vec<_> = doc.answers.iter().map(|a| (a.id, a.kind, a.moved_to)).collect();
        assert_eq!(
            kinds,
            [
                (1, Some(AnswerKind::Accepted), None),
                (2, Some(AnswerKind::DeclinedNit), None),
                (3, None, None),
                (4, Some(AnswerKind::Moved), Some(7))
            ]
        );
    }

    #[test]
    fn malformed_finding_headings_are_problems() {
        let doc = parse("## #x Title\n## #3\n## Summary\n");
        assert_eq!(doc.finding_problems.iter().map(|p| p.line).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn names() {
        assert_eq!(parse_name("00-request.md"), Some((0, Kind::Request)));
        assert_eq!(parse_name("13-review.md"), Some((13, Kind::Review)));
        assert_eq!(parse_name("1-review.md"), None);
        assert_eq!(parse_name("02-reply.md"), None);
        assert_eq!(Kind::at(0), Kind::Request);
        assert_eq!(Kind::at(3), Kind::Review);
        assert_eq!(Kind::at(4), Kind::Answer);
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,300}") {
            let _ = parse(&text);
        }

        #[test]
        fn never_panics_near_the_format(text in "(## #|#|[0-9]{1,12}| |Verdict: |approved-with-fixes|\\||, |- \\*\\*|:\\*\\*|\\*\\*Severity:\\*\\*|```|\n|é)*") {
            let _ = parse(&text);
        }
    }
}
