//! How a tally is written: numbers as people write them, the one-line
//! description of the `voting/tally` notice, the check summary's markdown
//! table and `gatehouse tally`'s text.

use std::fmt::Write as _;

use super::{LeftOut, MARGIN, MICRO, QUORUM, SectionTally, State, TallyReport};

/// `+12.4`, `-3`, `0`: a signed total as people write it.
pub fn signed(value: f64) -> String {
    let mut out = String::new();
    push_signed(&mut out, value);
    out
}

/// A weight or total with at most six decimals, trailing zeros dropped.
pub fn number(value: f64) -> String {
    let mut out = String::new();
    push_number(&mut out, value);
    out
}

/// Appends [`number`]`(value)` to `out`, without a String of its own: the
/// site writes one per vote of every ledger.
pub fn push_number(out: &mut String, value: f64) {
    // Totals are whole micro-units (see `MICRO`): below a billion their
    // digits come out exact from the integer, with no float formatting (a
    // big PR's tallies print tens of thousands of them).
    let micros = (value * MICRO).round();
    if micros.abs() >= 1e15 {
        out.push_str(&six_places(value));
        return;
    }
    let micros = micros as i64;
    let (whole, mut fraction) = (micros.unsigned_abs() / 1_000_000, micros.unsigned_abs() % 1_000_000);
    if micros < 0 {
        out.push('-');
    }
    let _ = write!(out, "{whole}");
    if fraction != 0 {
        let mut width = 6;
        while fraction % 10 == 0 {
            fraction /= 10;
            width -= 1;
        }
        let _ = write!(out, ".{fraction:0width$}");
    }
}

/// `number` for any value: the float formatted to six places, trailing
/// zeros dropped.
fn six_places(value: f64) -> String {
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0".to_string() } else { text.to_string() }
}

/// One line describing a section's tally, for the `voting/tally` notice:
/// written into one String (a notice for every section of a changed doc).
pub fn describe(t: &SectionTally) -> String {
    let mut out = format!("section `{}`: ", t.section);
    if t.arguments.is_empty() {
        out.push_str("no arguments");
    }
    for (at, a) in t.arguments.iter().enumerate() {
        if at > 0 {
            out.push_str(", ");
        }
        out.push_str(&a.id);
        out.push(' ');
        push_signed(&mut out, a.total);
    }
    out.push_str("; ");
    push_number(&mut out, t.weighted_votes);
    let quorum = if t.quorum_met { "quorum met" } else { "below quorum" };
    let _ = write!(out, " weighted votes, {quorum} (needs ");
    push_number(&mut out, QUORUM);
    out.push(')');
    if let Some(m) = t.margin {
        out.push_str("; margin ");
        push_signed(&mut out, m);
        out.push_str(" (needs +");
        push_number(&mut out, MARGIN);
        out.push(')');
    }
    out.push_str("; ");
    push_state(&mut out, t);
    if !t.left_out.is_empty() {
        let lines: Vec<String> = t.left_out.iter().map(|v| v.line.to_string()).collect();
        let votes = if t.left_out.len() == 1 { "vote" } else { "votes" };
        let _ = write!(
            out,
            "; {} {votes} left out for a `voting/vote-entry` error ({} {})",
            t.left_out.len(),
            if lines.len() == 1 { "line" } else { "lines" },
            lines.join(", ")
        );
    }
    out
}

/// One vote the tally leaves out, as every surface lists it: `line 12:
/// vote 2 (lin/opus-4.7) on argument `A`: `ts` is …`.
pub fn describe_left_out(v: &LeftOut) -> String {
    format!("line {}: {} on argument `{}`: {}", v.line, v.vote, v.argument, v.reasons.join("; "))
}

/// `retirement-eligible: B, C` or the state's name.
fn push_state(out: &mut String, t: &SectionTally) {
    match t.state {
        State::RetirementEligible => {
            out.push_str("retirement-eligible: ");
            out.push_str(&t.losers.join(", "));
        }
        state => out.push_str(state.as_str()),
    }
}

/// Appends [`signed`]`(value)` to `out`.
fn push_signed(out: &mut String, value: f64) {
    if value > 0.0 {
        out.push('+');
    }
    push_number(out, value);
}

/// The markdown table for the check summary.
pub fn markdown(path: &str, sections: &[SectionTally]) -> String {
    let mut out = format!(
        "**Tally** `{path}`\n\n| Section | Weighted totals | Weighted votes (quorum {}) | Margin (needs +{}) | State |\n|---|---|---|---|---|\n",
        number(QUORUM),
        number(MARGIN)
    );
    for t in sections {
        out.push_str("| ");
        out.push_str(&t.section.replace('|', "\\|"));
        out.push_str(" | ");
        for (at, a) in t.arguments.iter().enumerate() {
            if at > 0 {
                out.push_str(" · ");
            }
            let leader = t.leaders.contains(&a.id);
            out.push_str(if leader { "**" } else { "" });
            out.push_str(&a.id);
            out.push_str(if leader { "** " } else { " " });
            push_signed(&mut out, a.total);
        }
        out.push_str(" | ");
        push_number(&mut out, t.weighted_votes);
        out.push_str(if t.quorum_met { " (met) | " } else { " (not met) | " });
        match t.margin {
            Some(m) => push_signed(&mut out, m),
            None => out.push('—'),
        }
        out.push_str(" | ");
        push_state(&mut out, t);
        out.push_str(" |\n");
    }
    let left_out: Vec<(&SectionTally, &LeftOut)> =
        sections.iter().flat_map(|t| t.left_out.iter().map(move |v| (t, v))).collect();
    if !left_out.is_empty() {
        let _ = write!(
            out,
            "\nLeft out of the tally: {} with a `voting/vote-entry` error\n\n",
            if left_out.len() == 1 { "1 vote".to_string() } else { format!("{} votes", left_out.len()) }
        );
        for (t, v) in left_out {
            let _ = writeln!(out, "- section `{}`, {}", t.section, describe_left_out(v));
        }
    }
    out
}

/// The plain-text rendering of `gatehouse tally FILE`.
pub fn render_text(report: &TallyReport) -> String {
    let mut out = report.path.clone();
    if let (Some(doc), Some(version)) = (&report.doc, report.version) {
        out.push_str(&format!(" ({doc}@v{version})"));
    }
    out.push('\n');
    for t in &report.sections {
        out.push_str(&format!("\n## {} (line {})\n", t.heading, t.line));
        out.push_str(&format!("  section          {}\n", t.section));
        for a in &t.arguments {
            let kind = a.kind.as_deref().unwrap_or("?");
            let lead = if t.leaders.contains(&a.id) { "  <- top" } else { "" };
            let votes = if a.votes == 1 { "1 vote".to_string() } else { format!("{} votes", a.votes) };
            out.push_str(&format!("  argument {:<8}{:>10}  {votes}, {kind}{lead}\n", a.id, signed(a.total)));
        }
        let quorum = if t.quorum_met { "met" } else { "not met" };
        out.push_str(&format!(
            "  weighted votes   {} (quorum {}: {quorum})\n",
            number(t.weighted_votes),
            number(QUORUM)
        ));
        if let Some(m) = t.margin {
            let ok = if m >= MARGIN { "met" } else { "not met" };
            out.push_str(&format!("  margin           {} (needs +{}: {ok})\n", signed(m), number(MARGIN)));
        }
        let state = match t.state {
            State::RetirementEligible => format!("retirement-eligible (may retire: {})", t.losers.join(", ")),
            state => state.as_str().to_string(),
        };
        out.push_str(&format!("  state            {state}\n"));
        if !t.left_out.is_empty() {
            let votes =
                if t.left_out.len() == 1 { "1 vote".to_string() } else { format!("{} votes", t.left_out.len()) };
            out.push_str(&format!("  left out         {votes} with a voting/vote-entry error\n"));
            for v in &t.left_out {
                out.push_str(&format!("    {}\n", describe_left_out(v)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn whole_micro_units_print_as_the_float_formatted_to_six_places(micros in -999_999_999_999_999i64..999_999_999_999_999) {
            let value = micros as f64 / MICRO;
            proptest::prop_assert_eq!(number(value), six_places(value));
        }
    }

    #[test]
    fn numbers_at_the_edges() {
        for value in [0.0, -0.0, 5.0, 10.0, -3.0, 1.4, 0.000_001, -0.000_000_4, 123_456.789, 1e20, -1e20, 2.5e-7] {
            assert_eq!(number(value), six_places(value), "{value}");
        }
    }
}
