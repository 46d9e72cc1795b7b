//! Inline SVG charts: a section's tally (ADR-140) and a spec's place on the
//! v9 stage path. Each chart carries a `<title>` and a `<desc>` that say in
//! words what it shows; every number drawn is also in a table beside it.

use std::fmt::Write as _;

use super::html::{attr, esc};
use crate::docs::voting::tally::{MARGIN, QUORUM, SectionTally, describe, number, signed};

const WIDTH: f64 = 480.0;
const PLOT_LEFT: f64 = 84.0;
const PLOT_RIGHT: f64 = 404.0;
const ROW: f64 = 26.0;

/// A linear scale from `[lo, hi]` onto the plot's width.
struct Scale {
    lo: f64,
    hi: f64,
}

impl Scale {
    fn new(values: impl IntoIterator<Item = f64>) -> Scale {
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for v in values {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let pad = ((hi - lo) * 0.05).max(0.5);
        Scale { lo: if lo < 0.0 { lo - pad } else { lo }, hi: hi + pad }
    }

    fn x(&self, v: f64) -> f64 {
        PLOT_LEFT + (v - self.lo) / (self.hi - self.lo) * (PLOT_RIGHT - PLOT_LEFT)
    }
}

/// At most `n` characters of `text`, for a label.
fn short(text: &str, n: usize) -> String {
    if text.chars().count() <= n { text.to_string() } else { text.chars().take(n - 1).chain(['…']).collect() }
}

/// The tally of one section: the weighted votes against the quorum line,
/// then each argument's weighted total with the margin line (the leader's
/// total less 5: a runner-up at or left of it lets the others retire), or,
/// for a lone argument, the +5 line it must reach to lock.
pub fn tally(out: &mut String, id: &str, t: &SectionTally) {
    let rows = t.arguments.len().max(1) as f64;
    let height = 108.0 + rows * ROW + 24.0;
    let _ = writeln!(
        out,
        "<svg role=\"img\" aria-labelledby=\"{id}-t {id}-d\" viewBox=\"0 0 {WIDTH} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\
<title id=\"{id}-t\">Tally of section {}</title><desc id=\"{id}-d\">{}</desc>",
        esc(&t.section),
        esc(&describe(t))
    );
    // The weighted votes against the quorum.
    let votes = Scale::new([t.weighted_votes, QUORUM]);
    let quorum_x = votes.x(QUORUM);
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"16\" font-size=\"13\" font-weight=\"600\">Weighted votes (quorum {q})</text>\
<rect x=\"{x0}\" y=\"26\" width=\"{w:.1}\" height=\"18\" fill=\"#5a7fb0\"/>\
<line x1=\"{quorum_x:.1}\" y1=\"22\" x2=\"{quorum_x:.1}\" y2=\"48\" stroke=\"#1a1a1a\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>\
<text x=\"{quorum_x:.1}\" y=\"62\" font-size=\"11\" text-anchor=\"middle\">quorum {q}</text>\
<text x=\"{WIDTH}\" y=\"40\" font-size=\"13\" text-anchor=\"end\">{n}</text>",
        q = number(QUORUM),
        x0 = PLOT_LEFT,
        w = (votes.x(t.weighted_votes) - PLOT_LEFT).max(0.0),
        n = number(t.weighted_votes),
    );
    let _ =
        writeln!(out, "<text x=\"0\" y=\"90\" font-size=\"13\" font-weight=\"600\">Weighted total per argument</text>");
    let top = t.arguments.iter().map(|a| a.total).fold(f64::NEG_INFINITY, f64::max);
    let (line, line_label) = match t.arguments.len() {
        0 => (None, String::new()),
        1 => (Some(MARGIN), format!("lock at +{}", number(MARGIN))),
        _ => (Some(top - MARGIN), format!("margin: top {} − {}", signed(top), number(MARGIN))),
    };
    let scale = Scale::new(t.arguments.iter().map(|a| a.total).chain(line));
    let zero = scale.x(0.0);
    let first = 100.0;
    if t.arguments.is_empty() {
        let _ = writeln!(out, "<text x=\"{PLOT_LEFT}\" y=\"{}\" font-size=\"13\">no arguments</text>", first + 16.0);
    }
    for (i, a) in t.arguments.iter().enumerate() {
        let y = first + i as f64 * ROW;
        let end = scale.x(a.total);
        let (x, w) = if end >= zero { (zero, end - zero) } else { (end, zero - end) };
        let lead = t.leaders.contains(&a.id);
        let fill = if lead { "#0b4f9c" } else { "#5a7fb0" };
        let _ = writeln!(
            out,
            "<text x=\"{lx}\" y=\"{ty:.1}\" font-size=\"13\" text-anchor=\"end\">{label}</text>\
<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"18\" fill=\"{fill}\"><title>{title}</title></rect>\
<text x=\"{WIDTH}\" y=\"{ty:.1}\" font-size=\"13\" text-anchor=\"end\"{weight}>{value}</text>",
            lx = PLOT_LEFT - 6.0,
            ty = y + 14.0,
            label = esc(&short(&a.id, 10)),
            w = w.max(1.0),
            title = esc(&format!("{} {}", a.id, signed(a.total))),
            weight = if lead { " font-weight=\"700\"" } else { "" },
            value = esc(&signed(a.total)),
        );
    }
    let bottom = first + rows * ROW;
    let _ = writeln!(
        out,
        "<line x1=\"{zero:.1}\" y1=\"{y1}\" x2=\"{zero:.1}\" y2=\"{bottom}\" stroke=\"#1a1a1a\" stroke-width=\"1\"/>",
        y1 = first - 4.0
    );
    if let Some(at) = line {
        let x = scale.x(at);
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{y1}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#a1000e\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>\
<text x=\"{x:.1}\" y=\"{ty}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            attr(&line_label),
            y1 = first - 4.0,
            ty = bottom + 14.0
        );
    }
    out.push_str("</svg>");
}

/// The v9 stages in order; `abandoned` leaves the path.
pub const STAGES: [&str; 7] = ["brief", "pre-plan", "plan", "implementation", "audit", "handover", "done"];

/// The stage path with `current` (an index into [`STAGES`]) marked; stages
/// before it are filled, those after it hollow. `None` draws the path with
/// no stage marked (an abandoned spec, or one without a valid state).
pub fn stages(out: &mut String, id: &str, current: Option<usize>, state: &str, abandoned: bool) {
    let step = 80.0;
    let width = step * STAGES.len() as f64;
    let where_ = match (current, abandoned) {
        (_, true) => "The spec was abandoned: it left the path.".to_string(),
        (Some(i), _) => format!("Current stage: {} ({} of {}), state {state}.", STAGES[i], i + 1, STAGES.len()),
        (None, _) => "The spec has no valid current state.".to_string(),
    };
    let _ = writeln!(
        out,
        "<svg role=\"img\" aria-labelledby=\"{id}-t {id}-d\" viewBox=\"0 0 {width} 84\" xmlns=\"http://www.w3.org/2000/svg\">\
<title id=\"{id}-t\">Stage path</title><desc id=\"{id}-d\">Stages: {}. {}</desc>",
        STAGES.join(" → "),
        esc(&where_)
    );
    let _ = writeln!(
        out,
        "<line x1=\"{}\" y1=\"28\" x2=\"{}\" y2=\"28\" stroke=\"#4a4a4a\" stroke-width=\"3\"{}/>",
        step / 2.0,
        width - step / 2.0,
        if abandoned { " stroke-dasharray=\"6 4\"" } else { "" }
    );
    for (i, name) in STAGES.iter().enumerate() {
        let x = step / 2.0 + i as f64 * step;
        let (fill, r, weight) = match current {
            Some(c) if c == i => ("#0b4f9c", 13.0, " font-weight=\"700\""),
            Some(c) if i < c => ("#5a7fb0", 9.0, ""),
            _ => ("#ffffff", 9.0, ""),
        };
        let _ = writeln!(
            out,
            "<circle cx=\"{x}\" cy=\"28\" r=\"{r}\" fill=\"{fill}\" stroke=\"#1a1a1a\" stroke-width=\"2\"/>\
<text x=\"{x}\" y=\"62\" font-size=\"12\" text-anchor=\"middle\"{weight}>{name}</text>"
        );
        if current == Some(i) {
            let _ = writeln!(out, "<text x=\"{x}\" y=\"78\" font-size=\"11\" text-anchor=\"middle\">now</text>");
        }
    }
    out.push_str("</svg>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::voting::tally::{ArgumentTally, State};

    fn section(totals: &[(&str, f64)]) -> SectionTally {
        SectionTally {
            section: "s<1>".into(),
            heading: "S".into(),
            line: 1,
            arguments: totals
                .iter()
                .map(|(id, total)| ArgumentTally { id: id.to_string(), kind: None, total: *total, votes: 1 })
                .collect(),
            weighted_votes: 12.0,
            quorum: QUORUM,
            quorum_met: true,
            margin: None,
            state: State::Open,
            leaders: vec![totals.first().map_or(String::new(), |t| t.0.to_string())],
            losers: Vec::new(),
            active_argument: None,
            ignored_votes: 0,
            left_out: Vec::new(),
        }
    }

    #[test]
    fn a_tally_chart_names_its_numbers_and_escapes_ids() {
        let mut out = String::new();
        tally(&mut out, "c1", &section(&[("A", 7.5), ("<B>", -2.0)]));
        assert!(out.contains("<title id=\"c1-t\">Tally of section s&lt;1&gt;</title>"), "{out}");
        assert!(out.contains(">+7.5</text>") && out.contains(">-2</text>"), "{out}");
        assert!(out.contains("&lt;B&gt;") && !out.contains("<B>"), "{out}");
        assert!(out.contains("margin: top +7.5 − 5"), "{out}");
        assert!(out.contains("quorum 10"), "{out}");
        let mut lone = String::new();
        tally(&mut lone, "c2", &section(&[("A", 6.0)]));
        assert!(lone.contains("lock at +5"), "{lone}");
    }

    #[test]
    fn the_stage_path_marks_the_current_stage() {
        let mut out = String::new();
        stages(&mut out, "p", Some(2), "plan:Review", false);
        assert!(out.contains("Current stage: plan (3 of 7), state plan:Review."), "{out}");
        assert_eq!(out.matches(">now</text>").count(), 1);
    }
}
