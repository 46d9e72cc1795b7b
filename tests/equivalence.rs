//! Equivalent documents get equal answers. Every case of the rule fixtures
//! (`crates/gatehouse-core/fixtures/rules/<id>/{pass,fail}/`), the demo and starter repositories,
//! the ADR conventions' folders and the real-world corpus
//! (`fixtures/real-world/<family>/<case>/`) is rewritten in ways its format's
//! standard says mean the same document (each rewrite names its clause), and
//! evaluated again: the errors and warnings must be the same findings (rule,
//! file, line mapped through the rewrite) as the original's. A clean case so gets no
//! new finding, and a faulty one keeps its own. The rewrites are in
//! `rewrites/`; the test prints how many (case × rewrite) pairs changed a
//! document and were compared.

mod local_repo;
#[path = "equivalence/rewrites.rs"]
mod rewrites;

use std::path::{Path, PathBuf};

use gatehouse::model::{ChangeSet, FileContent, Severity};
use local_repo::copy_tree;
use rewrites::{LineMap, REWRITES};

/// A finding as compared: rule, path, line, severity.
type Found = (String, String, u32, Severity);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every case: its name and the change it is.
fn cases() -> Vec<(String, ChangeSet)> {
    let mut out = Vec::new();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gatehouse-core/fixtures/rules");
    for family in sorted_dirs(&rules) {
        let shared = family.join("_shared");
        for rule in sorted_dirs(&family).into_iter().filter(|d| !d.ends_with("_shared")) {
            for case in ["pass", "fail"] {
                let dir = rule.join(case);
                if dir.join("head").is_dir() {
                    out.push((dir.display().to_string(), rule_case(&dir, &shared)));
                }
            }
        }
    }
    // Whole repositories, every document new: the demo, the starter and
    // each ADR convention's folder.
    let mut repos = vec![root().join("demo-repo"), root().join("starter-repo")];
    repos.extend(sorted_dirs(&root().join("adr-conventions")));
    for repo in repos {
        let changes = gatehouse::source::fs::changeset(&repo, None, None, &[]).unwrap();
        out.push((repo.display().to_string(), changes));
    }
    let corpus = root().join("real-world");
    for family in sorted_dirs(&corpus) {
        for case in sorted_dirs(&family).into_iter().filter(|d| !d.ends_with("_shared")) {
            let tmp = tempfile::tempdir().unwrap();
            copy_tree(&family.join("_shared"), tmp.path());
            copy_tree(&case, tmp.path());
            let changes = gatehouse::source::fs::changeset(tmp.path(), None, None, &[]).unwrap();
            out.push((case.display().to_string(), changes));
        }
    }
    out
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// A rule fixture's case as `tests/rule_fixtures.rs` lays it out: the
/// family's `_shared/` under `head/` (and `base/`), the checkout's name and
/// other repositories, the PR body.
fn rule_case(case: &Path, shared: &Path) -> ChangeSet {
    let tmp = tempfile::tempdir().unwrap();
    let head = tmp.path().join("head");
    copy_tree(shared, &head);
    copy_tree(&case.join("head"), &head);
    let base = case.join("base").exists().then(|| {
        let base = tmp.path().join("base");
        copy_tree(shared, &base);
        copy_tree(&case.join("base"), &base);
        base
    });
    let repo_name = std::fs::read_to_string(case.join("repo-name")).ok().map(|s| s.trim().to_string());
    let mut others = Vec::new();
    for owner in sorted_dirs(&case.join("repos")) {
        for name in sorted_dirs(&owner) {
            let (o, n) = (owner.file_name().unwrap(), name.file_name().unwrap());
            others.push((format!("{}/{}", o.to_string_lossy(), n.to_string_lossy()), name));
        }
    }
    let mut changes = gatehouse::source::fs::changeset(&head, base.as_deref(), repo_name.as_deref(), &others).unwrap();
    changes.pr.body = std::fs::read_to_string(case.join("pr-body.md")).ok();
    changes
}

/// The errors and warnings of `changes`, sorted.
fn findings(changes: &ChangeSet) -> Vec<Found> {
    let report = gatehouse::rules::evaluate(changes);
    let mut found: Vec<Found> = report
        .findings()
        .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
        .map(|f| (f.rule.to_string(), f.path.clone(), f.span.line, f.severity))
        .collect();
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

#[test]
fn equivalent_documents_get_equal_answers() {
    let started = std::time::Instant::now();
    let mut pairs = 0;
    let mut by_rewrite: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for (name, changes) in cases() {
        let before = findings(&changes);
        for rewrite in REWRITES {
            let mut rewritten = changes.clone();
            let mut maps: Vec<(String, LineMap)> = Vec::new();
            let mut changed = false;
            for side in [&mut rewritten.head, &mut rewritten.base] {
                let paths: Vec<String> = side.keys().filter(|p| (rewrite.applies)(p)).cloned().collect();
                for path in paths {
                    let Some(text) = side.get(&path).and_then(FileContent::text) else { continue };
                    let Some((new, map)) = (rewrite.apply)(&path, text) else { continue };
                    if new == text {
                        continue;
                    }
                    // Read as every source reads bytes (`FileContent::from_bytes`).
                    side.insert(path.clone(), FileContent::from_bytes(new.as_bytes(), u64::MAX));
                    if !maps.iter().any(|(p, _)| *p == path) {
                        maps.push((path, map));
                    }
                    changed = true;
                }
            }
            if !changed {
                continue;
            }
            pairs += 1;
            *by_rewrite.entry(rewrite.name).or_default() += 1;
            let expected: Vec<(&Found, (u32, u32))> = before
                .iter()
                .map(|found| {
                    let lines = maps
                        .iter()
                        .find(|(p, _)| *p == found.1)
                        .map_or((found.2, found.2), |(_, map)| map.get(found.2));
                    (found, lines)
                })
                .collect();
            let after = findings(&rewritten);
            if !same(&expected, &after) {
                // `EQUIVALENCE_SHOW=<rewrite>` prints that rewrite's documents
                // where the answers differ.
                if std::env::var("EQUIVALENCE_SHOW").is_ok_and(|show| show == rewrite.name) {
                    for (path, _) in &maps {
                        let text = rewritten.head.get(path).and_then(FileContent::text).unwrap_or_default();
                        println!("==== {name}: {path}\n{text}");
                    }
                }
                let expected: Vec<String> = expected
                    .iter()
                    .map(|((rule, path, _, severity), (lo, hi))| format!("{rule} {path}:{lo}-{hi} {severity:?}"))
                    .collect();
                failures.push(format!(
                    "{name} rewritten by `{}`:\n  expected {expected:?}\n  found    {after:?}",
                    rewrite.name
                ));
            }
        }
    }
    println!("{pairs} (case × rewrite) pairs compared in {:.1?}: {by_rewrite:?}", started.elapsed());
    assert!(pairs >= 1_000, "only {pairs} pairs changed a document");
    assert!(failures.is_empty(), "{} of {pairs} pairs differ:\n{}", failures.len(), failures.join("\n"));
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
