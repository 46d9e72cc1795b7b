use super::{VotingView, anchor, at};
use crate::docs::voting::{Argument, is_date, show};
use crate::model::{Fix, Severity, Sink};
use crate::rules::fixes::scalar_range;

declare_rule! {
    id: "voting/date",
    view: VotingView,
    severity: Error,
    summary: "`proposed_at` is a `YYYY-MM-DD` calendar date, never before an argument above it",
    why: "ADR-140: `proposed_at` is an \"ISO date YYYY-MM-DD — Submission date. Decay (Phase 4) reads this.\" \
A date in another shape, with a time, or that does not exist (2026-02-30) would make decay read the wrong age. \
Arguments are listed in submission order (ADR-140: \"Lexicographic order = submission order\" of ids), so an \
argument dated before one above it is an error too. A value gatehouse cannot read as a year, a month and a \
day in that order (`early May`, `06/05/2026`, whose day and month could be either way round) is a warning \
that says so: the author knows which date was meant.",
    fix: "rewrites a date written another way as `YYYY-MM-DD` (`2026-5-6` and `2026/05/06` become \
`2026-05-06`; a date-time keeps its date); an impossible date is the author's to correct",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, _, block) in view.blocks() {
        // The latest date above, and whose it is: `YYYY-MM-DD` sorts by time.
        let mut latest: Option<(&str, Argument)> = None;
        for argument in block.arguments() {
            let Some(node) = argument.field("proposed_at") else { continue };
            let Some(date) = node.scalar_text().filter(|_| !node.is_null()) else { continue };
            // Built only for a finding.
            let key = || anchor(block, &argument, "proposed_at");
            if !is_date(date) {
                // A year, month and day in order is read, even when the day
                // does not exist; anything else is a form gatehouse cannot read.
                let read = ymd(date).is_some();
                let message = if read {
                    format!(
                        "`proposed_at` of argument `{}` is {}, not a `YYYY-MM-DD` date",
                        argument.name(),
                        show(node)
                    )
                } else {
                    format!(
                        "gatehouse cannot read `proposed_at` of argument `{}`, {}, as a year, a month and a day",
                        argument.name(),
                        show(node)
                    )
                };
                sink.emit(doc.path, at(doc.text, node), key(), message)
                    .help("write the submission date as e.g. `proposed_at: 2026-05-06`")
                    .severity(if read { Severity::Error } else { Severity::Warning })
                    .fix(as_date(date).and_then(|date| {
                        let range = scalar_range(doc.text, node.line(), node.col(), false)?;
                        Some(Fix::replace(format!("write `proposed_at: {date}`"), doc.path, range, date))
                    }));
                continue;
            }
            match &latest {
                Some((before, by)) if *before > date => {
                    sink.emit(
                        doc.path,
                        at(doc.text, node),
                        format!("{}:order", key()),
                        format!(
                            "argument `{}` is dated {date}, before argument `{by}` above it ({before}); arguments are \
                             listed in submission order",
                            argument.name(),
                            by = by.name()
                        ),
                    )
                    .help("`proposed_at` is the submission date: a later argument cannot be submitted earlier");
                }
                _ => latest = Some((date, argument)),
            }
        }
    }
}

/// The `YYYY-MM-DD` form of a date written with other separators, without
/// leading zeros, or as a date-time.
fn as_date(text: &str) -> Option<String> {
    let (year, month, day) = ymd(text)?;
    let canonical = format!("{year:04}-{month:02}-{day:02}");
    (is_date(&canonical) && canonical != text).then_some(canonical)
}

/// The year, month and day of a date written year first, separated by `-`,
/// `/` or `.`, with or without a time after it; the day may not exist.
fn ymd(text: &str) -> Option<(u32, u32, u32)> {
    let date = text.trim().split(['T', 't', ' ']).next()?;
    let parts: Vec<&str> = date.split(['-', '/', '.']).collect();
    let [year, month, day] = parts.as_slice() else { return None };
    if year.len() != 4 || month.is_empty() || month.len() > 2 || day.is_empty() || day.len() > 2 {
        return None;
    }
    Some((year.parse().ok()?, month.parse().ok()?, day.parse().ok()?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_written_another_way_become_yyyy_mm_dd() {
        for (text, date) in
            [("2026-5-6", "2026-05-06"), ("2026/05/06", "2026-05-06"), ("2026-05-06T10:00:00Z", "2026-05-06")]
        {
            assert_eq!(super::as_date(text).as_deref(), Some(date), "{text}");
        }
        for text in ["2026-05-32", "06/05/2026", "2026-05", "yesterday"] {
            assert_eq!(super::as_date(text), None, "{text}");
        }
        // An impossible day is read (an error); a day-first or worded date is not (a warning).
        assert!(super::ymd("2026-05-32").is_some());
        for text in ["06/05/2026", "early May", "2026-05"] {
            assert_eq!(super::ymd(text), None, "{text}");
        }
    }
}
