//! The v9 transition table as data: the engine's generic rows (docs/seed-coverage.md, Engine formats)
//! and the rows the `spec` skill adds (seed 003, State → Transitions). Each
//! row is written in the seed's own notation and parsed once into a pattern;
//! reachability and shortest paths are a breadth-first search over it.

use std::collections::{HashMap, VecDeque};
use std::sync::OnceLock;

use super::state::{Part, State, Step, Topic};

/// One row: in a state matching `from`, the reply `reply` moves the spec to
/// the state `to`. Placeholders: `NN` / `NN+1` a phase, `<part>` an audit
/// part, `<Step>` any step, `<x>` any topic (`pre-plan`, `plan`,
/// `implementation:NN`, `audit:<part>`, `handover`), `*` any state but
/// `done` and `abandoned`.
#[derive(Debug)]
pub struct Row {
    pub from: &'static str,
    pub reply: &'static str,
    pub to: &'static str,
    /// A condition on the disk that picks this row over its siblings.
    pub when: Option<&'static str>,
    /// The row restarts the attempt (reopen or restart): only legal with a
    /// move of the live attempt into `attempts/NN/`.
    pub reopen: bool,
    pub cite: &'static str,
}

const ENGINE: &str = "the fondue engine's generic rows, docs/seed-coverage.md";
const SEED: &str = "seed 003 (spec v9), State → Transitions";

const fn row(from: &'static str, reply: &'static str, to: &'static str, cite: &'static str) -> Row {
    Row { from, reply, to, when: None, reopen: false, cite }
}

const fn when(from: &'static str, reply: &'static str, to: &'static str, cond: &'static str) -> Row {
    Row { from, reply, to, when: Some(cond), reopen: false, cite: SEED }
}

const fn reopen(from: &'static str, reply: &'static str) -> Row {
    Row { from, reply, to: "brief", when: None, reopen: true, cite: SEED }
}

const AFTER_AUDIT: &str = "audit/findings.md exists";
const NO_FINDINGS: &str = "no audit/findings.md; the project has a knowledge base or a project skill";
const SKIPPED: &str = "no audit/findings.md; the update is skipped (no knowledge base, no project skill)";
const UPDATE_RUNS: &str = "the project has a knowledge base or a project skill";
const UPDATE_SKIPPED: &str = "the update is skipped (no knowledge base, no project skill)";

/// The fondue `spec` v9 table.
pub static V9: &[Row] = &[
    row("<x>:Draft", "DONE, request opened", "<x>:Review", ENGINE),
    row("<x>:Review", "DONE, changes-requested / approved-with-fixes", "<x>:Answer", ENGINE),
    row("<x>:Answer", "DONE, next-round", "<x>:Review", ENGINE),
    row("*", "User abandons the spec", "abandoned", ENGINE),
    row("brief", "User signs the brief off", "pre-plan:Draft", SEED),
    row("pre-plan:Review", "DONE, approved", "plan:Draft", SEED),
    row("pre-plan:Answer", "DONE, closed", "plan:Draft", SEED),
    row("plan:Review", "DONE, approved", "implementation:01:Draft", SEED),
    row("plan:Answer", "DONE, closed", "implementation:01:Draft", SEED),
    when("implementation:NN:Review", "DONE, approved", "implementation:NN+1:Draft", "NN is not the last phase"),
    when("implementation:NN:Answer", "DONE, closed", "implementation:NN+1:Draft", "NN is not the last phase"),
    when("implementation:NN:Review", "DONE, approved", "audit:tests:Draft", "NN is the last phase"),
    when("implementation:NN:Answer", "DONE, closed", "audit:tests:Draft", "NN is the last phase"),
    row("audit:tests:Draft", "DONE, nothing to change", "audit:conventions:Draft", SEED),
    row("audit:tests:Review", "DONE, approved", "audit:conventions:Draft", SEED),
    row("audit:tests:Answer", "DONE, closed", "audit:conventions:Draft", SEED),
    when("audit:conventions:Draft", "DONE, nothing to change", "audit:fixes:Draft", AFTER_AUDIT),
    when("audit:conventions:Draft", "DONE, nothing to change", "handover:Draft", NO_FINDINGS),
    when("audit:conventions:Draft", "DONE, nothing to change", "handover", SKIPPED),
    when("audit:conventions:Review", "DONE, approved", "audit:fixes:Draft", AFTER_AUDIT),
    when("audit:conventions:Answer", "DONE, closed", "audit:fixes:Draft", AFTER_AUDIT),
    when("audit:conventions:Review", "DONE, approved", "handover:Draft", NO_FINDINGS),
    when("audit:conventions:Answer", "DONE, closed", "handover:Draft", NO_FINDINGS),
    when("audit:conventions:Review", "DONE, approved", "handover", SKIPPED),
    when("audit:conventions:Answer", "DONE, closed", "handover", SKIPPED),
    when("audit:fixes:Review", "DONE, approved", "handover:Draft", UPDATE_RUNS),
    when("audit:fixes:Answer", "DONE, closed", "handover:Draft", UPDATE_RUNS),
    when("audit:fixes:Review", "DONE, approved", "handover", UPDATE_SKIPPED),
    when("audit:fixes:Answer", "DONE, closed", "handover", UPDATE_SKIPPED),
    row("handover:Draft", "DONE, nothing to update", "handover", SEED),
    row("handover:Review", "DONE, approved", "handover", SEED),
    row("handover:Answer", "DONE, closed", "handover", SEED),
    row("handover", "User closes the stage", "done", SEED),
    reopen("plan:<Step>", "BLOCKED with reopen.md, User rules to reopen"),
    reopen("implementation:NN:<Step>", "BLOCKED with reopen.md, User rules to reopen"),
    reopen("audit:<part>:<Step>", "BLOCKED with reopen.md, User rules to reopen"),
    reopen("pre-plan:<Step>", "User rules to restart the attempt"),
];

/// A slot of a pattern: a fixed value or a placeholder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot<T> {
    Is(T),
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pat {
    /// `*`: any state but `done` and `abandoned`.
    Active,
    /// `<x>:<step>`: any topic.
    AnyTopic(Slot<Step>),
    /// `implementation:NN:<step>`; `next` for `NN+1`.
    Phase {
        nn: Slot<u8>,
        next: bool,
        step: Slot<Step>,
    },
    Audit(Slot<Part>, Slot<Step>),
    PrePlan(Slot<Step>),
    Plan(Slot<Step>),
    Update(Slot<Step>),
    Fixed(State),
}

/// Values bound while matching `from`, used to build `to`.
#[derive(Clone, Copy, Default)]
struct Bind {
    topic: Option<Topic>,
    nn: Option<u8>,
    part: Option<Part>,
    step: Option<Step>,
}

fn parse_pat(text: &str) -> Pat {
    let step = |w: &str| if w == "<Step>" { Slot::Any } else { Step::parse(w).map_or(Slot::Any, Slot::Is) };
    let segs: Vec<&str> = text.split(':').collect();
    match segs.as_slice() {
        ["*"] => Pat::Active,
        ["<x>", s] => Pat::AnyTopic(step(s)),
        ["implementation", nn, s] => {
            let next = *nn == "NN+1";
            let nn = super::state::parse_nn(nn).map_or(Slot::Any, Slot::Is);
            Pat::Phase { nn, next, step: step(s) }
        }
        ["audit", part, s] => Pat::Audit(Part::parse(part).map_or(Slot::Any, Slot::Is), step(s)),
        ["pre-plan", s] => Pat::PrePlan(step(s)),
        ["plan", s] => Pat::Plan(step(s)),
        ["handover", s] => Pat::Update(step(s)),
        _ => State::parse(text).map_or(Pat::Active, Pat::Fixed),
    }
}

fn slot<T: Copy + PartialEq>(s: Slot<T>, v: T, bound: &mut Option<T>) -> bool {
    *bound = Some(v);
    match s {
        Slot::Is(x) => x == v,
        Slot::Any => true,
    }
}

fn matches(pat: Pat, state: State) -> Option<Bind> {
    let mut b = Bind::default();
    let ok = match (pat, state) {
        (Pat::Active, s) => !s.is_terminal(),
        (Pat::AnyTopic(st), s) => match s.topic() {
            Some((topic, step)) => {
                b.topic = Some(topic);
                slot(st, step, &mut b.step)
            }
            None => false,
        },
        (Pat::Phase { nn, next: false, step }, State::Implementation(n, s)) => {
            slot(nn, n, &mut b.nn) && slot(step, s, &mut b.step)
        }
        (Pat::Audit(part, step), State::Audit(p, s)) => slot(part, p, &mut b.part) && slot(step, s, &mut b.step),
        (Pat::PrePlan(step), State::PrePlan(s))
        | (Pat::Plan(step), State::Plan(s))
        | (Pat::Update(step), State::HandoverUpdate(s)) => slot(step, s, &mut b.step),
        (Pat::Fixed(f), s) => f == s,
        _ => false,
    };
    ok.then_some(b)
}

fn build(pat: Pat, b: Bind) -> Option<State> {
    let step = |s: Slot<Step>| match s {
        Slot::Is(x) => Some(x),
        Slot::Any => b.step,
    };
    Some(match pat {
        Pat::Fixed(s) => s,
        Pat::AnyTopic(s) => State::of_topic(b.topic?, step(s)?),
        Pat::Phase { nn, next, step: s } => {
            let n = match nn {
                Slot::Is(n) => n,
                Slot::Any if next => b.nn?.checked_add(1).filter(|n| *n <= 99)?,
                Slot::Any => b.nn?,
            };
            State::Implementation(n, step(s)?)
        }
        Pat::Audit(p, s) => State::Audit(
            match p {
                Slot::Is(p) => p,
                Slot::Any => b.part?,
            },
            step(s)?,
        ),
        Pat::PrePlan(s) => State::PrePlan(step(s)?),
        Pat::Plan(s) => State::Plan(step(s)?),
        Pat::Update(s) => State::HandoverUpdate(step(s)?),
        Pat::Active => return None,
    })
}

fn compiled() -> &'static [(Pat, Pat, &'static Row)] {
    static TABLE: OnceLock<Vec<(Pat, Pat, &'static Row)>> = OnceLock::new();
    TABLE.get_or_init(|| V9.iter().map(|r| (parse_pat(r.from), parse_pat(r.to), r)).collect())
}

/// Every state one reply away from `state`, with the row that allows it.
pub fn successors(state: State) -> Vec<(State, &'static Row)> {
    compiled()
        .iter()
        .filter_map(|&(from, to, row)| matches(from, state).and_then(|b| build(to, b)).map(|s| (s, row)))
        .collect()
}

/// The row that moves `from` to `to` in one reply, when there is one.
pub fn step(from: State, to: State) -> Option<&'static Row> {
    successors(from).into_iter().find(|(s, _)| *s == to).map(|(_, r)| r)
}

/// The shortest legal path from `from` to `to` (each state entered and the
/// row that entered it), or `None` when `to` cannot be reached. `Some(vec![])`
/// when they are equal: replies such as QUESTION or BLOCKED keep the state.
/// Rows that restart the attempt are used only when `allow_reopen`.
pub fn shortest_path(from: State, to: State, allow_reopen: bool) -> Option<Vec<(State, &'static Row)>> {
    shortest_path_by(from, to, &|_, _, row| allow_reopen || !row.reopen)
}

/// As [`shortest_path`], taking only the hops `allow(prev, next, row)` admits
/// (e.g. the disk's conditions: which phase is the last, whether
/// `audit/findings.md` exists).
pub fn shortest_path_by(
    from: State,
    to: State,
    allow: &dyn Fn(State, State, &Row) -> bool,
) -> Option<Vec<(State, &'static Row)>> {
    if from == to {
        return Some(Vec::new());
    }
    let mut came: HashMap<State, (State, &'static Row)> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(state) = queue.pop_front() {
        for (next, row) in successors(state) {
            if next == from || came.contains_key(&next) || !allow(state, next, row) {
                continue;
            }
            came.insert(next, (state, row));
            if next == to {
                let mut path = vec![(next, row)];
                let mut at = state;
                while at != from {
                    let (prev, row) = came[&at];
                    path.push((at, row));
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(next);
        }
    }
    None
}

#[cfg(test)]
mod tests;
