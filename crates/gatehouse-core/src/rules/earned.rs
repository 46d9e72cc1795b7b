//! A finding must be earned by the change. A finding on a file the change
//! does not touch, that the rules also report when they run on the base
//! revision, describes a state the base already had: it is reported as a
//! notice saying so, and never fails a check. A finding on a file the change
//! touches keeps its severity, and so does one on an untouched file that the
//! change caused (a new brief that duplicates an old brief's agent id, a
//! config change that makes an old document wrong): the base run does not
//! report it.

use std::collections::BTreeSet;

use crate::model::{ChangeSet, Finding, PrInfo, Report, Severity};

/// What a demoted finding's message starts with.
pub(super) const PREDATES: &str = "predates this change: ";

/// Demotes to notices the findings of `report` (the rules' findings over
/// `changes`) that the change did not earn.
pub(super) fn demote_predating(changes: &ChangeSet, report: &mut Report) {
    // An extended config that cannot be read is the state of another
    // repository now, never one this repository's base had.
    let questioned =
        |f: &Finding| f.severity != Severity::Notice && !changes.touches(&f.path) && f.rule != super::CONFIG_EXTENDS.id;
    let paths: BTreeSet<&str> = report.findings().filter(|f| questioned(f)).map(|f| f.path.as_str()).collect();
    if paths.is_empty() {
        return;
    }
    let base = base_revision(changes, &paths);
    let before = super::evaluate_revision(&base, &mut |_| {});
    let seen: BTreeSet<(&str, &str, &str)> =
        before.findings().map(|f| (f.rule, f.path.as_str(), f.message.as_str())).collect();
    let findings = report.checks.iter_mut().flat_map(|c| c.findings.iter_mut());
    for finding in findings {
        if questioned(finding) && seen.contains(&(finding.rule, finding.path.as_str(), finding.message.as_str())) {
            finding.severity = Severity::Notice;
            finding.message.insert_str(0, PREDATES);
        }
    }
}

/// The base revision as a change of its own that adds the documents in
/// question: the files the change touches and the files the findings in
/// question are on, as they stood on the base (a file in question that is on
/// neither side, like a missing `current-state.txt`, stands for the folder
/// it would be in). The families check those documents with every other base
/// file as their context, and with no pull request body (the body belongs to
/// the change).
fn base_revision(changes: &ChangeSet, paths: &BTreeSet<&str>) -> ChangeSet {
    let mut added: BTreeSet<String> = changes.changed().map(|(p, _)| p.to_string()).collect();
    added.extend(changes.deleted().map(str::to_string));
    for path in paths {
        if changes.base.contains_key(path) {
            added.insert(path.to_string());
        } else if let Some((folder, _)) = path.rsplit_once('/') {
            added.extend(changes.base.with_prefix(&format!("{folder}/")).map(|(p, _)| p.clone()));
        }
    }
    let mut before = changes.base.clone();
    for path in &added {
        before.remove(path);
    }
    ChangeSet {
        repo: changes.repo.clone(),
        base: before,
        head: changes.base.clone(),
        pr: PrInfo::default(),
        repos: changes.repos.clone(),
        config: changes.config.clone(),
        inheritance: changes.inheritance.clone(),
        history: changes.history.clone(),
        agents: None,
        codeowners: changes.codeowners.clone(),
        github_owner_errors: changes.github_owner_errors.clone(),
        branch_rules: changes.branch_rules.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CONFIG_PATH;
    use crate::model::{Check, CheckReport, Conclusion, FileContent, Files};

    fn files(entries: &[(&str, &str)]) -> Files {
        let mut files = Files::new();
        for (path, text) in entries {
            files.insert(path.to_string(), FileContent::Text((*text).into()));
        }
        files
    }

    const BAD_CONFIG: &str = "briefs:\n  review_threshold:\n    lines: lots\n";

    fn config_check(report: &Report) -> &CheckReport {
        report.checks.iter().find(|c| c.check == Check::Config).expect("the config's check")
    }

    #[test]
    fn an_invalid_config_the_change_does_not_touch_is_a_notice() {
        let base = files(&[(CONFIG_PATH, BAD_CONFIG)]);
        let head = files(&[(CONFIG_PATH, BAD_CONFIG), ("README.md", "# Docs\n")]);
        let report = crate::rules::evaluate(&ChangeSet { base, head, ..Default::default() });
        let config = config_check(&report);
        assert_eq!(config.findings.len(), 1, "{:?}", config.findings);
        assert_eq!(config.findings[0].severity, Severity::Notice);
        assert!(config.findings[0].message.starts_with(PREDATES), "{:?}", config.findings[0]);
        assert_eq!((config.conclusion, config.documents), (Conclusion::Neutral, 0));
        assert!(report.checks.iter().all(|c| c.conclusion != Conclusion::Failure && c.evaluated));
    }

    #[test]
    fn an_invalid_config_the_change_writes_fails_its_check_alone() {
        let base = files(&[(CONFIG_PATH, "briefs:\n  review_threshold:\n    lines: 200\n")]);
        let head = files(&[(CONFIG_PATH, BAD_CONFIG)]);
        let report = crate::rules::evaluate(&ChangeSet { base, head, ..Default::default() });
        let config = config_check(&report);
        assert_eq!(config.findings[0].severity, Severity::Error);
        assert!(!config.findings[0].message.starts_with(PREDATES));
        assert_eq!((config.conclusion, config.documents), (Conclusion::Failure, 1));
        let families: Vec<_> = report.checks.iter().filter(|c| c.check != Check::Config).collect();
        assert_eq!(families.len(), 4);
        assert!(families.iter().all(|c| c.conclusion == Conclusion::Neutral && !c.evaluated), "{families:?}");
    }
}
