//! Inline SVG charts: a section's tally (ADR-140) and a spec's place on the
//! v9 stage path. Each chart carries a `<title>` and a `<desc>` that say in
//! words what it shows; every number drawn is also in a table beside it.

use askama::Template;

use crate::docs::voting::tally::{MARGIN, QUORUM, SectionTally, describe, number, signed};

const WIDTH: f64 = 420.0;
const PLOT_LEFT: f64 = 84.0;
const PLOT_RIGHT: f64 = 344.0;
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

/// One argument's bar.
struct Bar {
    label: String,
    title: String,
    value: String,
    y: f64,
    x: f64,
    width: f64,
    lead: bool,
}

/// The line a section's arguments are measured against, and its label.
struct Line {
    x: f64,
    label: String,
}

/// The tally of one section: the weighted votes against the quorum line,
/// then each argument's weighted total with the margin line (the leader's
/// total less 5: a runner-up at or left of it lets the others retire), or,
/// for a lone argument, the +5 line it must reach to lock.
#[derive(Template)]
#[template(
    ext = "html",
    source = "<svg role=\"img\" aria-labelledby=\"{{ id }}-t {{ id }}-d\" width=\"{{ self::WIDTH }}\" viewBox=\"0 0 {{ self::WIDTH }} {{ height }}\" \
xmlns=\"http://www.w3.org/2000/svg\"><title id=\"{{ id }}-t\">Tally of section {{ section }}</title>\
<desc id=\"{{ id }}-d\">{{ description }}</desc>\n\
<text x=\"0\" y=\"16\" font-size=\"15\" font-weight=\"600\">Weighted votes (quorum {{ quorum }})</text>\
<rect x=\"{{ self::PLOT_LEFT }}\" y=\"26\" width=\"{{ votes_width|fmt(\"{:.1}\") }}\" height=\"18\" fill=\"#5a7fb0\"/>\
<line x1=\"{{ quorum_x|fmt(\"{:.1}\") }}\" y1=\"22\" x2=\"{{ quorum_x|fmt(\"{:.1}\") }}\" y2=\"48\" stroke=\"#1a1a1a\" \
stroke-width=\"2\" stroke-dasharray=\"4 3\"/><text x=\"{{ quorum_x|fmt(\"{:.1}\") }}\" y=\"62\" font-size=\"15\" \
text-anchor=\"middle\">quorum {{ quorum }}</text><text x=\"{{ self::WIDTH }}\" y=\"40\" font-size=\"15\" \
text-anchor=\"end\">{{ weighted }}</text>\n\
<text x=\"0\" y=\"90\" font-size=\"15\" font-weight=\"600\">Weighted total per argument</text>\n\
{% if bars.is_empty() %}<text x=\"{{ self::PLOT_LEFT }}\" y=\"{{ self::FIRST + 16.0 }}\" font-size=\"15\">no arguments</text>\n{% endif %}\
{% for bar in bars %}<text x=\"{{ self::PLOT_LEFT - 6.0 }}\" y=\"{{ (bar.y + 14.0)|fmt(\"{:.1}\") }}\" font-size=\"15\" \
text-anchor=\"end\">{{ bar.label }}</text><rect x=\"{{ bar.x|fmt(\"{:.1}\") }}\" y=\"{{ bar.y|fmt(\"{:.1}\") }}\" \
width=\"{{ bar.width|fmt(\"{:.1}\") }}\" height=\"18\" fill=\"{% if bar.lead %}#0b4f9c{% else %}#5a7fb0{% endif %}\">\
<title>{{ bar.title }}</title></rect><text x=\"{{ self::WIDTH }}\" y=\"{{ (bar.y + 14.0)|fmt(\"{:.1}\") }}\" font-size=\"15\" \
text-anchor=\"end\"{% if bar.lead %} font-weight=\"700\"{% endif %}>{{ bar.value }}</text>\n{% endfor %}\
<line x1=\"{{ zero|fmt(\"{:.1}\") }}\" y1=\"{{ self::FIRST - 4.0 }}\" x2=\"{{ zero|fmt(\"{:.1}\") }}\" y2=\"{{ bottom }}\" \
stroke=\"#1a1a1a\" stroke-width=\"1\"/>\n\
{% if let Some(line) = line %}<line x1=\"{{ line.x|fmt(\"{:.1}\") }}\" y1=\"{{ self::FIRST - 4.0 }}\" x2=\"{{ line.x|fmt(\"{:.1}\") }}\" \
y2=\"{{ bottom }}\" stroke=\"#a1000e\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/><text x=\"{{ line.x|fmt(\"{:.1}\") }}\" \
y=\"{{ bottom + 18.0 }}\" font-size=\"15\" text-anchor=\"middle\">{{ line.label }}</text>\n{% endif %}</svg>"
)]
pub(super) struct Tally<'a> {
    id: String,
    section: &'a str,
    description: String,
    height: f64,
    quorum: String,
    weighted: String,
    votes_width: f64,
    quorum_x: f64,
    bars: Vec<Bar>,
    zero: f64,
    bottom: f64,
    line: Option<Line>,
}

/// Where the first argument's bar starts.
const FIRST: f64 = 100.0;

impl<'a> Tally<'a> {
    pub(super) fn new(id: String, t: &'a SectionTally) -> Tally<'a> {
        let rows = t.arguments.len().max(1) as f64;
        let votes = Scale::new([t.weighted_votes, QUORUM]);
        let top = t.arguments.iter().map(|a| a.total).fold(f64::NEG_INFINITY, f64::max);
        let (line, line_label) = match t.arguments.len() {
            0 => (None, String::new()),
            1 => (Some(MARGIN), format!("lock at +{}", number(MARGIN))),
            _ => (Some(top - MARGIN), format!("margin: top {} − {}", signed(top), number(MARGIN))),
        };
        let scale = Scale::new(t.arguments.iter().map(|a| a.total).chain(line));
        let zero = scale.x(0.0);
        let bars = t
            .arguments
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let end = scale.x(a.total);
                let (x, width) = if end >= zero { (zero, end - zero) } else { (end, zero - end) };
                Bar {
                    label: short(&a.id, 8),
                    title: format!("{} {}", a.id, signed(a.total)),
                    value: signed(a.total),
                    y: FIRST + i as f64 * ROW,
                    x,
                    width: width.max(1.0),
                    lead: t.leaders.contains(&a.id),
                }
            })
            .collect();
        Tally {
            id,
            section: &t.section,
            // Read aloud, so without the code marks a terminal shows.
            description: describe(t).replace('`', ""),
            height: 108.0 + rows * ROW + 28.0,
            quorum: number(QUORUM),
            weighted: number(t.weighted_votes),
            votes_width: (votes.x(t.weighted_votes) - PLOT_LEFT).max(0.0),
            quorum_x: votes.x(QUORUM),
            bars,
            zero,
            bottom: FIRST + rows * ROW,
            line: line.map(|at| Line { x: scale.x(at), label: line_label }),
        }
    }
}

// The v9 stages in order; `abandoned` leaves the path.
pub(super) use crate::docs::spec::state::STAGES;

/// One stage's circle.
struct Stop {
    name: &'static str,
    x: f64,
    fill: &'static str,
    radius: f64,
    current: bool,
    /// Labels alternate between two rows, so that each has room at 20 units
    /// (12 px where the path is drawn 390 px wide).
    label_y: f64,
}

/// The stage path with the current stage marked; stages before it are
/// filled, those after it hollow. Without a current stage the path has no
/// stage marked (an abandoned spec, or one without a valid state).
#[derive(Template)]
#[template(
    ext = "html",
    source = "<svg role=\"img\" aria-labelledby=\"{{ id }}-t {{ id }}-d\" width=\"{{ width }}\" viewBox=\"0 0 {{ width }} 108\" \
xmlns=\"http://www.w3.org/2000/svg\"><title id=\"{{ id }}-t\">Stage path</title><desc id=\"{{ id }}-d\">Stages: \
{{ path }}. {{ where_ }}</desc>\n<line x1=\"{{ self::STEP / 2.0 }}\" y1=\"40\" x2=\"{{ width - self::STEP / 2.0 }}\" y2=\"40\" \
stroke=\"#4a4a4a\" stroke-width=\"3\"{% if abandoned %} stroke-dasharray=\"6 4\"{% endif %}/>\n\
{% for stop in stops %}<circle cx=\"{{ stop.x }}\" cy=\"40\" r=\"{{ stop.radius }}\" fill=\"{{ stop.fill }}\" \
stroke=\"#1a1a1a\" stroke-width=\"2\"/><text x=\"{{ stop.x }}\" y=\"{{ stop.label_y }}\" font-size=\"20\" text-anchor=\"middle\"\
{% if stop.current %} font-weight=\"700\"{% endif %}>{{ stop.name }}</text>\n\
{% if stop.current %}<text x=\"{{ stop.x }}\" y=\"20\" font-size=\"20\" text-anchor=\"middle\">now</text>\n{% endif %}\
{% endfor %}</svg>"
)]
pub(super) struct Stages<'a> {
    id: &'a str,
    width: f64,
    path: String,
    where_: String,
    abandoned: bool,
    stops: Vec<Stop>,
}

/// The distance between two stages.
const STEP: f64 = 80.0;

impl<'a> Stages<'a> {
    /// `current` is an index into [`STAGES`].
    pub(super) fn new(id: &'a str, current: Option<usize>, state: &str, abandoned: bool) -> Stages<'a> {
        let where_ = match (current, abandoned) {
            (_, true) => "The spec was abandoned: it left the path.".to_string(),
            (Some(i), _) => format!("Current stage: {} ({} of {}), state {state}.", STAGES[i], i + 1, STAGES.len()),
            (None, _) => "The spec has no valid current state.".to_string(),
        };
        let stops = STAGES
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let (fill, radius) = match current {
                    Some(c) if c == i => ("#0b4f9c", 13.0),
                    Some(c) if i < c => ("#5a7fb0", 9.0),
                    _ => ("#ffffff", 9.0),
                };
                let label_y = if i % 2 == 0 { 76.0 } else { 100.0 };
                Stop { name, x: STEP / 2.0 + i as f64 * STEP, fill, radius, current: current == Some(i), label_y }
            })
            .collect();
        Stages { id, width: STEP * STAGES.len() as f64, path: STAGES.join(" → "), where_, abandoned, stops }
    }
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
        let out = super::super::html::render(&Tally::new("c1".into(), &section(&[("A", 7.5), ("<B>", -2.0)])));
        assert!(out.contains("<title id=\"c1-t\">Tally of section s&lt;1&gt;</title>"), "{out}");
        assert!(out.contains(">+7.5</text>") && out.contains(">-2</text>"), "{out}");
        assert!(out.contains("&lt;B&gt;") && !out.contains("<B>"), "{out}");
        assert!(out.contains("margin: top +7.5 − 5"), "{out}");
        assert!(out.contains("quorum 10"), "{out}");
        let lone = super::super::html::render(&Tally::new("c2".into(), &section(&[("A", 6.0)])));
        assert!(lone.contains("lock at +5"), "{lone}");
    }

    #[test]
    fn the_stage_path_marks_the_current_stage() {
        let out = super::super::html::render(&Stages::new("p", Some(2), "plan:Review", false));
        assert!(out.contains("Current stage: plan (3 of 7), state plan:Review."), "{out}");
        assert_eq!(out.matches(">now</text>").count(), 1);
    }
}
