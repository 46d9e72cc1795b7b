//! `current-state.txt` (fondue `spec` v9, State): one line,
//! `<stage>[:<NN>|:<part>][:<Step>]`. `NN` appears in `implementation` only,
//! `part` in `audit` only; `Step` in `pre-plan`, `plan`, `implementation`,
//! `audit`, and in `handover` while the update runs.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Draft,
    Review,
    Answer,
}

impl Step {
    pub const ALL: [Step; 3] = [Step::Draft, Step::Review, Step::Answer];

    pub fn parse(word: &str) -> Option<Step> {
        match word {
            "Draft" => Some(Step::Draft),
            "Review" => Some(Step::Review),
            "Answer" => Some(Step::Answer),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Step::Draft => "Draft",
            Step::Review => "Review",
            Step::Answer => "Answer",
        }
    }
}

/// The audit's topics: `audit-<part>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    Tests,
    Conventions,
    Fixes,
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Tests, Part::Conventions, Part::Fixes];

    pub fn parse(word: &str) -> Option<Part> {
        match word {
            "tests" => Some(Part::Tests),
            "conventions" => Some(Part::Conventions),
            "fixes" => Some(Part::Fixes),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Part::Tests => "tests",
            Part::Conventions => "conventions",
            Part::Fixes => "fixes",
        }
    }
}

/// A review topic: the folder `review/<topic>/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Topic {
    PrePlan,
    Plan,
    Phase(u8),
    Audit(Part),
    Handover,
}

impl Topic {
    /// The folder name under `review/`.
    pub fn dir(self) -> String {
        match self {
            Topic::PrePlan => "pre-plan".into(),
            Topic::Plan => "plan".into(),
            Topic::Phase(nn) => format!("phase-{nn:02}"),
            Topic::Audit(part) => format!("audit-{}", part.as_str()),
            Topic::Handover => "handover".into(),
        }
    }

    pub fn parse_dir(dir: &str) -> Option<Topic> {
        match dir {
            "pre-plan" => Some(Topic::PrePlan),
            "plan" => Some(Topic::Plan),
            "handover" => Some(Topic::Handover),
            _ => {
                if let Some(part) = dir.strip_prefix("audit-") {
                    return Part::parse(part).map(Topic::Audit);
                }
                parse_nn(dir.strip_prefix("phase-")?).map(Topic::Phase)
            }
        }
    }

    /// Code topics carry `Build:` and `Gates:` in their requests and answers.
    pub fn is_code(self) -> bool {
        matches!(self, Topic::Phase(_) | Topic::Audit(_))
    }

    /// Lens topics (`audit-tests`, `audit-conventions`) also carry `Since:`.
    pub fn is_lens(self) -> bool {
        matches!(self, Topic::Audit(Part::Tests | Part::Conventions))
    }
}

/// The stage path of v9 (Stages, Glossary: "Stage"), then the engine's
/// `done`; `abandoned` leaves it.
pub const STAGES: [&str; 7] = ["brief", "pre-plan", "plan", "implementation", "audit", "handover", "done"];

/// A spec's state. `HandoverUpdate` is `handover:<Step>`, the update topic;
/// `Handover` is the bare `handover` stage that follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum State {
    Brief,
    PrePlan(Step),
    Plan(Step),
    Implementation(u8, Step),
    Audit(Part, Step),
    HandoverUpdate(Step),
    Handover,
    Done,
    Abandoned,
}

impl State {
    /// The topic whose turn this state is, when it has one.
    pub fn topic(self) -> Option<(Topic, Step)> {
        match self {
            State::PrePlan(s) => Some((Topic::PrePlan, s)),
            State::Plan(s) => Some((Topic::Plan, s)),
            State::Implementation(nn, s) => Some((Topic::Phase(nn), s)),
            State::Audit(p, s) => Some((Topic::Audit(p), s)),
            State::HandoverUpdate(s) => Some((Topic::Handover, s)),
            _ => None,
        }
    }

    /// `topic` at `step`.
    pub fn of_topic(topic: Topic, step: Step) -> State {
        match topic {
            Topic::PrePlan => State::PrePlan(step),
            Topic::Plan => State::Plan(step),
            Topic::Phase(nn) => State::Implementation(nn, step),
            Topic::Audit(p) => State::Audit(p, step),
            Topic::Handover => State::HandoverUpdate(step),
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, State::Done | State::Abandoned)
    }

    /// Where the state sits on the stage path: an index into [`STAGES`];
    /// `None` for `abandoned`, which leaves the path.
    pub fn stage(self) -> Option<usize> {
        match self {
            State::Brief => Some(0),
            State::PrePlan(_) => Some(1),
            State::Plan(_) => Some(2),
            State::Implementation(..) => Some(3),
            State::Audit(..) => Some(4),
            State::HandoverUpdate(_) | State::Handover => Some(5),
            State::Done => Some(6),
            State::Abandoned => None,
        }
    }

    /// Every state, with phases `01..=max_phase`.
    pub fn all(max_phase: u8) -> Vec<State> {
        let mut out = vec![State::Brief];
        out.extend(Step::ALL.map(State::PrePlan));
        out.extend(Step::ALL.map(State::Plan));
        for nn in 1..=max_phase {
            out.extend(Step::ALL.map(|s| State::Implementation(nn, s)));
        }
        for part in Part::ALL {
            out.extend(Step::ALL.map(|s| State::Audit(part, s)));
        }
        out.extend(Step::ALL.map(State::HandoverUpdate));
        out.extend([State::Handover, State::Done, State::Abandoned]);
        out
    }

    /// Parses one state, e.g. `implementation:03:Draft`. On error, the
    /// 0-based byte offset of the bad segment and what is wrong with it.
    pub fn parse(text: &str) -> Result<State, (usize, String)> {
        let mut segments = Vec::new();
        let mut at = 0;
        for seg in text.split(':') {
            segments.push((at, seg));
            at += seg.len() + 1;
        }
        let (_, stage) = segments[0];
        let rest = &segments[1..];
        let step = |i: usize| -> Result<Step, (usize, String)> {
            match rest.get(i) {
                None => Err((text.len(), format!("`{stage}` needs a step after it: `:Draft`, `:Review` or `:Answer`"))),
                Some(&(off, word)) => Step::parse(word)
                    .ok_or((off, format!("`{word}` is not a step; a step is `Draft`, `Review` or `Answer`"))),
            }
        };
        let end = |n: usize, state: State| -> Result<State, (usize, String)> {
            match rest.get(n) {
                None => Ok(state),
                Some(&(off, word)) => Err((off - 1, format!("unexpected `:{word}` after `{state}`"))),
            }
        };
        match stage {
            "brief" => end(0, State::Brief),
            "pre-plan" => end(1, State::PrePlan(step(0)?)),
            "plan" => end(1, State::Plan(step(0)?)),
            "implementation" => {
                let Some(&(off, nn)) = rest.first() else {
                    return Err((
                        text.len(),
                        "`implementation` needs a two-digit phase, e.g. `implementation:01:Draft`".into(),
                    ));
                };
                let nn = parse_nn(nn).ok_or((off, format!("`{nn}` is not a phase: `NN` is two digits, from `01`")))?;
                end(2, State::Implementation(nn, step(1)?))
            }
            "audit" => {
                let Some(&(off, part)) = rest.first() else {
                    return Err((text.len(), "`audit` needs a part, e.g. `audit:tests:Draft`".into()));
                };
                let part = Part::parse(part)
                    .ok_or((off, format!("`{part}` is not an audit part: `tests`, `conventions` or `fixes`")))?;
                end(2, State::Audit(part, step(1)?))
            }
            "handover" if rest.is_empty() => Ok(State::Handover),
            "handover" => end(1, State::HandoverUpdate(step(0)?)),
            "done" => end(0, State::Done),
            "abandoned" => end(0, State::Abandoned),
            _ => Err((
                0,
                format!(
                    "`{stage}` is not a stage: brief, pre-plan, plan, implementation, audit, handover, done or abandoned"
                ),
            )),
        }
    }
}

/// `01`..`99`: exactly two ASCII digits, never `00`.
pub fn parse_nn(text: &str) -> Option<u8> {
    let b = text.as_bytes();
    if b.len() != 2 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = (b[0] - b'0') * 10 + (b[1] - b'0');
    (n > 0).then_some(n)
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            State::Brief => f.write_str("brief"),
            State::PrePlan(s) => write!(f, "pre-plan:{}", s.as_str()),
            State::Plan(s) => write!(f, "plan:{}", s.as_str()),
            State::Implementation(nn, s) => write!(f, "implementation:{nn:02}:{}", s.as_str()),
            State::Audit(p, s) => write!(f, "audit:{}:{}", p.as_str(), s.as_str()),
            State::HandoverUpdate(s) => write!(f, "handover:{}", s.as_str()),
            State::Handover => f.write_str("handover"),
            State::Done => f.write_str("done"),
            State::Abandoned => f.write_str("abandoned"),
        }
    }
}

/// What is wrong with a state file, and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Parses `current-state.txt`: exactly one line holding a state, optionally
/// ended by a newline. Anything else (blank lines, whitespace, a second
/// line) is junk the Arbiter did not write.
pub fn parse_file(text: &str) -> Result<State, StateError> {
    let first = text.split('\n').next().unwrap_or("");
    let line = first.strip_suffix('\r').unwrap_or(first);
    // `at` is a byte offset into the first line; columns count characters.
    let err = |line_number: u32, at: usize, message: String| {
        let col = line.get(..at).map_or(at, |before| before.chars().count()) as u32 + 1;
        StateError { line: line_number, col, message }
    };
    if line.is_empty() {
        return Err(err(
            1,
            0,
            "the first line is empty: `current-state.txt` holds one state, e.g. `pre-plan:Draft`".into(),
        ));
    }
    let word_end = line.find(|c: char| c.is_whitespace()).unwrap_or(line.len());
    let state = State::parse(&line[..word_end]).map_err(|(off, message)| err(1, off, message))?;
    if word_end < line.len() {
        return Err(err(1, word_end, format!("trailing junk after `{state}`: `{}`", &line[word_end..])));
    }
    // Past the first line only one final newline may follow.
    let rest = &text[first.len()..];
    let rest = rest.strip_prefix('\n').unwrap_or(rest);
    if !rest.is_empty() {
        let junk_line = rest.split('\n').position(|l| !l.trim().is_empty()).map_or(2, |i| i as u32 + 2);
        let message = if rest.trim().is_empty() {
            format!("blank lines after `{state}`: the file is exactly one line")
        } else {
            format!("a second line after `{state}`: the file is exactly one line")
        };
        return Err(err(junk_line, 0, message));
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_state_round_trips() {
        for state in State::all(99) {
            assert_eq!(State::parse(&state.to_string()), Ok(state), "{state}");
            assert_eq!(parse_file(&format!("{state}\n")), Ok(state));
        }
    }

    #[test]
    fn each_state_sits_on_its_stage() {
        let stage = |text: &str| State::parse(text).unwrap().stage().map(|i| STAGES[i]);
        assert_eq!(stage("pre-plan:Answer"), Some("pre-plan"));
        assert_eq!(stage("implementation:03:Review"), Some("implementation"));
        assert_eq!(stage("audit:fixes:Draft"), Some("audit"));
        assert_eq!((stage("handover:Review"), stage("handover")), (Some("handover"), Some("handover")));
        assert_eq!((stage("done"), stage("abandoned")), (Some("done"), None));
    }

    #[test]
    fn seed_examples_parse() {
        for text in [
            "brief",
            "pre-plan:Review",
            "plan:Answer",
            "implementation:03:Draft",
            "audit:tests:Review",
            "handover:Review",
            "handover",
            "done",
            "abandoned",
        ] {
            assert!(State::parse(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn bad_states_say_where() {
        let cases = [
            ("implementation:3:Draft", 1, 16),
            ("implementation:00:Draft", 1, 16),
            ("implementation:01", 1, 18),
            ("audit:lint:Draft", 1, 7),
            ("pre-plan:Draft:01", 1, 15),
            ("plan", 1, 5),
            ("brief:Draft", 1, 6),
            ("light", 1, 1),
            ("plan:draft", 1, 6),
            ("pre-plan:Draft junk", 1, 15),
            ("plan:Review\nplan:Answer\n", 2, 1),
            ("plan:Review\n\n", 2, 1),
            ("", 1, 1),
            ("\nbrief", 1, 1),
        ];
        for (text, line, col) in cases {
            let e = parse_file(text).expect_err(text);
            assert_eq!((e.line, e.col), (line, col), "{text}: {}", e.message);
        }
    }

    #[test]
    fn crlf_and_no_newline_are_fine() {
        assert_eq!(parse_file("plan:Draft\r\n"), Ok(State::Plan(Step::Draft)));
        assert_eq!(parse_file("plan:Draft"), Ok(State::Plan(Step::Draft)));
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            let _ = parse_file(&text);
        }

        #[test]
        fn never_panics_near_states(text in "(brief|pre-plan|plan|implementation|audit|handover|done|abandoned|tests|fixes|[0-9]{1,3}|Draft|Review|Answer|:| |\n|é)*") {
            let _ = parse_file(&text);
        }
    }
}
