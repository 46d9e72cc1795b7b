//! The decision lifecycle of ADR 0007 as data: statuses, the legal single
//! steps (each row with its citation), reachability and the shortest legal
//! path between two statuses.

/// A decision's `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Filed,
    Triaged,
    Deliberating,
    Resolved,
    Enacted,
    Reviewed,
    Archived,
    Superseded,
    Wontfix,
}

impl Status {
    pub const ALL: [Status; 9] = [
        Status::Filed,
        Status::Triaged,
        Status::Deliberating,
        Status::Resolved,
        Status::Enacted,
        Status::Reviewed,
        Status::Archived,
        Status::Superseded,
        Status::Wontfix,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Filed => "filed",
            Status::Triaged => "triaged",
            Status::Deliberating => "deliberating",
            Status::Resolved => "resolved",
            Status::Enacted => "enacted",
            Status::Reviewed => "reviewed",
            Status::Archived => "archived",
            Status::Superseded => "superseded",
            Status::Wontfix => "wontfix",
        }
    }

    pub fn parse(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.name() == name)
    }

    /// ADR 0007: "Terminal states are read-only."
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Archived | Status::Superseded | Status::Wontfix)
    }

    /// `resolved` and the states only reachable through it: each carries a
    /// resolution with evidence.
    pub fn is_resolved(self) -> bool {
        matches!(self, Status::Resolved | Status::Enacted | Status::Reviewed | Status::Archived)
    }

    /// States that carry a `review` block.
    pub fn is_reviewed(self) -> bool {
        matches!(self, Status::Reviewed | Status::Archived)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One legal single step, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    pub from: Status,
    pub to: Status,
    pub cite: &'static str,
}

const MAIN: &str = "ADR 0007: \"Lifecycle filed → triaged → deliberating → resolved → enacted → reviewed → archived\"";
const ESCAPE: &str = "ADR 0007: \"with superseded/wontfix as escape hatches\"";
const RETRIAGE: &str = "ADR 0007: \"a deliberating → triaged edge for re-triage\"";
const SHORTCUT: &str = "the harnery engine's table (docs/seed-coverage.md, Engine formats): a decision that needs less deliberation skips ahead (ADR 0007: \"Most decisions want a lighter path\")";
const REVIEW_SKIP: &str = "the harnery engine's table (docs/seed-coverage.md, Engine formats): review is calibration sampling, so a resolution may be reviewed before enactment";

/// Every legal single step of the lifecycle (ADR 0007, completed by the
/// public harnery engine's table in docs/seed-coverage.md, Engine formats). `archived`, `superseded`
/// and `wontfix` have no outgoing rows: terminal states are read-only.
pub static TRANSITIONS: &[Transition] = &[
    Transition { from: Status::Filed, to: Status::Triaged, cite: MAIN },
    Transition { from: Status::Filed, to: Status::Deliberating, cite: SHORTCUT },
    Transition { from: Status::Filed, to: Status::Resolved, cite: SHORTCUT },
    Transition { from: Status::Filed, to: Status::Superseded, cite: ESCAPE },
    Transition { from: Status::Filed, to: Status::Wontfix, cite: ESCAPE },
    Transition { from: Status::Triaged, to: Status::Deliberating, cite: MAIN },
    Transition { from: Status::Triaged, to: Status::Resolved, cite: SHORTCUT },
    Transition { from: Status::Triaged, to: Status::Superseded, cite: ESCAPE },
    Transition { from: Status::Triaged, to: Status::Wontfix, cite: ESCAPE },
    Transition { from: Status::Deliberating, to: Status::Triaged, cite: RETRIAGE },
    Transition { from: Status::Deliberating, to: Status::Resolved, cite: MAIN },
    Transition { from: Status::Deliberating, to: Status::Superseded, cite: ESCAPE },
    Transition { from: Status::Deliberating, to: Status::Wontfix, cite: ESCAPE },
    Transition { from: Status::Resolved, to: Status::Enacted, cite: MAIN },
    Transition { from: Status::Resolved, to: Status::Reviewed, cite: REVIEW_SKIP },
    Transition { from: Status::Resolved, to: Status::Superseded, cite: ESCAPE },
    Transition { from: Status::Enacted, to: Status::Reviewed, cite: MAIN },
    Transition { from: Status::Enacted, to: Status::Superseded, cite: ESCAPE },
    Transition { from: Status::Reviewed, to: Status::Archived, cite: MAIN },
    Transition { from: Status::Reviewed, to: Status::Superseded, cite: ESCAPE },
];

/// The table row for a single step, if the step is legal.
pub fn step(from: Status, to: Status) -> Option<&'static Transition> {
    TRANSITIONS.iter().find(|t| t.from == from && t.to == to)
}

/// The statuses one legal step away from `from`.
pub fn next(from: Status) -> impl Iterator<Item = Status> {
    TRANSITIONS.iter().filter(move |t| t.from == from).map(|t| t.to)
}

/// The shortest legal path from `from` to `to`, both included (a breadth-first
/// search over nine states). `Some([from])` when they are equal; `None` when
/// `to` cannot be reached.
pub fn shortest_path(from: Status, to: Status) -> Option<Vec<Status>> {
    let mut previous: [Option<Status>; 9] = [None; 9];
    let mut seen = [false; 9];
    seen[from.index()] = true;
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![to];
            let mut cursor = to;
            while let Some(p) = previous[cursor.index()] {
                path.push(p);
                cursor = p;
            }
            path.reverse();
            return Some(path);
        }
        for n in next(at) {
            if !seen[n.index()] {
                seen[n.index()] = true;
                previous[n.index()] = Some(at);
                queue.push_back(n);
            }
        }
    }
    None
}

/// True when `to` can be reached from `from` in one or more legal steps.
pub fn reachable(from: Status, to: Status) -> bool {
    from != to && shortest_path(from, to).is_some()
}

/// A path as a reader sees it: `filed → resolved → enacted`.
pub fn show_path(path: &[Status]) -> String {
    path.iter().map(|s| s.name()).collect::<Vec<_>>().join(" → ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harnery engine's table (docs/seed-coverage.md), written out independently of `TRANSITIONS`.
    const LEGAL: &[(&str, &[&str])] = &[
        ("filed", &["triaged", "deliberating", "resolved", "superseded", "wontfix"]),
        ("triaged", &["deliberating", "resolved", "superseded", "wontfix"]),
        ("deliberating", &["triaged", "resolved", "superseded", "wontfix"]),
        ("resolved", &["enacted", "reviewed", "superseded"]),
        ("enacted", &["reviewed", "superseded"]),
        ("reviewed", &["archived", "superseded"]),
    ];

    fn legal(from: Status, to: Status) -> bool {
        LEGAL.iter().any(|(f, tos)| *f == from.name() && tos.contains(&to.name()))
    }

    #[test]
    fn every_pair_is_legal_exactly_when_it_is_a_row() {
        let mut rows = 0;
        for from in Status::ALL {
            for to in Status::ALL {
                assert_eq!(step(from, to).is_some(), legal(from, to), "{} → {}", from.name(), to.name());
                rows += usize::from(legal(from, to));
            }
        }
        assert_eq!(rows, TRANSITIONS.len(), "no duplicate rows");
    }

    #[test]
    fn every_row_cites_its_source() {
        for t in TRANSITIONS {
            assert!(t.cite.starts_with("ADR 0007") || t.cite.starts_with("the harnery engine's table"), "{t:?}");
        }
    }

    #[test]
    fn terminal_states_have_no_way_out() {
        for from in Status::ALL.into_iter().filter(|s| s.is_terminal()) {
            assert_eq!(next(from).count(), 0, "{}", from.name());
            for to in Status::ALL {
                assert!(!reachable(from, to));
            }
        }
    }

    #[test]
    fn shortest_paths() {
        use Status::*;
        assert_eq!(shortest_path(Filed, Archived), Some(vec![Filed, Resolved, Reviewed, Archived]));
        assert_eq!(shortest_path(Deliberating, Triaged), Some(vec![Deliberating, Triaged]));
        assert_eq!(shortest_path(Triaged, Triaged), Some(vec![Triaged]));
        assert_eq!(shortest_path(Archived, Resolved), None);
        assert_eq!(shortest_path(Resolved, Wontfix), None);
        assert_eq!(shortest_path(Resolved, Triaged), None);
        assert_eq!(show_path(&[Filed, Resolved]), "filed → resolved");
        for s in Status::ALL {
            assert_eq!(Status::parse(s.name()), Some(s));
            assert!(s == Filed || reachable(Filed, s), "every status is reachable from filed");
        }
    }
}
