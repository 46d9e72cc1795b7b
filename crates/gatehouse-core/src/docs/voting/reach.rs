//! How far an open section is from ADR-140's thresholds ("Retirement margin
//! and quorum"), in weighted votes: what the App's dashboard lists as within
//! reach of quorum or lock.
//!
//! A section locks when its tally leaves `open`: `retirement-eligible` (two
//! or more arguments, quorum ≥10 and top-1 − top-2 ≥+5) or
//! `consensus-locked` (one argument, quorum ≥10 and a total ≥+5). A vote of
//! weight `w` adds `w` to the section's weighted-vote total and moves one
//! argument's total by `w`, so it narrows the gap to the margin by at most
//! `w`; one `+1` vote on the leader narrows both gaps by exactly `w`. The
//! weight still needed to lock is therefore the larger of the two gaps, and
//! the weight still needed for quorum is the quorum's gap alone.

use super::tally::{MARGIN_MICROS, MICRO, QUORUM_MICROS, SectionTally, State, micros};

/// Within reach: at most this many weighted votes away. ADR-140 names a
/// 3-vote drift as the noise its +5 margin must outlast: a section the next
/// drift of that size can carry to quorum or lock is the one whose next
/// votes decide it.
pub const REACH: f64 = 3.0;

/// What an open section still needs, in weighted votes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// To the quorum of 10 (0 once met).
    pub to_quorum: f64,
    /// To lock: the quorum and the margin (+5 between the top two, or a
    /// total of +5 for a lone argument) both met.
    pub to_lock: f64,
}

impl Reach {
    /// The quorum is not met and is at most [`REACH`] away.
    pub fn quorum_within_reach(&self) -> bool {
        self.to_quorum > 0.0 && micros(self.to_quorum) <= micros(REACH)
    }

    /// The lock is at most [`REACH`] away.
    pub fn lock_within_reach(&self) -> bool {
        micros(self.to_lock) <= micros(REACH)
    }

    pub fn within_reach(&self) -> bool {
        self.quorum_within_reach() || self.lock_within_reach()
    }
}

/// What section `t` still needs; `None` when it is not open (locked
/// already) or has no argument to vote on.
pub fn reach(t: &SectionTally) -> Option<Reach> {
    if t.state != State::Open || t.arguments.is_empty() {
        return None;
    }
    // The number the margin is measured on: a lone argument's total, else
    // the lead of the top argument over the second.
    let lead = match (t.arguments.as_slice(), t.margin) {
        ([only], _) => only.total,
        (_, Some(margin)) => margin,
        _ => return None,
    };
    let to_quorum = (QUORUM_MICROS - micros(t.weighted_votes)).max(0);
    let to_margin = (MARGIN_MICROS - micros(lead)).max(0);
    Some(Reach { to_quorum: to_quorum as f64 / MICRO, to_lock: to_quorum.max(to_margin) as f64 / MICRO })
}

#[cfg(test)]
mod tests {
    use super::super::tally::tests::section;
    use super::*;

    #[test]
    fn the_lock_is_the_larger_gap_and_the_quorum_its_own() {
        // A +6, B +1: weighted 7, margin 5: quorum 3 away, lock 3 away.
        let t = section(&[("A", &[(1, "4"), (1, "2")]), ("B", &[(1, "1")])]);
        let r = reach(&t).unwrap();
        assert_eq!((r.to_quorum, r.to_lock), (3.0, 3.0));
        assert!(r.quorum_within_reach() && r.lock_within_reach());
        // Quorum met (12), a tie at +5.5: the lock is 5 away, out of reach.
        let t = section(&[("A", &[(1, "6"), (-1, "0.5")]), ("B", &[(1, "5"), (1, "0.5")])]);
        let r = reach(&t).unwrap();
        assert_eq!((t.weighted_votes, t.margin, r.to_quorum, r.to_lock), (12.0, Some(0.0), 0.0, 5.0));
        assert!(!r.within_reach(), "quorum met is not 'within reach' of it");
    }

    #[test]
    fn the_boundary_is_three_weighted_votes_exactly() {
        // A lone argument at +7 over 7: quorum and lock 3 away: within reach.
        let at = section(&[("A", &[(1, "7")])]);
        assert_eq!(reach(&at).unwrap(), Reach { to_quorum: 3.0, to_lock: 3.0 });
        assert!(reach(&at).unwrap().within_reach());
        // +6.999999 over 6.999999: a millionth further, out of reach.
        let past = section(&[("A", &[(1, "6.999999")])]);
        let r = reach(&past).unwrap();
        assert_eq!((r.to_quorum, r.to_lock), (3.000001, 3.000001));
        assert!(!r.within_reach());
        // Quorum 2 away but the lone argument at -2: the lock is 7 away, the
        // quorum within reach.
        let t = section(&[("A", &[(1, "3"), (-1, "5")])]);
        let r = reach(&t).unwrap();
        assert_eq!((r.to_quorum, r.to_lock), (2.0, 7.0));
        assert!(r.quorum_within_reach() && !r.lock_within_reach() && r.within_reach());
        // Quorum met (10), margin +2: the lock is 3 away, at the boundary.
        let t = section(&[("A", &[(1, "6")]), ("B", &[(1, "3.5"), (1, "0.5")])]);
        let r = reach(&t).unwrap();
        assert_eq!((r.to_quorum, r.to_lock), (0.0, 3.0));
        assert!(r.lock_within_reach() && !r.quorum_within_reach());
    }

    #[test]
    fn locked_and_empty_sections_are_out_of_the_question() {
        assert_eq!(section(&[("A", &[(1, "8"), (-1, "2")])]).state, State::ConsensusLocked);
        assert_eq!(reach(&section(&[("A", &[(1, "8"), (-1, "2")])])), None);
        assert_eq!(reach(&section(&[("A", &[(1, "10")]), ("B", &[])])), None, "retirement-eligible");
        assert_eq!(reach(&section(&[])), None, "no argument to vote on");
        // A section no one voted on is 10 from quorum.
        assert_eq!(reach(&section(&[("A", &[])])), Some(Reach { to_quorum: 10.0, to_lock: 10.0 }));
    }
}
