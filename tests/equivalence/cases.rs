//! The cases every equivalence test reads: each case of the rule fixtures
//! (`crates/gatehouse-core/fixtures/rules/<id>/{pass,fail}/`), the demo and
//! starter repositories, the ADR conventions' folders and the real-world
//! corpus (`fixtures/real-world/<family>/<case>/`).

use std::path::{Path, PathBuf};

use gatehouse::model::ChangeSet;

use super::local_repo::copy_tree;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every case: its name and the change it is.
pub fn cases() -> Vec<(String, ChangeSet)> {
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
