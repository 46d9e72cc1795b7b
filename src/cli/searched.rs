//! What gatehouse searched when it found nothing to check: each family's
//! paths, the documents under them that the change leaves as they were on
//! the base, and the files that look like a family's documents but lie
//! outside them (a `SWARM-*.md` under `briefs/` when the config names
//! `dark-factory/briefs/*.md`), so an empty report is not mistaken for a
//! clean one, nor a branch that changes no document for a wrong set-up.

use super::init::{Classifier, Family};
use crate::model::{ChangeSet, Check, LOCAL_REPO, Report};

/// At most this many look-alike files are named per family.
const NAMED_PER_FAMILY: usize = 3;

/// Whether no family found a document (or a pull request body cite) to check.
pub(super) fn found_nothing(report: &Report) -> bool {
    report.checks.iter().filter(|c| c.check != Check::Config).all(|c| c.evaluated && c.documents == 0 && c.cites == 0)
}

/// Look-alike folders named at most: a tree of fixtures has hundreds, and
/// the first few say what is wrong as well as all of them.
const NAMED_FOLDERS: usize = 5;

/// What gatehouse searched, after the report found nothing to check.
/// `base`: the name of what a branch's change was compared with (`main`);
/// `None`: every document was checked (`--all`), so none was left out.
pub(super) fn explain(changes: &ChangeSet, base: Option<&str>) -> String {
    let config = &changes.config;
    let paths = |check: Check| {
        let paths = match check {
            Check::Briefs => &config.briefs.paths,
            Check::Voting => &config.voting.paths,
            Check::Specs => &config.specs.paths,
            _ => &config.decisions.paths,
        };
        paths.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
    };
    let Survey { governed, alikes } = survey(changes);
    let mut out = String::new();
    match base {
        Some(base) if !governed.is_empty() => {
            // The nouns are plural ("agent briefs"): one is "1 agent brief".
            let held: Vec<String> = governed
                .iter()
                .map(|(check, n)| {
                    let noun = check.noun();
                    let counted =
                        if *n == 1 { format!("1 {}", noun.trim_end_matches('s')) } else { format!("{n} {noun}") };
                    format!("{counted} under {}", paths(*check))
                })
                .collect();
            let verb = if governed.len() == 1 && governed[0].1 == 1 { "is" } else { "are" };
            out.push_str(&format!(
                "No governed document changed on this branch: {} {verb} unchanged from `{base}`. `gatehouse check \
                 --all` checks every document.\n",
                and_list(&held)
            ));
        }
        _ => {
            let lead = if base.is_some() {
                "The change touches no governed document"
            } else {
                "No governed document was found"
            };
            out.push_str(&format!(
                "{lead}. gatehouse looked at these paths (`.github/gatehouse.yml`'s, or its defaults where it sets \
                 none):\n"
            ));
            for check in [Check::Briefs, Check::Voting, Check::Specs, Check::Decisions] {
                out.push_str(&format!("  {:<20} {}\n", check.noun(), paths(check).replace('`', "")));
            }
        }
    }
    if alikes.is_empty() && (base.is_none() || governed.is_empty()) {
        out.push_str("No file of the repository looks like a governed document (`SWARM-*.md`, `<doc>@v<n>.md`, `current-state.txt`, `decisions/*.json`).\n");
    } else if !alikes.is_empty() {
        out.push_str("These files look like governed documents but lie outside those paths:\n");
        for alike in alikes.iter().take(NAMED_FOLDERS) {
            let shown: Vec<&str> = alike.files.iter().take(NAMED_PER_FAMILY).map(String::as_str).collect();
            let more = alike.files.len().saturating_sub(NAMED_PER_FAMILY);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            out.push_str(&format!(
                "  {:<20} {}{more}: add `{}` to `{}.paths`\n",
                alike.noun,
                shown.join(", "),
                alike.path,
                alike.key
            ));
        }
        let unnamed = &alikes[alikes.len().min(NAMED_FOLDERS)..];
        if !unnamed.is_empty() {
            let files: usize = unnamed.iter().map(|a| a.files.len()).sum();
            out.push_str(&format!(
                "  and {files} more in {} other folders (a tree of test fixtures looks like this: check the folder \
                 that holds `.github/gatehouse.yml`)\n",
                unnamed.len()
            ));
        }
        out.push_str("`gatehouse init` writes a config with the paths it finds.\n");
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// Files of one family found under one path the config does not name.
#[derive(Debug, PartialEq, Eq)]
struct LookAlike {
    noun: &'static str,
    key: &'static str,
    path: String,
    files: Vec<String>,
}

/// What the repository holds of each family.
#[derive(Debug, Default)]
struct Survey {
    /// Files under a family's configured paths that look like its
    /// documents: (the family's check, how many), in the families' order.
    governed: Vec<(Check, usize)>,
    /// Files that look like a family's documents outside its paths,
    /// grouped by the path that would cover them.
    alikes: Vec<LookAlike>,
}

/// Sorts the repository's files that look like a family's documents into
/// those the config's paths for that family cover and those they do not.
fn survey(changes: &ChangeSet) -> Survey {
    let repo = changes.repo.as_deref().unwrap_or(LOCAL_REPO);
    let Some(tree) = changes.repos.tree(repo, None) else { return Survey::default() };
    let config = &changes.config;
    let briefs = crate::config::globset(&config.briefs.paths);
    let voting = crate::config::globset(&config.voting.paths);
    let under = |folders: &[String], path: &str| folders.iter().any(|f| path.starts_with(&format!("{f}/")));
    let classifier = Classifier::new();
    let mut governed: Vec<(Check, usize)> = Vec::new();
    let mut out: Vec<LookAlike> = Vec::new();
    for file in tree.files() {
        let Some((family, path)) = classifier.classify(file) else { continue };
        let (check, key, covered) = match family {
            Family::Briefs => (Check::Briefs, "briefs", briefs.is_match(file)),
            Family::Voting => (Check::Voting, "voting", voting.is_match(file)),
            Family::Specs => (Check::Specs, "specs", under(&config.specs.paths, file)),
            Family::Decisions => (Check::Decisions, "decisions", under(&config.decisions.paths, file)),
            Family::Adrs => continue,
        };
        let noun = check.noun();
        if covered {
            match governed.iter_mut().find(|(c, _)| *c == check) {
                Some((_, count)) => *count += 1,
                None => governed.push((check, 1)),
            }
            continue;
        }
        match out.iter_mut().find(|a| a.key == key && a.path == path) {
            Some(alike) => alike.files.push(file.clone()),
            None => out.push(LookAlike { noun, key, path, files: vec![file.clone()] }),
        }
    }
    let order = [Check::Briefs, Check::Voting, Check::Specs, Check::Decisions];
    governed.sort_by_key(|(check, _)| order.iter().position(|c| c == check));
    Survey { governed, alikes: out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RepoTree;
    use std::sync::Arc;

    fn changes(files: &[&str]) -> ChangeSet {
        let mut changes = ChangeSet::default();
        let tree = RepoTree::new(files.iter().map(|f| f.to_string()).collect());
        changes.repos.insert(LOCAL_REPO, None, Arc::new(tree));
        changes
    }

    #[test]
    fn a_brief_outside_the_configured_paths_is_named_with_the_path_that_would_cover_it() {
        let text = explain(&changes(&["briefs/SWARM-AR-pg.md", "briefs/notes.md", "src/main.rs"]), Some("main"));
        assert!(text.starts_with("The change touches no governed document. gatehouse looked at"), "{text}");
        assert!(text.contains("  agent briefs         dark-factory/briefs/*.md\n"), "{text}");
        assert!(
            text.contains("  agent briefs         briefs/SWARM-AR-pg.md: add `briefs/*.md` to `briefs.paths`\n"),
            "{text}"
        );
        assert!(!text.contains("notes.md"), "{text}");
    }

    #[test]
    fn documents_under_the_configured_paths_are_no_look_alikes_and_many_are_counted() {
        let text = explain(
            &changes(&[
                "dark-factory/briefs/SWARM-AA-a.md",
                "specs/search/current-state.txt",
                "ops/decisions/a.json",
                "ops/decisions/b.json",
                "ops/decisions/c.json",
                "ops/decisions/d.json",
            ]),
            Some("main"),
        );
        assert!(!text.contains("SWARM-AA"), "{text}");
        assert!(text.contains("specs/search/current-state.txt: add `specs` to `specs.paths`"), "{text}");
        assert!(
            text.contains(
                "ops/decisions/a.json, ops/decisions/b.json, ops/decisions/c.json and 1 more: add `ops/decisions`"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_tree_of_fixtures_is_named_by_its_first_folders_and_counted() {
        let files: Vec<String> = (0..40).map(|i| format!("fixtures/case-{i:02}/briefs/SWARM-AA-a.md")).collect();
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        let text = explain(&changes(&files), Some("main"));
        assert_eq!(text.matches(": add `").count(), NAMED_FOLDERS, "{text}");
        assert!(text.contains("  and 35 more in 35 other folders"), "{text}");
        assert!(text.lines().count() <= 15, "a screen: {text}");
    }

    #[test]
    fn a_repository_with_no_look_alike_says_so() {
        let text = explain(&changes(&["README.md"]), Some("main"));
        assert!(text.contains("No file of the repository looks like a governed document"), "{text}");
    }

    #[test]
    fn a_branch_that_changes_no_document_is_told_what_the_paths_hold_unchanged_from_its_base() {
        let files = ["dark-factory/briefs/SWARM-AA-a.md", "dark-factory/briefs/SWARM-AB-b.md", "README.md"];
        let text = explain(&changes(&files), Some("main"));
        assert_eq!(
            text,
            "No governed document changed on this branch: 2 agent briefs under `dark-factory/briefs/*.md` are \
             unchanged from `main`. `gatehouse check --all` checks every document.\n"
        );
        let all = explain(&changes(&files), None);
        assert!(all.starts_with("No governed document was found."), "{all}");
        assert!(!all.contains("unchanged"), "with --all every document was checked: {all}");
        let two = ["dark-factory/briefs/SWARM-AA-a.md", "fondue/specs/search/current-state.txt"];
        let one = explain(&changes(&two), Some("origin/main"));
        assert!(
            one.contains(
                "1 agent brief under `dark-factory/briefs/*.md` and 1 spec folder under `fondue/specs` are unchanged \
                 from `origin/main`"
            ),
            "{one}"
        );
    }
}
