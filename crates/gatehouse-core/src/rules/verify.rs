//! A fix is offered only once it is proven: the engine applies it to a copy
//! of the change's head, runs the rules again, and keeps it only when its
//! finding is gone and no error or warning appeared that was not there
//! before. Every other proposed fix is dropped.
//!
//! "Its finding" is the finding with the same fingerprint: the rule id, the
//! path and the rule's anchor (the stable name of what is wrong: a field, an
//! argument id, a path in the body). Not the line, which a fix that adds or
//! removes lines moves; not the message, which may quote the very text the
//! fix rewrites. It is the identity the App already resolves review threads
//! by, so a fix verified here is one whose thread a push of it resolves. A
//! fix that leaves another finding of the same rule and anchor in place
//! (one of two identical problems) does not clear its finding and is dropped.
//!
//! Cost: nothing is done unless a rule proposed a fix. Fixes in different
//! documents are verified together, one evaluation for the first fix of
//! every document, one for the second, and so on, plus one for all of them
//! at once: what `gatehouse check --fix` applies is proven as a whole. A new
//! finding on a document is laid at the door of the fix that edits it; one
//! that no fix of the batch edits sends the batch's fixes to be verified one
//! at a time. Two fixes that touch the same bytes of a document cannot both
//! be applied: the first (in report order) wins and the other waits for the
//! next round, when its finding is derived again from the fixed text.

use std::collections::{BTreeSet, HashMap};

use crate::model::{ChangeSet, FileContent, Finding, Fix, Report, Severity, apply_edits};

/// Where a finding sits in a [`Report`]: the index of its check, and its
/// index among the check's findings.
#[derive(Clone, Copy)]
struct Location {
    check: usize,
    index: usize,
}

struct Candidate {
    at: Location,
    fingerprint: String,
    fix: Fix,
}

/// The fixes the rules proposed, taken off their findings until verified.
pub(super) struct Proposed {
    candidates: Vec<Candidate>,
    /// Each finding's fingerprint with its most severe level, as the rules
    /// reported it on the unfixed head (before findings the change did not
    /// earn are demoted: the fixed head is measured against the same rules).
    before: HashMap<String, Severity>,
}

impl Proposed {
    /// Takes every proposed fix off `report`'s findings.
    pub(super) fn take(report: &mut Report) -> Proposed {
        let mut candidates = Vec::new();
        let checked = report.checks.iter_mut().enumerate().flat_map(|(check, c)| {
            c.findings.iter_mut().enumerate().map(move |(index, f)| (Location { check, index }, f))
        });
        for (at, finding) in checked {
            if let Some(fix) = finding.fix.take() {
                candidates.push(Candidate { at, fingerprint: finding.fingerprint.clone(), fix });
            }
        }
        let before = if candidates.is_empty() { HashMap::new() } else { levels(report.findings()) };
        Proposed { candidates, before }
    }

    /// Puts back on `report` the fixes that prove out on `changes`.
    pub(super) fn verify(self, changes: &ChangeSet, report: &mut Report) {
        if self.candidates.is_empty() {
            return;
        }
        let applicable: Vec<usize> = (0..self.candidates.len()).filter(|&i| self.applicable(changes, i)).collect();
        let mut chosen: Vec<usize> = Vec::new();
        for i in applicable {
            if !chosen.iter().any(|&c| self.candidates[c].fix.overlaps(&self.candidates[i].fix)) {
                chosen.push(i);
            }
        }
        // Batch k holds the k-th chosen fix of each document.
        let mut batches: Vec<Vec<usize>> = Vec::new();
        for i in chosen {
            let paths = self.candidates[i].fix.paths();
            let free = batches.iter().position(|batch| {
                batch.iter().all(|&b| self.candidates[b].fix.paths().iter().all(|p| !paths.contains(p)))
            });
            match free {
                Some(k) => batches[k].push(i),
                None => batches.push(vec![i]),
            }
        }
        let whole = batches.first().filter(|_| batches.len() == 1).cloned();
        let mut verified: Vec<usize> = Vec::new();
        for batch in batches {
            let trial = self.trial(changes, &batch);
            if trial.unplaced && batch.len() > 1 {
                verified.extend(batch.into_iter().filter(|&i| self.trial(changes, &[i]).passed(&self, i)));
            } else {
                verified.extend(batch.into_iter().filter(|&i| trial.passed(&self, i)));
            }
        }
        verified.sort_unstable();
        // One batch that passed whole was proven as it stands.
        if whole.as_ref() != Some(&verified) {
            verified = self.as_a_whole(changes, verified);
        }
        for i in verified {
            let candidate = &self.candidates[i];
            let finding = &mut report.checks[candidate.at.check].findings[candidate.at.index];
            finding.fix = Some(candidate.fix.clone());
        }
    }

    /// Whether candidate `i` edits only files the change touches, as whole
    /// text it can apply to.
    fn applicable(&self, changes: &ChangeSet, i: usize) -> bool {
        let fix = &self.candidates[i].fix;
        !fix.edits.is_empty()
            && fix.paths().into_iter().all(|path| {
                let edits: Vec<_> = fix.edits.iter().filter(|e| e.path == path).collect();
                changes.touches(path)
                    && changes
                        .head
                        .get(path)
                        .and_then(FileContent::text)
                        .is_some_and(|t| apply_edits(t, &edits).is_some())
            })
    }

    /// Narrows `fixes` (verified in batches) until applying them all at once
    /// proves out: a document with a new finding keeps its first fix only
    /// (or none, when that was its only one); a new finding on a document no
    /// fix edits keeps the first fix alone. Each round drops a fix at least.
    fn as_a_whole(&self, changes: &ChangeSet, mut fixes: Vec<usize>) -> Vec<usize> {
        for _ in 0..=fixes.len() {
            if fixes.is_empty() {
                break;
            }
            let trial = self.trial(changes, &fixes);
            if fixes.iter().all(|&i| trial.passed(self, i)) {
                return fixes;
            }
            if trial.unplaced {
                fixes.truncate(usize::from(fixes.len() > 1));
                continue;
            }
            let mut on_path: HashMap<&str, usize> = HashMap::new();
            for &i in &fixes {
                for path in self.candidates[i].fix.paths() {
                    *on_path.entry(path).or_default() += 1;
                }
            }
            let mut seen: BTreeSet<&str> = BTreeSet::new();
            let mut kept = Vec::new();
            for &i in &fixes {
                let paths = self.candidates[i].fix.paths();
                let keeps = trial.cleared.contains(&i)
                    && paths.iter().filter(|p| trial.blamed.contains(**p)).all(|p| on_path[p] > 1 && !seen.contains(p));
                seen.extend(paths);
                if keeps {
                    kept.push(i);
                }
            }
            fixes = kept;
        }
        Vec::new()
    }

    /// Applies candidates `fixes` together and runs the rules on the result.
    fn trial(&self, changes: &ChangeSet, fixes: &[usize]) -> Trial {
        let mut head = changes.head.clone();
        let paths: BTreeSet<&str> = fixes.iter().flat_map(|&i| self.candidates[i].fix.paths()).collect();
        for path in &paths {
            let edits: Vec<_> =
                fixes.iter().flat_map(|&i| self.candidates[i].fix.edits.iter()).filter(|e| e.path == *path).collect();
            let fixed = changes.head.get(path).and_then(FileContent::text).and_then(|t| apply_edits(t, &edits));
            match fixed {
                Some(text) => head.insert(path.to_string(), FileContent::Text(text.into())),
                None => return Trial::failed(fixes),
            }
        }
        let fixed = ChangeSet { head, ..changes.clone() };
        let after = super::evaluate_revision(&fixed, &mut |_| {});
        let remaining: BTreeSet<&str> = after.findings().map(|f| f.fingerprint.as_str()).collect();
        let cleared = fixes.iter().copied().filter(|&i| !remaining.contains(self.candidates[i].fingerprint.as_str()));
        let mut trial = Trial { cleared: cleared.collect(), blamed: BTreeSet::new(), unplaced: false };
        for finding in after.findings().filter(|f| f.severity != Severity::Notice) {
            let new = self.before.get(&finding.fingerprint).is_none_or(|was| finding.severity < *was);
            if !new {
                continue;
            }
            if paths.contains(finding.path.as_str()) {
                trial.blamed.insert(finding.path.clone());
            } else {
                trial.unplaced = true;
            }
        }
        trial
    }
}

/// What applying a set of fixes did.
struct Trial {
    /// The candidates whose finding is gone.
    cleared: BTreeSet<usize>,
    /// Documents with an error or warning that was not there before.
    blamed: BTreeSet<String>,
    /// Whether such a finding appeared on a document no fix edited.
    unplaced: bool,
}

impl Trial {
    fn failed(fixes: &[usize]) -> Trial {
        Trial { cleared: BTreeSet::new(), blamed: BTreeSet::new(), unplaced: !fixes.is_empty() }
    }

    fn passed(&self, proposed: &Proposed, i: usize) -> bool {
        !self.unplaced
            && self.cleared.contains(&i)
            && proposed.candidates[i].fix.paths().iter().all(|p| !self.blamed.contains(*p))
    }
}

/// Each fingerprint with the most severe level a finding of it has.
fn levels<'r>(findings: impl Iterator<Item = &'r Finding>) -> HashMap<String, Severity> {
    let mut levels: HashMap<String, Severity> = HashMap::new();
    for finding in findings {
        let level = levels.entry(finding.fingerprint.clone()).or_insert(finding.severity);
        *level = (*level).min(finding.severity);
    }
    levels
}

/// What [`fix_all`] did.
pub struct Fixed {
    /// The change with every applied fix in its head.
    pub changes: ChangeSet,
    /// Each finding whose fix was applied, round by round, with the fix.
    pub applied: Vec<Finding>,
    /// The evaluation of the fixed head.
    pub report: Report,
    /// Whether the last round still offered fixes (the bound was reached).
    pub unfinished: bool,
}

/// Evaluates `changes`, applies every verified fix of the findings `wanted`
/// accepts, and evaluates again, until no such fix is offered or `rounds`
/// rounds have run. Fixes that overlap an applied one are derived again in
/// the next round, from the fixed text.
pub fn fix_all(changes: &ChangeSet, rounds: usize, wanted: &dyn Fn(&Finding) -> bool) -> Fixed {
    let mut changes = changes.clone();
    let mut applied = Vec::new();
    let mut report = super::evaluate(&changes);
    for _ in 0..rounds {
        let fixes: Vec<&Finding> = report.findings().filter(|f| f.fix.is_some() && wanted(f)).collect();
        if fixes.is_empty() {
            return Fixed { changes, applied, report, unfinished: false };
        }
        let texts = crate::model::fixed_texts(&changes.head, fixes.iter().filter_map(|f| f.fix.as_ref()));
        for (path, text) in texts {
            changes.head.insert(path, FileContent::Text(text.into()));
        }
        applied.extend(fixes.into_iter().cloned());
        report = super::evaluate(&changes);
    }
    let unfinished = report.findings().any(|f| f.fix.is_some() && wanted(f));
    Fixed { changes, applied, report, unfinished }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use crate::model::{ChangeSet, FileContent, Files, Severity, fixed_texts};

    /// A brief with each of its fixable fields written one of several ways,
    /// right or wrong.
    fn brief() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec!["SWARM-AR", "SWARM-AQ", "\"SWARM-AQ\"", "swarm-ar"]),
            prop::sample::select(vec![
                "[acme/infra]",
                "acme/infra",
                "[acme/infra, Acme/Infra]",
                "[https://github.com/acme/infra.git]",
                "\n  - acme/infra\n  - ACME/infra",
            ]),
            prop::sample::select(vec!["[ADR-095]", "[adr95]", "[ADR 95, ADR-095]", "[]"]),
            prop::sample::select(vec!["80", "\"80\"", "about 80", "'0'"]),
            prop::sample::select(vec!["out_of_scope", "out_of_scop", "out_scope"]),
            prop::sample::select(vec![
                "",
                "Per ADR-095, dumps go off-host.\n",
                "See `x.sh` (to-be-created the script this asks for).\n",
            ]),
        )
            .prop_map(|(agent, repos, adrs, lines, scope, body)| {
                format!(
                    "---\nagent: {agent}\nrepos_touched: {repos}\nadrs_referenced: {adrs}\nsuccess_criteria:\n  - \
                     \"`backup.sh` exits 0\"\n{scope}:\n  - restores\nlines_estimate: {lines}\n---\n# Brief\n\n{body}"
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Applying every fix the engine offers adds no error or warning.
        #[test]
        fn applying_every_offered_fix_adds_no_error_or_warning(text in brief()) {
            let path = "dark-factory/briefs/SWARM-AR-pg-backup.md";
            let adr = "# ADR-095: backups\n\nStatus: Accepted\n\nDumps go off-host.\n";
            let mut head: Files = Files::new();
            head.insert(path.into(), FileContent::Text(text.as_str().into()));
            head.insert("docs/adr/ADR-095-backups.md".into(), FileContent::Text(adr.into()));
            let changes = ChangeSet { head, ..Default::default() };
            let report = crate::rules::evaluate(&changes);
            let before: BTreeSet<(String, Severity)> =
                report.findings().map(|f| (f.fingerprint.clone(), f.severity)).collect();
            let texts = fixed_texts(&changes.head, report.findings().filter_map(|f| f.fix.as_ref()));
            let mut fixed = changes.clone();
            for (path, text) in texts {
                fixed.head.insert(path, FileContent::Text(text.into()));
            }
            for f in crate::rules::evaluate(&fixed).findings() {
                prop_assert!(
                    f.severity == Severity::Notice || before.contains(&(f.fingerprint.clone(), f.severity)),
                    "a fix added {} {}: {}\n{text}", f.rule, f.severity.as_str(), f.message
                );
            }
        }
    }
}
