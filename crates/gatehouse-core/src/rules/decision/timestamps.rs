use super::{Decision, DecisionView, value_span};
use crate::docs::decision::Manifest;
use crate::docs::json::Json;
use crate::docs::timestamp::{self, Timestamp};
use crate::model::{Fix, Severity, Sink};
use crate::rules::fixes::scalar_range;

declare_rule! {
    id: "decision/timestamps",
    view: DecisionView,
    severity: Error,
    summary: "timestamps are RFC 3339 date-times, never before `filed_at` (a review never before its resolution)",
    why: "ADR 0007's `decision.filed|resolved|reviewed` events \"feed the metrics (interrupt rate, \
override rate) with no new telemetry\": the manifest's `filed_at`, `updated_at`, \
`resolution.resolved_at` and `review.reviewed_at` are those metrics' clock. Each is an ISO 8601 \
date-time in the RFC 3339 profile the engine writes (`2026-07-08T14:05:00Z`, an offset or `Z` \
required), and time runs forward through the lifecycle: nothing happens before the decision was \
filed, and no review before the resolution it reviews. `filed_at` itself is fixed once the decision \
is filed. A value gatehouse cannot read as a date at all (`yesterday`, `07/08/2026 11:40`, whose day \
and month could be either way round) is a warning that says so; one that starts with a `YYYY-MM-DD` date \
but is no RFC 3339 date-time is an error.",
    fix: "rewrites a date-time written in another form of the same instant in the RFC 3339 form \
(`2026-07-08 11:40Z` becomes `2026-07-08T11:40:00Z`, `+0200` becomes `+02:00`), and restores a changed \
`filed_at`; a date-time without a time zone needs the author to say which",
    bad: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
    good: ".harnery/decisions/retry-budget-2026-07-08-3f9a.json",
}

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        let m = &d.head;
        let block = |key: &str, field: &str| m.get(key).and_then(|b| b.get(field));
        let fields = [
            ("filed_at", m.get("filed_at")),
            ("updated_at", m.get("updated_at")),
            ("resolution.resolved_at", block("resolution", "resolved_at")),
            ("review.reviewed_at", block("review", "reviewed_at")),
        ];
        let mut parsed: [Option<Timestamp>; 4] = [None; 4];
        for (i, (name, node)) in fields.iter().enumerate() {
            // Only strings are read here: other types are decision/schema's finding.
            let Some((text, node)) = node.and_then(|n| Some((n.as_str()?, n))) else { continue };
            parsed[i] = timestamp::parse(text);
            if parsed[i].is_none() {
                // A value that opens with a calendar date is read as one; any
                // other form is one gatehouse cannot read.
                let read = dated(text);
                let message = if read {
                    format!("`{name}` is {text:?}, not an RFC 3339 date-time")
                } else {
                    format!("gatehouse cannot read `{name}`, {text:?}, as a date-time")
                };
                sink.emit(m.path, value_span(m, node), *name, message)
                    .help("write a date-time with a time zone, e.g. `2026-07-08T14:05:00Z`")
                    .severity(if read { Severity::Error } else { Severity::Warning })
                    .fix(canonical(text).and_then(|canonical| set(m.text, m.path, node, name, &canonical)));
            }
        }
        let [filed, _, resolved, _] = parsed;
        refiled(d, sink);
        let earlier = |i: usize, than: Option<Timestamp>| parsed[i].zip(than).is_some_and(|(t, bound)| t < bound);
        for (i, (name, node)) in fields.iter().enumerate().skip(1) {
            let Some(node) = node else { continue };
            if earlier(i, filed) {
                before(sink, m, node, name, "filed_at");
            } else if i == 3 && earlier(i, resolved) {
                before(sink, m, node, name, "resolution.resolved_at");
            }
        }
    }
}

fn before(sink: &mut Sink, m: &Manifest, node: &Json, name: &str, bound: &str) {
    sink.emit(m.path, value_span(m, node), format!("order:{name}"), format!("`{name}` is earlier than `{bound}`"))
        .help(format!("a decision's clock runs forward: `{name}` is at or after `{bound}`"));
}

/// `filed_at` records when the question was filed: an edit never moves it.
fn refiled(d: &Decision, sink: &mut Sink) {
    let before = d.base.as_ref().and_then(|b| b.get("filed_at")?.as_str());
    let Some((node, text)) = d.head.get("filed_at").and_then(|n| Some((n, n.as_str()?))) else { return };
    if let Some(before) = before.filter(|b| *b != text) {
        sink.emit(
            d.head.path,
            value_span(&d.head, node),
            "refiled",
            format!("`filed_at` changed from {before:?} to {text:?}"),
        )
        .help(format!("restore `\"filed_at\": {before:?}`: it records when the decision was filed"))
        .fix(set(d.head.text, d.head.path, node, "filed_at", before));
    }
}

/// Sets the string at `node` of the manifest `text` to `value`.
fn set(text: &str, path: &str, node: &Json, name: &str, value: &str) -> Option<Fix> {
    let range = scalar_range(text, node.line, node.col, false)?;
    let quoted = serde_json::to_string(value).ok()?;
    Some(Fix::replace(format!("write `\"{name}\": {quoted}`"), path, range, quoted))
}

/// The RFC 3339 form of a date-time written in another form of it: a space
/// or lower-case `t` between date and time, minutes without seconds, an
/// offset without its colon (`+0200`), `UTC` for `Z`. `None` when the text
/// names no instant (no time zone).
/// Whether `text` opens with a `YYYY-MM-DD` calendar date.
fn dated(text: &str) -> bool {
    let date = text.trim().as_bytes();
    date.len() >= 10
        && date[..10].iter().enumerate().all(|(i, b)| if i == 4 || i == 7 { *b == b'-' } else { b.is_ascii_digit() })
}

fn canonical(text: &str) -> Option<String> {
    let text = text.trim();
    let (date, rest) = (text.get(..10)?, text.get(10..)?);
    let rest = rest.strip_prefix([' ', 'T', 't'])?.trim_start();
    let zone_at = rest.find(['Z', 'z', '+', '-', ' ']).unwrap_or(rest.len());
    let (time, zone) = rest.split_at(zone_at);
    let time = if time.len() == 5 { format!("{time}:00") } else { time.to_string() };
    let zone = match zone.trim() {
        "Z" | "z" | "UTC" => "Z".to_string(),
        offset if offset.len() == 5 && offset.bytes().skip(1).all(|b| b.is_ascii_digit()) => {
            format!("{}:{}", &offset[..3], &offset[3..])
        }
        offset => offset.to_string(),
    };
    let canonical = format!("{date}T{time}{zone}");
    (canonical != text && timestamp::parse(&canonical).is_some()).then_some(canonical)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_value_that_opens_with_a_date_is_read() {
        for text in ["2026-07-08", "2026-07-08 11:40", "2026-02-30T11:40:00Z"] {
            assert!(super::dated(text), "{text}");
        }
        for text in ["yesterday", "07/08/2026 11:40", "2026-7-8", ""] {
            assert!(!super::dated(text), "{text}");
        }
    }

    #[test]
    fn other_forms_of_an_instant_become_rfc_3339() {
        for (text, canonical) in [
            ("2026-07-08 11:40Z", "2026-07-08T11:40:00Z"),
            ("2026-07-08T11:40:05+0200", "2026-07-08T11:40:05+02:00"),
            ("2026-07-08 11:40:05 UTC", "2026-07-08T11:40:05Z"),
            ("2026-07-08t11:40:05.5z", "2026-07-08T11:40:05.5Z"),
        ] {
            assert_eq!(super::canonical(text).as_deref(), Some(canonical), "{text}");
        }
        for text in ["2026-07-08 11:40", "2026-07-08", "2026-07-08T11:40:00Z", "2026-02-30 11:40Z", "yesterday"] {
            assert_eq!(super::canonical(text), None, "{text}");
        }
    }
}
