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

/// The paths each family was searched at, the documents under them the
/// change did not touch (`all`: every document was checked, so none), and
/// the look-alike files outside them.
pub(super) fn explain(changes: &ChangeSet, all: bool) -> String {
    let config = &changes.config;
    let searched = [
        (Check::Briefs.noun(), config.briefs.paths.join(", ")),
        (Check::Voting.noun(), config.voting.paths.join(", ")),
        (Check::Specs.noun(), config.specs.paths.join(", ")),
        (Check::Decisions.noun(), config.decisions.paths.join(", ")),
    ];
    let mut out = String::from(
        "gatehouse looked at these paths (`.github/gatehouse.yml`'s, or its defaults where it sets none):\n",
    );
    for (noun, paths) in searched {
        out.push_str(&format!("  {noun:<20} {paths}\n"));
    }
    let Survey { governed, alikes } = survey(changes);
    if !all && !governed.is_empty() {
        // The nouns are plural ("agent briefs"): one is "1 agent brief".
        let held: Vec<String> = governed
            .iter()
            .map(|(noun, n)| if *n == 1 { format!("1 {}", noun.trim_end_matches('s')) } else { format!("{n} {noun}") })
            .collect();
        let held = match held.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => held.join(""),
        };
        out.push_str(&format!(
            "Under those paths the repository holds {held}, all as they are on the base. `gatehouse check --all` \
             checks every document.\n"
        ));
    }
    if alikes.is_empty() && (all || governed.is_empty()) {
        out.push_str("No file of the repository looks like a governed document (`SWARM-*.md`, `<doc>@v<n>.md`, `current-state.txt`, `decisions/*.json`).\n");
    } else if !alikes.is_empty() {
        out.push_str("These files look like governed documents but lie outside those paths:\n");
        for alike in &alikes {
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
        out.push_str("`gatehouse init` writes a config with the paths it finds.\n");
    }
    out
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
    /// documents: (the family's noun, how many), in the families' order.
    governed: Vec<(&'static str, usize)>,
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
    let mut governed: Vec<(&'static str, usize)> = Vec::new();
    let mut out: Vec<LookAlike> = Vec::new();
    for file in tree.files() {
        let Some((family, path)) = classifier.classify(file) else { continue };
        let (noun, key, covered) = match family {
            Family::Briefs => (Check::Briefs.noun(), "briefs", briefs.is_match(file)),
            Family::Voting => (Check::Voting.noun(), "voting", voting.is_match(file)),
            Family::Specs => (Check::Specs.noun(), "specs", under(&config.specs.paths, file)),
            Family::Decisions => (Check::Decisions.noun(), "decisions", under(&config.decisions.paths, file)),
            Family::Adrs => continue,
        };
        if covered {
            match governed.iter_mut().find(|(n, _)| *n == noun) {
                Some((_, count)) => *count += 1,
                None => governed.push((noun, 1)),
            }
            continue;
        }
        match out.iter_mut().find(|a| a.key == key && a.path == path) {
            Some(alike) => alike.files.push(file.clone()),
            None => out.push(LookAlike { noun, key, path, files: vec![file.clone()] }),
        }
    }
    let order = [Check::Briefs, Check::Voting, Check::Specs, Check::Decisions].map(|check| check.noun());
    governed.sort_by_key(|(noun, _)| order.iter().position(|n| n == noun));
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
        let text = explain(&changes(&["briefs/SWARM-AR-pg.md", "briefs/notes.md", "src/main.rs"]), false);
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
            false,
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
    fn a_repository_with_no_look_alike_says_so() {
        let text = explain(&changes(&["README.md"]), false);
        assert!(text.contains("No file of the repository looks like a governed document"), "{text}");
    }

    #[test]
    fn a_branch_that_changes_no_document_is_told_what_the_paths_hold() {
        let files = ["dark-factory/briefs/SWARM-AA-a.md", "dark-factory/briefs/SWARM-AB-b.md", "README.md"];
        let text = explain(&changes(&files), false);
        assert!(
            text.contains("Under those paths the repository holds 2 agent briefs, all as they are on the base."),
            "{text}"
        );
        assert!(!text.contains("No file of the repository looks like"), "{text}");
        let all = explain(&changes(&files), true);
        assert!(!all.contains("as they are on the base"), "with --all every document was checked: {all}");
        let one =
            explain(&changes(&["dark-factory/briefs/SWARM-AA-a.md", "fondue/specs/search/current-state.txt"]), false);
        assert!(one.contains("holds 1 agent brief and 1 spec folder, all as"), "{one}");
    }
}
