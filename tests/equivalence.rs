//! Equivalent documents get equal answers, equivalence decided by
//! implementations of the standards other than the readers' own
//! (`equivalence/oracle.rs`). A property test draws a case (every rule
//! fixture, the demo and starter repositories, the ADR conventions' folders,
//! the real-world corpus: `equivalence/cases.rs`), one of its documents (or
//! the PR body) and a kind of perturbation, and perturbs the document at
//! places drawn at random (`equivalence/{markdown,yaml}.rs`). A variant the
//! oracle calls the same document must get the same findings as the
//! original (rule, file, line mapped through the perturbation, severity,
//! notices included). The test prints per kind how many variants it tried
//! and kept, and fails when a kind was kept fewer than 100 times.

#[path = "equivalence/cases.rs"]
mod cases;
#[path = "equivalence/doc.rs"]
mod doc;
mod local_repo;
#[path = "equivalence/markdown.rs"]
mod markdown;
#[path = "equivalence/oracle.rs"]
mod oracle;
#[path = "equivalence/yaml.rs"]
mod yaml;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use gatehouse::model::{ChangeSet, FileContent, PR_BODY, Severity};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

use cases::{cases, root};
use doc::{Doc, LineMap};

/// The random draws a perturbation makes, each reduced to the range it
/// needs; shrinking makes them 0, the first place, and fewer.
pub struct Choices {
    values: Vec<u32>,
    at: usize,
}

impl Choices {
    pub fn draw(&mut self) -> u32 {
        let value = self.values.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        value
    }

    pub fn pick<'a, T>(&mut self, from: &'a [T]) -> Option<&'a T> {
        let n = self.draw() as usize;
        from.get(n.checked_rem(from.len())?)
    }
}

/// A kind of perturbation: Markdown (judged by the HTML oracle) or YAML
/// (judged by the YAML oracle).
struct Kind {
    name: &'static str,
    yaml: bool,
    /// It changes where lines break (a wrap, a hard break), which the fondue
    /// engine's line grammars do not allow (`line_grammar`).
    across_lines: bool,
    apply: fn(&mut Doc, &mut Choices) -> Option<()>,
}

const KINDS: &[Kind] = &[
    Kind { name: "escaped punctuation", yaml: false, across_lines: false, apply: markdown::escape },
    Kind { name: "entities", yaml: false, across_lines: false, apply: markdown::entity },
    Kind { name: "line endings", yaml: false, across_lines: false, apply: markdown::line_endings },
    Kind { name: "hard breaks", yaml: false, across_lines: true, apply: markdown::hard_break },
    Kind { name: "wrapping", yaml: false, across_lines: true, apply: markdown::wrap },
    Kind { name: "list markers", yaml: false, across_lines: false, apply: markdown::list_markers },
    Kind { name: "emphasis delimiters", yaml: false, across_lines: false, apply: markdown::emphasis },
    Kind { name: "link spellings", yaml: false, across_lines: false, apply: markdown::links },
    Kind { name: "code spellings", yaml: false, across_lines: false, apply: markdown::code },
    Kind { name: "quote markers and laziness", yaml: false, across_lines: false, apply: markdown::quote_laziness },
    Kind { name: "HTML comments", yaml: false, across_lines: false, apply: markdown::html_comment },
    Kind { name: "YAML scalar styles", yaml: true, across_lines: false, apply: yaml::scalar_style },
    Kind { name: "YAML collection styles", yaml: true, across_lines: false, apply: yaml::collection_style },
    Kind { name: "YAML tags", yaml: true, across_lines: false, apply: yaml::tags },
    Kind { name: "YAML integer notations", yaml: true, across_lines: false, apply: yaml::integers },
    Kind { name: "YAML anchors and aliases", yaml: true, across_lines: false, apply: yaml::anchors },
    Kind { name: "YAML comments", yaml: true, across_lines: false, apply: yaml::comments },
    Kind { name: "YAML tabs", yaml: true, across_lines: false, apply: yaml::tabs },
];

/// How many variants a run draws (`EQUIVALENCE_VARIANTS` sets another number).
const VARIANTS: u32 = 80_000;

/// The fewest times each kind must be kept.
const KEPT_AT_LEAST: usize = 100;

/// A finding as compared: rule, path, line, severity.
type Found = (String, String, u32, Severity);

/// The findings of `changes`, sorted, notices included.
fn findings(changes: &ChangeSet) -> Vec<Found> {
    let report = gatehouse::rules::evaluate(changes);
    let mut found: Vec<Found> =
        report.findings().map(|f| (f.rule.to_string(), f.path.clone(), f.span.line, f.severity)).collect();
    found.sort();
    found
}

/// Whether `found` is `expected`, one for one: the same rule, path and
/// severity, on a line the old line's text went to.
fn same(expected: &[(&Found, (u32, u32))], found: &[Found]) -> bool {
    let mut left: Vec<&Found> = found.iter().collect();
    // The narrowest ranges first, so a wide one takes no line a narrow one needs.
    let mut expected = expected.to_vec();
    expected.sort_by_key(|(_, (lo, hi))| hi - lo);
    for ((rule, path, _, severity), (lo, hi)) in expected {
        let Some(at) =
            left.iter().position(|(r, p, line, s)| r == rule && p == path && s == severity && (lo..=hi).contains(line))
        else {
            return false;
        };
        left.remove(at);
    }
    left.is_empty()
}

/// A file of the fondue engine whose grammar is lines, not paragraphs: the
/// engine reads each line (`**Skill:** spec`, `Verdict: approved …`,
/// `attempt-01 phase-01 closed at …`), and two of them joined, or one split,
/// are not its format, whatever CommonMark renders. Its drafts and plans
/// (`pre-plan/`, `plan/`) are prose, but for the user's brief
/// (`pre-plan/00-brief.md`), whose `Amended <date>: …` lines are the
/// engine's.
fn line_grammar(path: &str) -> bool {
    let Some(rest) = path.split_once("fondue/specs/").map(|(_, rest)| rest) else { return false };
    let rest = rest.strip_prefix("archive/").unwrap_or(rest);
    let in_spec = rest.split_once('/').map_or("", |(_, file)| file);
    in_spec == "pre-plan/00-brief.md" || !(in_spec.starts_with("pre-plan/") || in_spec.starts_with("plan/"))
}

/// An ADR in one of the default ADR folders: the ADR tools (adr-tools,
/// MADR, log4brains, npm `adr`) write and read a record's `Status:` and
/// `Superseded by:` lines and its dated status log line by line, so one of
/// those lines wrapped, or two joined, is not their format.
fn adr_record(path: &str) -> bool {
    const FOLDERS: [&str; 5] =
        ["dark-factory/docs/decisions/", "docs/decisions/", "docs/adr/", "doc/adr/", "docs/architecture/decisions/"];
    FOLDERS.iter().any(|folder| path.starts_with(folder) || path.contains(&format!("/{folder}")))
}

/// A spec's drafts and its plan: the protocol has the plan made with `cp`
/// from the approved draft and checked with `diff` (`spec/plan-copy`), so
/// either respelled alone is, for that rule, another document.
fn byte_copy(path: &str) -> bool {
    let Some(rest) = path.split_once("fondue/specs/").map(|(_, rest)| rest) else { return false };
    let rest = rest.strip_prefix("archive/").unwrap_or(rest);
    let in_spec = rest.split_once('/').map_or("", |(_, file)| file);
    in_spec == "plan/plan.md" || (in_spec.starts_with("pre-plan/") && in_spec != "pre-plan/00-brief.md")
}

/// The documents of a case a kind perturbs: Markdown files and the PR body;
/// for YAML kinds also YAML files.
fn documents(changes: &ChangeSet, kind: &Kind) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = changes
        .head
        .iter()
        .filter(|(path, _)| path.ends_with(".md") || (kind.yaml && (path.ends_with(".yml") || path.ends_with(".yaml"))))
        .filter(|(path, _)| !(kind.across_lines && (line_grammar(path) || adr_record(path))) && !byte_copy(path))
        .filter_map(|(path, content)| Some((path.clone(), content.text()?.to_string())))
        .collect();
    if let Some(body) = changes.pr.body.as_ref().filter(|_| !kind.yaml) {
        out.push((PR_BODY.to_string(), body.clone()));
    }
    out
}

/// Whether the oracles call `variant` the same document as `original`.
fn equivalent(path: &str, original: &Doc, variant: &Doc) -> bool {
    let (before, after) = (original.yaml_texts(), variant.yaml_texts());
    let same_yaml = before.len() == after.len()
        && before
            .iter()
            .zip(&after)
            .all(|(b, a)| b == a || oracle::yaml(b).is_some_and(|b| oracle::yaml(a) == Some(b)));
    let markdown = path.ends_with(".md") || path == PR_BODY;
    same_yaml && (!markdown || oracle::html(&original.markdown()) == oracle::html(&variant.markdown()))
}

#[derive(Default)]
struct Tally {
    tried: usize,
    kept: usize,
}

#[test]
fn documents_the_standards_call_the_same_get_the_same_findings() {
    let started = std::time::Instant::now();
    let cases = cases();
    let originals: RefCell<HashMap<usize, Vec<Found>>> = RefCell::default();
    let tallies: RefCell<BTreeMap<&str, Tally>> = RefCell::default();
    let variants = std::env::var("EQUIVALENCE_VARIANTS").ok().and_then(|n| n.parse().ok()).unwrap_or(VARIANTS);
    let config = Config { cases: variants, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[54; 32]));
    let draw = (0..cases.len(), 0..KINDS.len(), any::<u32>(), 1..4usize, prop::collection::vec(any::<u32>(), 0..24));
    let result = runner.run(&draw, |(case, kind_at, file, times, values)| {
        let (name, changes) = &cases[case];
        let kind = &KINDS[kind_at];
        let documents = documents(changes, kind);
        let Some((path, text)) = documents.get(file as usize % documents.len().max(1)) else { return Ok(()) };
        let original = Doc::of(path, text);
        let mut variant = original.clone();
        let mut choices = Choices { values, at: 0 };
        let applied = (0..times).filter(|_| (kind.apply)(&mut variant, &mut choices).is_some()).count();
        let new = variant.text();
        // A PR body comes as a string: GitHub gives it `\n` or `\r\n` line ends.
        if applied == 0 || new == *text || (path == PR_BODY && variant.nl == "\r") {
            return Ok(());
        }
        tallies.borrow_mut().entry(kind.name).or_default().tried += 1;
        if !equivalent(path, &original, &variant) {
            return Ok(());
        }
        tallies.borrow_mut().entry(kind.name).or_default().kept += 1;
        let mut perturbed = changes.clone();
        if path == PR_BODY {
            perturbed.pr.body = Some(new.clone());
        } else {
            // Read as every source reads bytes; a base that held the same
            // text held it in the same form.
            let content = FileContent::from_bytes(new.as_bytes(), u64::MAX);
            if perturbed.base.get(path).and_then(FileContent::text) == Some(text.as_str()) {
                perturbed.base.insert(path.clone(), content.clone());
            }
            perturbed.head.insert(path.clone(), content);
        }
        let before = originals.borrow_mut().entry(case).or_insert_with(|| findings(changes)).clone();
        let map: LineMap = variant.line_map(original.lines.len());
        let expected: Vec<(&Found, (u32, u32))> =
            before.iter().map(|f| (f, if f.1 == *path { map.get(f.2) } else { (f.2, f.2) })).collect();
        let after = findings(&perturbed);
        if same(&expected, &after) {
            return Ok(());
        }
        let expected: Vec<String> = expected
            .iter()
            .map(|((rule, path, _, severity), (lo, hi))| format!("{rule} {path}:{lo}-{hi} {severity:?}"))
            .collect();
        let diff =
            similar::TextDiff::from_lines(text.as_str(), new.as_str()).unified_diff().context_radius(1).to_string();
        Err(TestCaseError::fail(format!(
            "{name}: `{}` made {path} a variant the oracle calls the same document, with other findings:\n  \
             expected {expected:?}\n  found    {after:?}\n{diff}",
            kind.name
        )))
    });
    let tallies = tallies.into_inner();
    let table: String =
        tallies.iter().map(|(kind, t)| format!("  {kind}: {} tried, {} kept\n", t.tried, t.kept)).collect();
    println!("{variants} draws in {:.1?}; per kind of perturbation:\n{table}", started.elapsed());
    if let Err(error) = result {
        panic!("{error}");
    }
    let thin: Vec<&str> =
        KINDS.iter().map(|k| k.name).filter(|k| tallies.get(k).is_none_or(|t| t.kept < KEPT_AT_LEAST)).collect();
    assert!(thin.is_empty(), "kept fewer than {KEPT_AT_LEAST} times: {thin:?}\n{table}");
}

/// The App reads only the document families a change needs
/// (`gatehouse::reads::Needs`). Every case, alone and with the demo
/// repository's documents laid beside it untouched (so each family's rules
/// have other families' documents to reach for), must be planned the same
/// (checks, summaries, annotations, review, dependency entry) with the
/// documents of the families it does not need left out.
#[test]
fn reading_only_the_needed_families_plans_the_same() {
    use gatehouse::config::CONFIG_PATH;
    use gatehouse::plan::{PullRequestRead, pull_request};
    use gatehouse::reads::Needs;
    use gatehouse::source::Relevance;

    let plan = |changes: &ChangeSet| {
        let read = PullRequestRead {
            number: 1,
            base_sha: "b".repeat(40),
            head: "h".repeat(40),
            draft: false,
            changes: changes.clone(),
            files: Vec::new(),
            gate: None,
            review: Default::default(),
            dependencies: Vec::new(),
            previous: None,
            required: gatehouse::plan::RequiredChecks::Read(Default::default()),
        };
        format!("{:#?}", pull_request(&read))
    };
    let demo = gatehouse::source::fs::changeset(&root().join("demo-repo"), None, None, &[]).unwrap().head;
    let (mut compared, mut narrowed, mut failures) = (0, 0, Vec::new());
    for (name, changes) in cases() {
        let mut beside = changes.clone();
        for (path, content) in demo.iter() {
            if path != CONFIG_PATH && !beside.head.contains_key(path) && !beside.base.contains_key(path) {
                beside.head.insert(path.clone(), content.clone());
                beside.base.insert(path.clone(), content.clone());
            }
        }
        for (label, full) in [("alone", changes), ("beside the demo's documents", beside)] {
            let mut touched: Vec<&str> = full.head.keys().chain(full.base.keys()).map(String::as_str).collect();
            touched.retain(|p| full.head.get(p) != full.base.get(p));
            touched.extend(full.pr.files.iter().flatten().map(|f| f.path.as_str()));
            let needs = Needs::of(&full.config, touched, full.pr.body.as_deref().unwrap_or(""));
            let (every, needed) = (Relevance::new(&full.config), Relevance::of(&full.config, needs));
            let mut scoped = full.clone();
            let left_out: Vec<String> = full
                .head
                .keys()
                .chain(full.base.keys())
                .filter(|p| every.wants(p) && !needed.wants(p))
                .cloned()
                .collect();
            for path in &left_out {
                scoped.head.remove(path);
                scoped.base.remove(path);
            }
            compared += 1;
            narrowed += usize::from(!left_out.is_empty());
            if plan(&full) != plan(&scoped) {
                let diff = similar::TextDiff::from_lines(&plan(&full), &plan(&scoped)).unified_diff().to_string();
                failures.push(format!("{name} ({label}), without {left_out:?} ({needs:?}):\n{diff}"));
            }
        }
    }
    println!("{compared} cases planned both ways, {narrowed} of them with documents left out");
    assert!(narrowed >= 200, "only {narrowed} cases left documents out");
    assert!(failures.is_empty(), "{} of {compared} cases differ:\n{}", failures.len(), failures.join("\n"));
}
