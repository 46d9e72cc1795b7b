use super::SpecView;
use crate::docs::spec::state::{Part, State, Step};
use crate::model::{Fix, Sink, Span};

declare_rule! {
    id: "spec/state-grammar",
    view: SpecView,
    severity: Error,
    summary: "`current-state.txt` is one line `<stage>[:<NN>|:<part>][:<Step>]`",
    why: "fondue `spec` v9, State: \"`current-state.txt` is `<stage>[:<NN>|:<part>][:<Step>]`. `NN` appears in \
`implementation` only, and `part` in `audit` only: `tests`, `conventions` or `fixes`, for the topic \
`audit-<part>`. `Step` appears in `pre-plan`, `plan`, `implementation` and `audit`, and in `handover` while \
the update runs.\" Stages are brief, pre-plan, plan, implementation, audit, handover, done and abandoned; \
`NN` is always two digits from `01`; a step is Draft, Review or Answer. Every session reads this one line \
first, so anything else on it (trailing words, a second line) is a state nobody can act on.",
    fix: "rewrites a state whose spelling alone is off: a one-digit phase, a stage, part or step in another \
case, stray spaces or blank lines (`implementation:3:draft` becomes `implementation:03:Draft`); words after \
the state are the author's to move elsewhere",
    bad: "fondue/specs/retry-queue/current-state.txt",
    good: "fondue/specs/retry-queue/current-state.txt",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        let Some(Err(e)) = &spec.state else { continue };
        let path = spec.path("current-state.txt");
        let fix = spec.text("current-state.txt").and_then(|text| {
            let state = respelled(text)?;
            Some(Fix::replace(format!("write `{state}`"), &path, 0..text.len(), format!("{state}\n")))
        });
        // The part at fault: from the column to the next `:` or space.
        let width =
            spec.text("current-state.txt").and_then(|text| text.lines().nth(e.line as usize - 1)).map_or(1, |line| {
                line.chars().skip(e.col.max(1) as usize - 1).take_while(|c| *c != ':' && !c.is_whitespace()).count()
                    as u32
            });
        sink.emit(&path, Span::at(e.line, e.col, width), "grammar", e.message.clone())
            .help(
                "write exactly one state and a newline, e.g. `pre-plan:Review`, `implementation:03:Draft`, \
`audit:tests:Review`, `handover` or `done`",
            )
            .fix(fix);
    }
}

/// The state a file means when only its spelling is off: one word on its
/// only non-blank line, with a stage, part or step in another case or a
/// one-digit phase.
fn respelled(text: &str) -> Option<State> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let word = lines.next()?.trim();
    if lines.next().is_some() || word.contains(char::is_whitespace) {
        return None;
    }
    let segments: Vec<String> = word
        .split(':')
        .enumerate()
        .map(|(i, seg)| {
            if i == 0 {
                return seg.to_ascii_lowercase();
            }
            if let Some(step) = Step::ALL.iter().find(|s| s.as_str().eq_ignore_ascii_case(seg)) {
                return step.as_str().to_string();
            }
            if let Some(part) = Part::ALL.iter().find(|p| p.as_str().eq_ignore_ascii_case(seg)) {
                return part.as_str().to_string();
            }
            match seg.as_bytes() {
                [d] if (b'1'..=b'9').contains(d) => format!("0{seg}"),
                _ => seg.to_string(),
            }
        })
        .collect();
    State::parse(&segments.join(":")).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn misspelled_states_are_respelled() {
        for (text, state) in [
            ("implementation:3:draft", "implementation:03:Draft"),
            ("Audit:Tests:review\n\n", "audit:tests:Review"),
            ("  plan:Draft \n", "plan:Draft"),
        ] {
            assert_eq!(super::respelled(text).map(|s| s.to_string()).as_deref(), Some(state), "{text:?}");
        }
        for text in
            ["implementation:02:Review (waiting)", "plan:Draft\nnote", "planning:Draft", "implementation:0:Draft"]
        {
            assert_eq!(super::respelled(text), None, "{text:?}");
        }
    }
}
