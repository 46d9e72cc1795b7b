//! Every rule has a failing and a passing fixture under
//! `fixtures/rules/<rule id>/{fail,pass}/`:
//!
//! - `head/` the files after the change (required); `base/` the files before
//!   it (optional: without it every document is new);
//! - `fixtures/rules/<family>/_shared/` is laid under `head/` (and under
//!   `base/` when the case has one);
//! - `pr-body.md` the PR body; `pr-files` the PR's diff, one `path additions
//!   deletions` per line; `repo-name` the checkout's `owner/name`;
//!   `repos/<owner>/<name>/` other repositories' files;
//! - `fail/expect`: one `path:line: message` per finding of the rule, in
//!   path and line order, so a change of wording shows in review;
//! - `fail/fixed/`: for a rule that offers fixes, each file its verified
//!   fixes change, as it reads once they are applied (round after round, as
//!   `gatehouse check --fix` applies them). A rule that offers none must offer
//!   none on its failing case.
//!
//! A failing case must fire the rule exactly as `expect` says; a passing case
//! must not fire it, and must have no error findings at all. Every case is
//! also evaluated as the App lays a pull request out (the base laid over the
//! head's shared map, agent ids indexed) and must report the same. With
//! `BLESS_FIXTURES=1` the test writes each `fail/expect` from what the rule
//! found instead, and each `fail/fixed/` file from what the fixes made
//! (review the diff).

mod local_repo;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse::docs::brief::agent_of;
use gatehouse::model::{AgentIndex, ChangeSet, FileContent, Files, Finding, Report, Severity};
use gatehouse::rules;
use local_repo::copy_tree;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rules")
}

fn evaluate(case: &Path, shared: &Path) -> Report {
    let changes = changeset(case, shared);
    let report = rules::evaluate(&changes);
    let laid_out = rules::evaluate(&as_the_app_reads(&changes));
    assert_eq!(format!("{laid_out:?}"), format!("{report:?}"), "{} laid out as the App reads it", case.display());
    report
}

fn changeset(case: &Path, shared: &Path) -> ChangeSet {
    let tmp = tempfile::tempdir().unwrap();
    let head = tmp.path().join("head");
    std::fs::create_dir_all(&head).unwrap();
    copy_tree(shared, &head);
    copy_tree(&case.join("head"), &head);
    let base = case.join("base").exists().then(|| {
        let base = tmp.path().join("base");
        std::fs::create_dir_all(&base).unwrap();
        copy_tree(shared, &base);
        copy_tree(&case.join("base"), &base);
        base
    });
    let repo_name = std::fs::read_to_string(case.join("repo-name")).ok().map(|s| s.trim().to_string());
    let mut others = Vec::new();
    if let Ok(owners) = std::fs::read_dir(case.join("repos")) {
        for owner in owners {
            let owner = owner.unwrap();
            for name in std::fs::read_dir(owner.path()).unwrap() {
                let name = name.unwrap();
                others.push((
                    format!("{}/{}", owner.file_name().to_string_lossy(), name.file_name().to_string_lossy()),
                    name.path(),
                ));
            }
        }
    }
    let mut changes = gatehouse::source::fs::changeset(&head, base.as_deref(), repo_name.as_deref(), &others).unwrap();
    changes.pr.body = std::fs::read_to_string(case.join("pr-body.md")).ok();
    changes.pr.files = std::fs::read_to_string(case.join("pr-files")).ok().map(|text| {
        text.lines()
            .filter_map(|l| {
                let mut parts = l.split_whitespace();
                Some(gatehouse::model::ChangedFile {
                    path: parts.next()?.to_string(),
                    additions: parts.next()?.parse().ok()?,
                    deletions: parts.next()?.parse().ok()?,
                })
            })
            .collect()
    });
    changes
}

/// `changes` as the App reads a pull request: the head is one shared map,
/// the base that map with the paths the change touches laid over it, and
/// the head's agent ids come indexed.
fn as_the_app_reads(changes: &ChangeSet) -> ChangeSet {
    let shared: Arc<BTreeMap<String, FileContent>> =
        Arc::new(changes.head.iter().map(|(p, c)| (p.clone(), c.clone())).collect());
    let mut base = Files::over(shared.clone());
    for (path, content) in &changes.head {
        match changes.base.get(path) {
            Some(old) if old == content => {}
            Some(old) => base.insert(path.clone(), old.clone()),
            None => base.remove(path),
        }
    }
    for (path, content) in &changes.base {
        if !changes.head.contains_key(path) {
            base.insert(path.clone(), content.clone());
        }
    }
    let agents = shared
        .iter()
        .filter_map(|(path, content)| Some((Arc::from(agent_of(content.text()?)?), Box::from(path.as_str()))))
        .collect();
    ChangeSet { head: Files::over(shared), base, agents: Some(Arc::new(AgentIndex::new(agents))), ..changes.clone() }
}

fn show(findings: &[&Finding]) -> String {
    findings.iter().map(|f| format!("\n  {}:{} {} {}", f.path, f.span.line, f.rule, f.message)).collect()
}

#[test]
fn every_rule_fails_and_passes_its_fixtures() {
    let mut problems = Vec::new();
    for rule in rules::all_rules() {
        let dir = fixtures().join(rule.id);
        let family = rule.id.split('/').next().unwrap();
        let shared = fixtures().join(family).join("_shared");
        let (fail, pass) = (dir.join("fail"), dir.join("pass"));
        if !fail.join("head").exists() || !pass.join("head").exists() {
            problems.push(format!("{}: missing fixtures {}/{{fail,pass}}/head", rule.id, dir.display()));
            continue;
        }
        let report = evaluate(&fail, &shared);
        let all: Vec<&Finding> = report.findings().collect();
        let fired: BTreeSet<(String, u32, String)> = all
            .iter()
            .filter(|f| f.rule == rule.id)
            .map(|f| (f.path.clone(), f.span.line, f.message.clone()))
            .collect();
        if std::env::var_os("BLESS_FIXTURES").is_some() {
            let lines: String =
                fired.iter().map(|(path, line, message)| format!("{path}:{line}: {message}\n")).collect();
            std::fs::write(fail.join("expect"), lines).unwrap();
        }
        let expected: BTreeSet<(String, u32, String)> = std::fs::read_to_string(fail.join("expect"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let (at, message) = l.split_once(": ").expect("expect lines are path:line: message");
                let (path, line) = at.rsplit_once(':').expect("expect lines are path:line: message");
                (path.to_string(), line.trim().parse().expect("line number"), message.to_string())
            })
            .collect();
        if expected.is_empty() {
            problems.push(format!("{}: fail/expect lists no finding", rule.id));
        }
        if fired != expected {
            problems.push(format!(
                "{}: fail case fired at {fired:?}, expected {expected:?}; all findings:{}",
                rule.id,
                show(&all)
            ));
        }
        problems.extend(fixes_of(rule, &fail, &shared, &report));
        let report = evaluate(&pass, &shared);
        let bad: Vec<&Finding> =
            report.findings().filter(|f| f.rule == rule.id || f.severity == Severity::Error).collect();
        if !bad.is_empty() {
            problems.push(format!("{}: pass case has findings:{}", rule.id, show(&bad)));
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// What is wrong with the fixes `rule` offers on its failing case `fail`
/// (whose evaluation is `report`): see the module's comment.
fn fixes_of(rule: &rules::RuleInfo, fail: &Path, shared: &Path, report: &Report) -> Vec<String> {
    let expected_dir = fail.join("fixed");
    let offered = report.findings().filter(|f| f.rule == rule.id && f.fix.is_some()).count();
    if rule.fix.is_none() {
        return match offered {
            0 if expected_dir.exists() => vec![format!("{}: has fail/fixed/ but declares no fix", rule.id)],
            0 => Vec::new(),
            n => vec![format!("{}: declares no fix but offers {n} on its failing case", rule.id)],
        };
    }
    let changes = changeset(fail, shared);
    let fixed = rules::fix_all(&changes, 10, &|f| f.rule == rule.id);
    let changed: BTreeMap<&str, &str> = fixed
        .changes
        .head
        .iter()
        .filter(|(path, content)| changes.head.get(path.as_str()) != Some(*content))
        .map(|(path, content)| (path.as_str(), content.text().unwrap_or_default()))
        .collect();
    if std::env::var_os("BLESS_FIXTURES").is_some() {
        let _ = std::fs::remove_dir_all(&expected_dir);
        for (path, text) in &changed {
            let file = expected_dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
    }
    let mut problems = Vec::new();
    if offered == 0 || changed.is_empty() {
        problems.push(format!("{}: declares a fix but offers none on its failing case", rule.id));
    }
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    if expected_dir.exists() {
        for path in gatehouse::source::fs::list(&expected_dir).unwrap() {
            let text = std::fs::read_to_string(expected_dir.join(&path)).unwrap();
            expected.insert(path, text);
        }
    }
    let got: BTreeMap<String, String> = changed.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    if got != expected {
        problems.push(format!("{}: fixing its failing case gave {got:#?}, fail/fixed/ holds {expected:#?}", rule.id));
    }
    if fixed.unfinished {
        problems.push(format!("{}: fixes were still offered after 10 rounds", rule.id));
    }
    let before: BTreeSet<(&str, Severity)> = report.findings().map(|f| (f.fingerprint.as_str(), f.severity)).collect();
    let added: Vec<&Finding> = fixed
        .report
        .findings()
        .filter(|f| f.severity != Severity::Notice && !before.contains(&(f.fingerprint.as_str(), f.severity)))
        .collect();
    if !added.is_empty() {
        problems.push(format!("{}: its fixes added findings:{}", rule.id, show(&added)));
    }
    problems
}
