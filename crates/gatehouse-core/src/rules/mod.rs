//! The rule registry and the engine. Every rule is a pure function of a
//! ChangeSet (through its family's parsed view of it): no IO, no async, no
//! clock. Families are registered in [`FAMILIES`], the one place a family
//! appears; each family lists its own rules.

/// Declares a rule's `INFO` (what `gatehouse rules` lists and `gatehouse
/// explain` prints) and its `rule()`, pairing `INFO` with the module's
/// `check` over the family's view. An example given as a string literal is
/// the path of the rule's own fixture, `fixtures/rules/<id>/fail/head/<path>`
/// for `bad` and `.../pass/head/<path>` for `good`; any other example is an
/// [`Example`] written out. `fix`, when given, says when the rule offers a
/// fix (`gatehouse explain` prints it).
macro_rules! declare_rule {
    (
        id: $id:literal,
        view: $view:ident,
        severity: $severity:ident,
        summary: $summary:expr,
        why: $why:expr,
        $(fix: $fix:expr,)?
        bad: $bad:literal,
        good: $good:literal $(,)?
    ) => {
        declare_rule!(@declare $id, $view, $severity, $summary, $why, [$($fix)?],
            declare_rule!(@fixture $id, "fail", $bad), declare_rule!(@fixture $id, "pass", $good));
    };
    (
        id: $id:literal,
        view: $view:ident,
        severity: $severity:ident,
        summary: $summary:expr,
        why: $why:expr,
        $(fix: $fix:expr,)?
        bad: $bad:literal,
        good: $good:expr $(,)?
    ) => {
        declare_rule!(@declare $id, $view, $severity, $summary, $why, [$($fix)?], declare_rule!(@fixture $id, "fail", $bad), $good);
    };
    (
        id: $id:literal,
        view: $view:ident,
        severity: $severity:ident,
        summary: $summary:expr,
        why: $why:expr,
        $(fix: $fix:expr,)?
        bad: $bad:expr,
        good: $good:literal $(,)?
    ) => {
        declare_rule!(@declare $id, $view, $severity, $summary, $why, [$($fix)?], $bad, declare_rule!(@fixture $id, "pass", $good));
    };
    (
        id: $id:literal,
        view: $view:ident,
        severity: $severity:ident,
        summary: $summary:expr,
        why: $why:expr,
        $(fix: $fix:expr,)?
        bad: $bad:expr,
        good: $good:expr $(,)?
    ) => {
        declare_rule!(@declare $id, $view, $severity, $summary, $why, [$($fix)?], $bad, $good);
    };
    (@fixture $id:literal, $case:literal, $path:literal) => {
        $crate::rules::Example {
            path: $path,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/rules/", $id, "/", $case, "/head/", $path)),
        }
    };
    (@fix) => { None };
    (@fix $fix:expr) => { Some($fix) };
    (@declare $id:literal, $view:ident, $severity:ident, $summary:expr, $why:expr, [$($fix:expr)?], $bad:expr, $good:expr) => {
        pub static INFO: $crate::rules::RuleInfo = $crate::rules::RuleInfo {
            id: $id,
            default_severity: $crate::model::Severity::$severity,
            summary: $summary,
            why: $why,
            fix: declare_rule!(@fix $($fix)?),
            bad: $bad,
            good: $good,
        };

        pub fn rule<'a>() -> $crate::rules::Rule<$view<'a>> {
            $crate::rules::Rule { info: &INFO, check }
        }
    };
}

/// Declares the document family `$name`: it reports to `Check::$check`, its
/// rules are the ones `$rules()` lists, and `$body` reads its documents out
/// of the ChangeSet `$changes` into the [`FamilyRun`] `$run`, which it
/// returns, showing the documents it parses to `$see` where it names one.
macro_rules! declare_family {
    ($(#[$doc:meta])* $name:ident, $check:ident, $rules:ident, |$changes:ident, $run:ident| $body:block) => {
        declare_family! { $(#[$doc])* $name, $check, $rules, |$changes, $run, _see| $body }
    };
    ($(#[$doc:meta])* $name:ident, $check:ident, $rules:ident, |$changes:ident, $run:ident, $see:ident| $body:block) => {
        $(#[$doc])*
        pub struct $name;

        impl $crate::rules::Family for $name {
            fn check(&self) -> $crate::model::Check {
                $crate::model::Check::$check
            }

            fn rules(&self) -> Vec<&'static $crate::rules::RuleInfo> {
                $rules().iter().map(|r| r.info).collect()
            }

            fn run_seeing<'a>(
                &self,
                $changes: &'a $crate::model::ChangeSet,
                $see: &mut dyn FnMut($crate::rules::Parsed<'_, 'a>),
            ) -> $crate::rules::FamilyRun {
                let mut $run = $crate::rules::FamilyRun::default();
                $body
                $run
            }
        }
    };
}

pub mod brief;
pub mod cite;
mod common;
pub mod decision;
mod earned;
mod fixes;
mod paths;
pub(crate) mod spans;
pub mod spec;
mod verify;
pub mod voting;

use crate::config::{CONFIG_PATH, Config, ConfigError, Level};
use crate::docs::voting::VotingDoc;
use crate::model::{
    ChangeSet, Check, CheckReport, Conclusion, Diagnostic, FileContent, Finding, Report, Severity, Sink, fingerprint,
};

pub use common::{DOC_UNREADABLE, report_unreadable};
pub use verify::{Fixed, fix_all};

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
    /// When the rule proposes a fix, and what it does; `None` for a rule
    /// that never does (its fixes would need the author's words).
    pub fix: Option<&'static str>,
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

    /// Reports each of `files` that cannot be read as a document under
    /// `doc/unreadable`; returns how many were.
    pub fn unreadable<'c>(&mut self, files: impl IntoIterator<Item = (&'c str, &'c FileContent)>) -> usize {
        let mut sink = Sink::default();
        for (path, content) in files {
            report_unreadable(path, content, &mut sink);
        }
        let count = sink.len();
        self.extend(&DOC_UNREADABLE, &mut sink);
        count
    }
}

/// A document a family parsed, shown to the caller of [`evaluate_seeing`]
/// once the family's rules have run on it, so that a caller showing the
/// documents (`gatehouse site`) does not parse them a second time.
pub enum Parsed<'p, 'a> {
    /// A voting doc, with the tally of each section that has a readable block.
    Voting { doc: &'p VotingDoc<'a>, tallies: &'p [crate::docs::voting::tally::SectionTally] },
}

/// A document family: which check it reports to, its rules, and how it reads
/// its documents out of a ChangeSet.
pub trait Family: Sync {
    fn check(&self) -> Check;
    fn rules(&self) -> Vec<&'static RuleInfo>;

    /// Runs the family's rules, showing `see` each document it parses that
    /// a caller may show (only voting docs so far; other families show none).
    fn run_seeing<'a>(&self, changes: &'a ChangeSet, see: &mut dyn FnMut(Parsed<'_, 'a>)) -> FamilyRun;

    fn run(&self, changes: &ChangeSet) -> FamilyRun {
        self.run_seeing(changes, &mut |_| {})
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
    fix: None,
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

/// Reads a config file whose `rules:` may name only the rules registered here.
pub fn read_config(text: &str) -> (Config, Vec<ConfigError>) {
    Config::parse(text, &|id| find(id).is_some())
}

/// Runs every family over the ChangeSet.
pub fn evaluate(changes: &ChangeSet) -> Report {
    evaluate_seeing(changes, &mut |_| {})
}

/// [`evaluate`], showing `see` the documents the families parse as they are
/// done with each (one at a time: nothing is kept for the caller). A finding
/// the change did not earn is reported as a notice (see [`earned`]).
pub fn evaluate_seeing<'a>(changes: &'a ChangeSet, see: &mut dyn FnMut(Parsed<'_, 'a>)) -> Report {
    let mut report = evaluate_revision(changes, see);
    let proposed = verify::Proposed::take(&mut report);
    earned::demote_predating(changes, &mut report);
    proposed.verify(changes, &mut report);
    conclude(&mut report);
    report
}

/// Every family's findings over the ChangeSet, as the rules report them,
/// before any is demoted and before the checks conclude.
fn evaluate_revision<'a>(changes: &'a ChangeSet, see: &mut dyn FnMut(Parsed<'_, 'a>)) -> Report {
    let config = &changes.config;
    let general = config_findings(changes);
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
            CheckReport {
                check,
                name: check.name(),
                conclusion: Conclusion::Neutral,
                documents: run.documents,
                details: run.details,
                findings,
            }
        })
        .collect();
    Report { checks, general }
}

/// Sets each check's conclusion from its findings (and the general ones,
/// which count against every check).
fn conclude(report: &mut Report) {
    let general_errors = report.general.iter().any(|f| f.severity == Severity::Error);
    for check in &mut report.checks {
        check.conclusion = if general_errors || check.findings.iter().any(|f| f.severity == Severity::Error) {
            Conclusion::Failure
        } else if check.documents == 0 {
            Conclusion::Neutral
        } else {
            Conclusion::Success
        };
    }
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
        fix: d.fix,
    })
}

/// Validates the head's config file, when the change has one.
fn config_findings(changes: &ChangeSet) -> Vec<Finding> {
    let Some(content) = changes.head.get(CONFIG_PATH) else { return Vec::new() };
    let mut sink = Sink::default();
    match content.text() {
        Some(text) => {
            for e in read_config(text).1 {
                let anchor = format!("{}:{}", e.line, e.message);
                sink.emit(CONFIG_PATH, crate::model::Span::at(e.line, e.col, e.width), anchor, e.message)
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
