//! The rule registry and the engine. Every rule is a pure function of a
//! ChangeSet (through its family's parsed view of it): no IO, no async, no
//! clock. Families are registered in [`FAMILIES`], the one place a family
//! appears; each family lists its own rules.

/// Declares a rule's `INFO` (what `gatehouse rules` lists and `gatehouse
/// explain` prints) and its `rule()`, pairing `INFO` with the module's
/// `check` over the family's view. An example given as a string literal is
/// the path of the rule's own fixture, `crates/gatehouse-core/fixtures/rules/<id>/fail/head/<path>`
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
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rules/", $id, "/", $case, "/head/", $path)),
        }
    };
    (@fix) => { None };
    (@fix $fix:expr) => { Some($fix) };
    (@declare $id:literal, $view:ident, $severity:ident, $summary:expr, $why:expr, [$($fix:expr)?], $bad:expr, $good:expr) => {
        pub(crate) static INFO: $crate::rules::RuleInfo = $crate::rules::RuleInfo {
            id: $id,
            default_severity: $crate::model::Severity::$severity,
            summary: $summary,
            why: $why,
            fix: declare_rule!(@fix $($fix)?),
            bad: $bad,
            good: $good,
        };

        pub(crate) fn rule<'a>() -> $crate::rules::Rule<$view<'a>> {
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
mod owners;
mod paths;
pub(crate) mod spans;
pub mod spec;
mod verify;
pub mod voting;

use crate::config::inherit::{self, Effective, Inheritance, Parent, ProblemKind};
use crate::config::{CONFIG_PATH, Config, ConfigError, Level};
use crate::docs::voting::VotingDoc;
use crate::model::{
    ChangeSet, Check, CheckReport, Conclusion, Diagnostic, FileContent, Finding, Report, Severity, Sink, fingerprint,
};

pub use common::{DOC_UNREADABLE, report_unreadable};
pub use owners::{CONFIG_BELOW_BRANCH_RULES, CONFIG_CODEOWNERS};
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
    /// Cites of the pull request body the family's rules checked.
    pub cites: usize,
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

    /// Reports each of `files` that has a document's name
    /// ([`common::is_document_name`]) and cannot be read as a document under
    /// `doc/unreadable`; returns how many were. An image, a diagram or a PDF
    /// beside the documents is no document and gets no finding.
    pub fn unreadable<'c>(&mut self, files: impl IntoIterator<Item = (&'c str, &'c FileContent)>) -> usize {
        let mut sink = Sink::default();
        for (path, content) in files.into_iter().filter(|(path, _)| common::is_document_name(path)) {
            report_unreadable(path, content, &mut sink);
        }
        let count = sink.len();
        self.extend(&DOC_UNREADABLE, &mut sink);
        count
    }
}

/// The change with the Markdown files at `paths` resolved
/// ([`crate::docs::seen::resolved`]: escapes, entities and link
/// destinations written as what they stand for, HTML comments blanked,
/// lines kept) on both sides, or `None` when none needs it. Readers that
/// read lines (the fondue engine's grammars, a brief's sentences and flags)
/// so read each line as a reader sees it.
pub(crate) fn resolved<'p>(changes: &ChangeSet, paths: impl IntoIterator<Item = &'p str>) -> Option<ChangeSet> {
    let paths: Vec<&str> = paths.into_iter().filter(|path| path.ends_with(".md")).collect();
    let resolve = |files: &crate::model::Files| -> Vec<(String, FileContent)> {
        paths
            .iter()
            .filter_map(|&path| match crate::docs::seen::resolved(files.get(path)?.text()?) {
                std::borrow::Cow::Owned(text) => Some((path.to_string(), FileContent::Text(text.into()))),
                std::borrow::Cow::Borrowed(_) => None,
            })
            .collect()
    };
    let (head, base) = (resolve(&changes.head), resolve(&changes.base));
    if head.is_empty() && base.is_empty() {
        return None;
    }
    let mut out = changes.clone();
    for (path, content) in head {
        out.head.insert(path, content);
    }
    for (path, content) in base {
        out.base.insert(path, content);
    }
    Some(out)
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
silently weaken a gate, so every problem is reported with its line, on the `gatehouse/config` check; \
while the config has an error, the other checks are not evaluated. The config is read from the \
BASE revision (a PR cannot weaken its own gate); a PR that changes it sees its new file validated.",
    fix: None,
    bad: Example { path: CONFIG_PATH, text: "briefs:\n  review_threshold:\n    lines: lots\n" },
    good: Example { path: CONFIG_PATH, text: "briefs:\n  review_threshold:\n    lines: 200\n" },
};

pub static CONFIG_LOCKED: RuleInfo = RuleInfo {
    id: "config/locked",
    default_severity: Severity::Error,
    summary: "a repository's config asks for no less than the config it extends locks",
    why: "An organisation keeps one policy for its repositories in a shared `gatehouse.yml` that each \
repository's config `extends:`; a repository may ask for more, never less. The shared file's `locks:` fix \
a key (`locked`) or bound it (`at_least`, `at_most`). A value the lock refuses is reported at its line \
and the extended config's value applies, so a gate is never weakened by a repository's own file.",
    fix: None,
    bad: Example {
        path: CONFIG_PATH,
        text: "# extends a file with `locks: { review.core.required: { at_least: 2 } }`\nextends: acme/.github\nreview:\n  core: { reviewers: [alice, bob], required: 1 }\n",
    },
    good: Example {
        path: CONFIG_PATH,
        text: "# extends a file with `locks: { review.core.required: { at_least: 2 } }`\nextends: acme/.github\nreview:\n  core: { reviewers: [alice, bob, carol], required: 2 }\n",
    },
};

pub static CONFIG_EXTENDS: RuleInfo = RuleInfo {
    id: "config/extends",
    default_severity: Severity::Error,
    summary: "the config a repository's config extends can be read and is valid",
    why: "A repository that inherits its organisation's policy must never fall back to its own file \
unseen: a missing repository, a file the App cannot read, a YAML error, a cycle of `extends:` or a chain \
longer than four files is reported at the repository's `extends:`, saying which file and why, and the \
other checks are not evaluated until it is fixed. It is reported on every pull request until then, \
whatever the change touches: the extended file's state is not one this repository's base had.",
    fix: None,
    bad: Example { path: CONFIG_PATH, text: "extends: acme/no-such-repository\n" },
    good: Example { path: CONFIG_PATH, text: "extends: acme/.github\n" },
};

/// Every rule, in catalogue order.
pub fn all_rules() -> Vec<&'static RuleInfo> {
    let mut rules = vec![
        &CONFIG_INVALID,
        &CONFIG_LOCKED,
        &CONFIG_EXTENDS,
        &CONFIG_CODEOWNERS,
        &CONFIG_BELOW_BRANCH_RULES,
        &DOC_UNREADABLE,
    ];
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
    let ids: Vec<&str> = all_rules().iter().map(|r| r.id).collect();
    Config::parse(text, &ids)
}

/// The effective config of a repository whose own config is `text`, merged
/// with the files it extends (see [`crate::config::inherit`]).
pub fn read_effective(text: Option<&str>, inheritance: &Inheritance) -> Effective {
    let ids: Vec<&str> = all_rules().iter().map(|r| r.id).collect();
    inherit::resolve(text, inheritance.default_parent.as_ref(), &inheritance.parents, &ids)
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

/// The config's and every family's findings over the ChangeSet, as the
/// rules report them, before any is demoted and before the checks conclude.
fn evaluate_revision<'a>(changes: &'a ChangeSet, see: &mut dyn FnMut(Parsed<'_, 'a>)) -> Report {
    let config = &changes.config;
    let mut checks = vec![config_check(changes)];
    // Families that report to the same check (a family and its PR-body
    // cites) are merged into one check run.
    let mut runs: Vec<(Check, FamilyRun)> = Vec::new();
    for family in FAMILIES {
        let run = family.run_seeing(changes, see);
        match runs.iter_mut().find(|(check, _)| *check == family.check()) {
            Some((_, merged)) => {
                merged.documents += run.documents;
                merged.cites += run.cites;
                merged.details.extend(run.details);
                merged.diagnostics.extend(run.diagnostics);
            }
            None => runs.push((family.check(), run)),
        }
    }
    runs.sort_by_key(|(check, _)| *check);
    checks.extend(runs.into_iter().map(|(check, run)| {
        let mut findings: Vec<Finding> =
            run.diagnostics.into_iter().filter_map(|(info, d)| stamp(config, info, d)).collect();
        findings.sort_by(|a, b| (&a.path, a.span, a.rule).cmp(&(&b.path, b.span, b.rule)));
        findings.dedup();
        CheckReport {
            check,
            name: check.name(),
            conclusion: Conclusion::Neutral,
            documents: run.documents,
            cites: run.cites,
            evaluated: true,
            details: run.details,
            findings,
        }
    }));
    Report { checks }
}

/// Sets each check's conclusion from its findings. An error in the config
/// fails the config's check, and leaves every family's check neutral and
/// empty: its documents were read by a config the team did not write.
fn conclude(report: &mut Report) {
    let has_errors = |check: &CheckReport| check.findings.iter().any(|f| f.severity == Severity::Error);
    // A rejected CODEOWNERS line fails the config check, but GitHub skips the
    // line and the gatehouse config itself is as the team wrote it.
    let config_invalid = report.checks.iter().any(|c| {
        c.check == Check::Config
            && c.findings.iter().any(|f| f.severity == Severity::Error && f.rule != CONFIG_CODEOWNERS.id)
    });
    for check in &mut report.checks {
        if config_invalid && check.check != Check::Config {
            *check = CheckReport {
                conclusion: Conclusion::Neutral,
                documents: 0,
                cites: 0,
                evaluated: false,
                details: Vec::new(),
                findings: Vec::new(),
                ..*check
            };
            continue;
        }
        check.conclusion = if has_errors(check) {
            Conclusion::Failure
        } else if check.documents == 0 && check.cites == 0 {
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

/// The config's check: the head's config file validated, merged with the
/// files it extends (their problems at its `extends:`), when it has one or
/// inherits a policy. It counts the config as its document when the change
/// touches it.
fn config_check(changes: &ChangeSet) -> CheckReport {
    let mut sinks: Vec<(&'static RuleInfo, Sink)> = Vec::new();
    let mut details = Vec::new();
    let inherits = changes.inheritance.default_parent.is_some();
    let policy = changes.inheritance.default_parent.as_ref();
    if let Some((source, Parent::Absent(why))) = policy.and_then(|p| changes.inheritance.parents.get_key_value(p)) {
        details.push(format!(
            "No organisation policy applies: `{source}` was not found ({why}). An organisation keeps one there, \
             with the App installed on that repository."
        ));
    }
    match changes.head.get(CONFIG_PATH).map(|content| (content, content.text())) {
        None if !inherits => {}
        None | Some((_, Some(_))) => {
            let text = changes.head.get(CONFIG_PATH).and_then(FileContent::text);
            let effective = read_effective(text, &changes.inheritance);
            // A change to the config shows what it will govern with.
            if effective.files.len() > 1 && changes.touches(CONFIG_PATH) {
                details.push(format!(
                    "The effective config, merged with the files it extends (`gatehouse config explain` prints \
                     the same):\n\n{}",
                    crate::config::explain::markdown(&crate::config::explain::explain(&effective))
                ));
            }
            let below = owners::below_branch_rules(changes, &effective);
            sinks.push((&CONFIG_BELOW_BRANCH_RULES, below));
            for problem in effective.problems {
                let info = match problem.kind {
                    ProblemKind::Invalid => &CONFIG_INVALID,
                    ProblemKind::Locked => &CONFIG_LOCKED,
                    ProblemKind::Extends => &CONFIG_EXTENDS,
                };
                let e = problem.error;
                let anchor = format!("{}:{}", e.line, e.message);
                let span = crate::model::Span::at(e.line, e.col, e.width);
                let at = match sinks.iter().position(|(i, _)| i.id == info.id) {
                    Some(at) => at,
                    None => {
                        sinks.push((info, Sink::default()));
                        sinks.len() - 1
                    }
                };
                sinks[at].1.emit(CONFIG_PATH, span, anchor, e.message).help(e.help);
            }
        }
        Some((content, None)) => {
            let mut sink = Sink::default();
            report_unreadable(CONFIG_PATH, content, &mut sink);
            sinks.push((&DOC_UNREADABLE, sink));
        }
    }
    sinks.push((&CONFIG_CODEOWNERS, owners::codeowners(changes)));
    let mut findings: Vec<Finding> = sinks
        .into_iter()
        .flat_map(|(info, mut sink)| sink.take().into_iter().map(move |d| (info, d)))
        .filter_map(|(info, d)| stamp(&changes.config, info, d))
        .collect();
    findings.sort_by(|a, b| (a.span, a.rule).cmp(&(b.span, b.rule)));
    CheckReport {
        check: Check::Config,
        name: Check::Config.name(),
        conclusion: Conclusion::Neutral,
        documents: usize::from(changes.touches(CONFIG_PATH)),
        cites: 0,
        evaluated: true,
        details,
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Files, NOT_EVALUATED};

    fn files(entries: &[(&str, &str)]) -> Files {
        entries.iter().map(|(path, text)| (path.to_string(), FileContent::Text((*text).into()))).collect()
    }

    fn check(report: &Report, check: Check) -> &CheckReport {
        report.checks.iter().find(|c| c.check == check).expect("every check is reported")
    }

    const BRIEF: &str = "dark-factory/briefs/SWARM-AR-backup.md";

    #[test]
    fn the_config_check_comes_first_and_says_whether_the_change_touches_the_config() {
        let valid = "briefs:\n  review_threshold:\n    lines: 200\n";
        let touched = evaluate(&ChangeSet { head: files(&[(CONFIG_PATH, valid)]), ..Default::default() });
        assert_eq!(touched.checks[0].check, Check::Config);
        let config = check(&touched, Check::Config);
        assert_eq!((config.conclusion, config.documents), (Conclusion::Success, 1));
        assert_eq!(config.scope(), "`.github/gatehouse.yml` checked");
        let same = files(&[(CONFIG_PATH, valid)]);
        let untouched = evaluate(&ChangeSet { base: same.clone(), head: same, ..Default::default() });
        let config = check(&untouched, Check::Config);
        assert_eq!((config.conclusion, config.documents), (Conclusion::Neutral, 0));
        assert_eq!(config.scope(), "the change does not touch `.github/gatehouse.yml`");
    }

    #[test]
    fn an_invalid_config_leaves_every_family_check_neutral_and_not_evaluated() {
        let head = files(&[(CONFIG_PATH, "briefs:\n  pahts: [\"x/*.md\"]\n"), (BRIEF, "not a brief\n")]);
        let report = evaluate(&ChangeSet { head, ..Default::default() });
        let config = check(&report, Check::Config);
        assert_eq!(config.conclusion, Conclusion::Failure);
        assert_eq!(
            config.findings[0].help.as_deref(),
            Some("did you mean `paths`? The keys of `briefs` are `paths`, `review_threshold`.")
        );
        for family in report.checks.iter().filter(|c| c.check != Check::Config) {
            assert_eq!((family.conclusion, family.evaluated, family.findings.len()), (Conclusion::Neutral, false, 0));
            assert_eq!(family.scope(), NOT_EVALUATED);
        }
        assert!(report.findings().all(|f| f.path == CONFIG_PATH), "{:?}", report.findings().collect::<Vec<_>>());
    }

    #[test]
    fn the_pull_request_body_is_no_document() {
        let mut changes = ChangeSet::default();
        changes.pr.body = Some(format!("Brief: {BRIEF}\n"));
        let report = evaluate(&changes);
        let briefs = check(&report, Check::Briefs);
        assert_eq!((briefs.documents, briefs.cites), (0, 1));
        assert_eq!(briefs.scope(), "no agent briefs changed; 1 cite in the pull request body checked");
        assert_eq!(briefs.conclusion, Conclusion::Failure, "a cite of no brief: {:?}", briefs.findings);
        let voting = check(&report, Check::Voting);
        assert_eq!((voting.documents, voting.cites, voting.conclusion), (0, 0, Conclusion::Neutral));
        assert_eq!(voting.scope(), "no voting docs changed");
        let head = files(&[(BRIEF, "not a brief\n")]);
        let with_brief = evaluate(&ChangeSet { head, pr: changes.pr.clone(), ..Default::default() });
        let briefs = check(&with_brief, Check::Briefs);
        assert_eq!((briefs.documents, briefs.cites), (1, 1));
        assert_eq!(briefs.scope(), "1 document and 1 cite in the pull request body checked");
    }
}
