//! Every rule has a failing and a passing fixture under
//! `crates/gatehouse-core/fixtures/rules/<rule id>/{fail,pass}/`:
//!
//! - `head/` the files after the change (required); `base/` the files before
//!   it (optional: without it every document is new);
//! - `crates/gatehouse-core/fixtures/rules/<family>/_shared/` is laid under `head/` (and under
//!   `base/` when the case has one);
//! - `pr-body.md` the PR body; `pr-files` the PR's diff, one `path additions
//!   deletions` per line; `repo-name` the checkout's `owner/name`;
//!   `branch-rules.json` the base branch's review rules (rulesets, branch
//!   protection) as the App hands them in (`gatehouse::owners::ReviewRules`);
//!   `repos/<owner>/<name>/` other repositories' files;
//! - `fail/expect`: the rule's findings on the failing case as
//!   `gatehouse check` prints them in text (`error[id]: message`, the
//!   `--> path:line:col` line, the source line and its caret, `= help:`), in
//!   path and line order, so a change of wording, position, help or severity
//!   shows in review;
//! - `fail/fixed/`: for a rule that offers fixes, each file its verified
//!   fixes change, as it reads once they are applied (round after round, as
//!   `gatehouse check --fix` applies them). A rule that offers none must offer
//!   none on its failing case.
//!
//! Each case is a test of its own, `<rule id>::fail` and `<rule id>::pass`
//! (`cargo test --test rule_fixtures voting/append-only` runs that rule's
//! two). A failing case must fire the rule exactly as `expect` shows; a
//! passing case must not fire it, and must have no error findings at all.
//! Every case is also evaluated as the App lays a pull request out (the base
//! laid over the head's shared map, agent ids indexed) and must report the
//! same. A rule without both cases fails, and so does a folder under
//! `crates/gatehouse-core/fixtures/rules/` that names no rule. With `BLESS_FIXTURES=1` each
//! `fail/expect` is written from what the rule found instead, and each
//! `fail/fixed/` file from what the fixes made (review the diff).

mod local_repo;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse::docs::brief::agent_of;
use gatehouse::model::{AgentIndex, ChangeSet, FileContent, Files, Finding, Report, Severity};
use gatehouse::{render, rules};
use libtest_mimic::{Arguments, Failed, Trial};
use local_repo::copy_tree;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gatehouse-core/fixtures/rules")
}

/// The report on `changes`, the case `case`, which must be the same laid
/// out as the App reads a pull request.
fn evaluate(case: &Path, changes: &ChangeSet) -> Result<Report, Failed> {
    let report = rules::evaluate(changes);
    let laid_out = rules::evaluate(&as_the_app_reads(changes));
    let (laid_out, read) = (format!("{laid_out:#?}"), format!("{report:#?}"));
    if laid_out != read {
        let diff = similar::TextDiff::from_lines(&read, &laid_out)
            .unified_diff()
            .header("read from disk", "laid out as the App reads it")
            .to_string();
        return Err(format!("{}: the report differs laid out as the App reads it:\n{diff}", case.display()).into());
    }
    Ok(report)
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
    if let Ok(json) = std::fs::read_to_string(case.join("branch-rules.json")) {
        changes.branch_rules = serde_json::from_str(&json).expect("branch-rules.json is `owners::ReviewRules`");
    }
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

fn bless() -> bool {
    std::env::var_os("BLESS_FIXTURES").is_some()
}

/// One test per case of every rule, named `<rule id>::fail` and
/// `<rule id>::pass`, and one for the fixture folders themselves.
fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for rule in rules::all_rules() {
        trials.push(Trial::test(format!("{}::fail", rule.id), move || fail_case(rule)));
        trials.push(Trial::test(format!("{}::pass", rule.id), move || pass_case(rule)));
    }
    trials.push(Trial::test("every_fixture_folder_is_a_rule", every_fixture_folder_is_a_rule));
    trials.push(Trial::test("carets_cover_the_value_at_fault", carets_cover_the_value_at_fault));
    libtest_mimic::run(&args, trials).exit_code()
}

/// `<rule id>/<case>/` and the family's `_shared/`, or why the case is missing.
fn case_dirs(rule: &rules::RuleInfo, case: &str) -> Result<(PathBuf, PathBuf), Failed> {
    let dir = fixtures().join(rule.id).join(case);
    if !dir.join("head").exists() {
        return Err(format!("{}: missing fixture {}/head", rule.id, dir.display()).into());
    }
    let family = rule.id.split('/').next().unwrap();
    Ok((dir, fixtures().join(family).join("_shared")))
}

/// The failing case fires the rule exactly as `fail/expect` shows it, and
/// its fixes (if the rule offers any) give `fail/fixed/`.
fn fail_case(rule: &'static rules::RuleInfo) -> Result<(), Failed> {
    let (fail, shared) = case_dirs(rule, "fail")?;
    let changes = changeset(&fail, &shared);
    let report = evaluate(&fail, &changes)?;
    let fired: Vec<&Finding> = report.findings().filter(|f| f.rule == rule.id).collect();
    let rendered = render::text_findings(fired.iter().copied(), &changes);
    if bless() {
        std::fs::write(fail.join("expect"), &rendered).unwrap();
    }
    let expected = std::fs::read_to_string(fail.join("expect")).unwrap_or_default();
    let mut problems = Vec::new();
    if expected.trim().is_empty() {
        problems.push(format!("{}: fail/expect lists no finding", rule.id));
    }
    if rendered != expected {
        let diff = similar::TextDiff::from_lines(&expected, &rendered)
            .unified_diff()
            .header("fail/expect", "found")
            .to_string();
        let all: Vec<&Finding> = report.findings().collect();
        problems.push(format!("{}: fail case differs from fail/expect:\n{diff}all findings:{}", rule.id, show(&all)));
    }
    problems.extend(fixes_of(rule, &fail, &shared, &report));
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n").into()) }
}

/// The passing case neither fires the rule nor has any error finding.
fn pass_case(rule: &'static rules::RuleInfo) -> Result<(), Failed> {
    let (pass, shared) = case_dirs(rule, "pass")?;
    let report = evaluate(&pass, &changeset(&pass, &shared))?;
    let bad: Vec<&Finding> = report.findings().filter(|f| f.rule == rule.id || f.severity == Severity::Error).collect();
    if bad.is_empty() { Ok(()) } else { Err(format!("{}: pass case has findings:{}", rule.id, show(&bad)).into()) }
}

/// Under `crates/gatehouse-core/fixtures/rules/` every family folder holds `_shared/` and the
/// folders of its registered rules, each holding `fail/` and `pass/` alone:
/// a misspelt or orphaned folder would otherwise run as no test at all.
fn every_fixture_folder_is_a_rule() -> Result<(), Failed> {
    let ids: BTreeSet<&str> = rules::all_rules().iter().map(|r| r.id).collect();
    let names = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    let mut problems = Vec::new();
    for family in names(&fixtures()) {
        for name in names(&fixtures().join(&family)) {
            let id = format!("{family}/{name}");
            if name == "_shared" {
                continue;
            }
            if !ids.contains(id.as_str()) {
                problems.push(format!("crates/gatehouse-core/fixtures/rules/{id}: no registered rule has this id"));
                continue;
            }
            for case in names(&fixtures().join(&id)) {
                if case != "fail" && case != "pass" {
                    problems.push(format!(
                        "crates/gatehouse-core/fixtures/rules/{id}/{case}: a rule's fixture holds fail/ and pass/ only"
                    ));
                }
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n").into()) }
}

/// The families whose findings point at a value: their carets must cover it.
fn marks_values(rule: &str) -> bool {
    rule.starts_with("voting/") || rule.starts_with("decision/") || rule.ends_with("/field-type")
}

/// A voting, decision or field-type finding of a failing case that marks
/// one character marks a value one character long: the character after it
/// on the line ends the value (a space, `,`, `]`, `}`, `:` or the line's end).
fn carets_cover_the_value_at_fault() -> Result<(), Failed> {
    let mut problems = Vec::new();
    let mut checked = 0;
    for rule in rules::all_rules().iter().filter(|r| marks_values(r.id)) {
        let (fail, shared) = case_dirs(rule, "fail")?;
        let changes = changeset(&fail, &shared);
        for f in rules::evaluate(&changes).findings().filter(|f| f.rule == rule.id) {
            let text = changes.head.get(&f.path).and_then(|c| c.text());
            let Some(line) = text.and_then(|t| t.lines().nth(f.span.line as usize - 1)) else { continue };
            if f.span.col == 0 || f.span.end_line != f.span.line || f.span.end_col != f.span.col + 1 {
                continue;
            }
            checked += 1;
            let mut from = line.chars().skip(f.span.col as usize - 1);
            let (marked, next) = (from.next(), from.next());
            if next.is_some_and(|c| !c.is_whitespace() && !matches!(c, ',' | ']' | '}' | ':')) {
                problems.push(format!(
                    "{}:{}:{} {}: one caret under `{}` of `{line}`",
                    f.path,
                    f.span.line,
                    f.span.col,
                    f.rule,
                    marked.unwrap_or(' ')
                ));
            }
        }
    }
    if checked == 0 {
        problems.push("no one-character caret was checked: the fixtures no longer show what this test guards".into());
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n").into()) }
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
    if bless() {
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
