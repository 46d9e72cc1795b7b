//! The rule registry and the engine. Every rule is a pure function of a
//! ChangeSet (through its family's parsed view of it): no IO, no async, no
//! clock. Families are registered in [`FAMILIES`], the one place a family
//! appears; each family lists its own rules.

pub mod brief;
pub mod cite;
mod common;
pub mod decision;
mod paths;
pub mod spec;
pub mod voting;

use crate::config::{CONFIG_PATH, Config, Level};
use crate::docs::voting::VotingDoc;
use crate::model::{
    ChangeSet, Check, CheckReport, Conclusion, Diagnostic, Finding, Report, Severity, Sink, fingerprint,
};

pub use common::{DOC_UNREADABLE, report_unreadable};

/// What `gatehouse rules` lists and `gatehouse explain` prints.
#[derive(Debug)]
pub struct RuleInfo {
    /// `family/name`: a public interface, never renamed.
    pub id: &'static str,
    pub default_severity: Severity,
    /// One line: what the rule checks.
    pub summary: &'static str,
    /// Why the rule exists, citing its founding document (markdown).
    pub why: &'static str,
    /// A document that breaks the rule, and one that keeps it.
    pub bad: Example,
    pub good: Example,
}

#[derive(Debug)]
pub struct Example {
    pub path: &'static str,
    pub text: &'static str,
}

/// One rule of a family whose parsed view of the ChangeSet is `P`.
pub struct Rule<P> {
    pub info: &'static RuleInfo,
    pub check: fn(&P, &mut Sink),
}

/// What one family's run produced, before severities and fingerprints.
#[derive(Default)]
pub struct FamilyRun {
    /// Documents of this family the change added, changed or deleted.
    pub documents: usize,
    /// Markdown blocks for the check summary (tally tables, state moves).
    pub details: Vec<String>,
    pub diagnostics: Vec<(&'static RuleInfo, Diagnostic)>,
}

impl FamilyRun {
    /// Runs `rules` over a family's parsed view.
    pub fn run<P>(&mut self, rules: &[Rule<P>], input: &P) {
        let mut sink = Sink::default();
        for rule in rules {
            (rule.check)(input, &mut sink);
            self.diagnostics.extend(sink.take().into_iter().map(|d| (rule.info, d)));
        }
    }

    /// Records what `info`'s rule found outside a `Rule` (parse failures found
    /// while building the view).
    pub fn extend(&mut self, info: &'static RuleInfo, sink: &mut Sink) {
        self.diagnostics.extend(sink.take().into_iter().map(|d| (info, d)));
    }
}

/// A document a family parsed, shown to the caller of [`evaluate_seeing`]
/// once the family's rules have run on it, so that a caller showing the
/// documents (`gatehouse site`) does not parse them a second time.
pub enum Parsed<'p, 'a> {
    /// A voting doc, with the tally of each section that has a readable block.
    Voting { doc: &'p VotingDoc<'a>, tallies: &'p [voting::SectionTally] },
}

/// A document family: which check it reports to, its rules, and how it reads
/// its documents out of a ChangeSet.
pub trait Family: Sync {
    fn check(&self) -> Check;
    fn rules(&self) -> Vec<&'static RuleInfo>;
    fn run(&self, changes: &ChangeSet) -> FamilyRun;

    /// [`Family::run`], showing `see` each document it parses; families
    /// whose documents no caller shows keep the plain run.
    fn run_seeing<'a>(&self, changes: &'a ChangeSet, _see: &mut dyn FnMut(Parsed<'_, 'a>)) -> FamilyRun {
        self.run(changes)
    }
}

/// The one registry of families.
pub static FAMILIES: &[&dyn Family] =
    &[&brief::Briefs, &cite::BriefCites, &voting::Voting, &cite::GuidelineCites, &spec::Specs, &decision::Decisions];

pub static CONFIG_INVALID: RuleInfo = RuleInfo {
    id: "config/invalid",
    default_severity: Severity::Error,
    summary: "`.github/gatehouse.yml` is valid: known keys, right types, known rule ids",
    why: "The repo config decides which documents are checked and how strictly. A typo in it would \
silently weaken a gate, so every problem is reported with its line. The config is read from the \
BASE revision (a PR cannot weaken its own gate); a PR that changes it sees its new file validated.",
    bad: Example { path: CONFIG_PATH, text: "briefs:\n  review_threshold:\n    lines: lots\n" },
    good: Example { path: CONFIG_PATH, text: "briefs:\n  review_threshold:\n    lines: 200\n" },
};

/// Every rule, in catalogue order.
pub fn all_rules() -> Vec<&'static RuleInfo> {
    let mut rules = vec![&CONFIG_INVALID, &DOC_UNREADABLE];
    for family in FAMILIES {
        rules.extend(family.rules());
    }
    rules
}

pub fn find(id: &str) -> Option<&'static RuleInfo> {
    all_rules().into_iter().find(|r| r.id == id)
}

/// Runs every family over the ChangeSet.
pub fn evaluate(changes: &ChangeSet) -> Report {
    evaluate_seeing(changes, &mut |_| {})
}

/// [`evaluate`], showing `see` the documents the families parse as they are
/// done with each (one at a time: nothing is kept for the caller).
pub fn evaluate_seeing<'a>(changes: &'a ChangeSet, see: &mut dyn FnMut(Parsed<'_, 'a>)) -> Report {
    let config = &changes.config;
    let general = config_findings(changes);
    let general_errors = general.iter().any(|f| f.severity == Severity::Error);
    // Families that report to the same check (a family and its PR-body
    // cites) are merged into one check run.
    let mut runs: Vec<(Check, FamilyRun)> = Vec::new();
    for family in FAMILIES {
        let run = family.run_seeing(changes, see);
        match runs.iter_mut().find(|(check, _)| *check == family.check()) {
            Some((_, merged)) => {
                merged.documents += run.documents;
                merged.details.extend(run.details);
                merged.diagnostics.extend(run.diagnostics);
            }
            None => runs.push((family.check(), run)),
        }
    }
    runs.sort_by_key(|(check, _)| *check);
    let checks = runs
        .into_iter()
        .map(|(check, run)| {
            let mut findings: Vec<Finding> =
                run.diagnostics.into_iter().filter_map(|(info, d)| stamp(config, info, d)).collect();
            findings.sort_by(|a, b| (&a.path, a.span, a.rule).cmp(&(&b.path, b.span, b.rule)));
            findings.dedup();
            let conclusion = if general_errors || findings.iter().any(|f| f.severity == Severity::Error) {
                Conclusion::Failure
            } else if run.documents == 0 {
                Conclusion::Neutral
            } else {
                Conclusion::Success
            };
            CheckReport {
                check,
                name: check.name(),
                conclusion,
                documents: run.documents,
                details: run.details,
                findings,
            }
        })
        .collect();
    Report { checks, general }
}

fn stamp(config: &Config, info: &'static RuleInfo, d: Diagnostic) -> Option<Finding> {
    let severity = match config.rules.get(info.id) {
        Some(Level::Off) => return None,
        Some(Level::On(severity)) => *severity,
        None => d.severity.unwrap_or(info.default_severity),
    };
    Some(Finding {
        rule: info.id,
        severity,
        fingerprint: fingerprint(info.id, &d.path, &d.anchor),
        path: d.path,
        span: d.span,
        message: d.message,
        help: d.help,
    })
}

/// Validates the head's config file, when the change has one.
fn config_findings(changes: &ChangeSet) -> Vec<Finding> {
    let Some(content) = changes.head.get(CONFIG_PATH) else { return Vec::new() };
    let mut sink = Sink::default();
    match content.text() {
        Some(text) => {
            for e in Config::parse(text).1 {
                let anchor = format!("{}:{}", e.line, e.message);
                sink.emit(CONFIG_PATH, crate::model::Span::at(e.line, e.col, 1), anchor, e.message)
                    .help("fix the key or remove it; `gatehouse explain config/invalid` shows a valid file");
            }
        }
        None => report_unreadable(CONFIG_PATH, content, &mut sink),
    }
    let info = if changes.head.get(CONFIG_PATH).is_some_and(|c| c.text().is_some()) {
        &CONFIG_INVALID
    } else {
        &DOC_UNREADABLE
    };
    sink.take().into_iter().filter_map(|d| stamp(&changes.config, info, d)).collect()
}
