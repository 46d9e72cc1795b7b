//! What gatehouse searched when it found nothing to check: each family's
//! paths, and the files that look like a family's documents but lie outside
//! them (a `SWARM-*.md` under `briefs/` when the config names
//! `dark-factory/briefs/*.md`), so an empty report is not mistaken for a
//! clean one.

use super::init::{Classifier, Family};
use crate::model::{ChangeSet, Check, LOCAL_REPO, Report};

/// At most this many look-alike files are named per family.
const NAMED_PER_FAMILY: usize = 3;

/// Whether no family found a document (or a pull request body cite) to check.
pub(super) fn found_nothing(report: &Report) -> bool {
    report.checks.iter().filter(|c| c.check != Check::Config).all(|c| c.evaluated && c.documents == 0 && c.cites == 0)
}

/// The paths each family was searched at, and the look-alike files outside them.
pub(super) fn explain(changes: &ChangeSet) -> String {
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
    let alikes = look_alikes(changes);
    if alikes.is_empty() {
        out.push_str("No file of the repository looks like a governed document (`SWARM-*.md`, `<doc>@v<n>.md`, `current-state.txt`, `decisions/*.json`).\n");
    } else {
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

/// The repository's files that look like a family's documents and that the
/// config's paths for that family do not cover, grouped by the path that would.
fn look_alikes(changes: &ChangeSet) -> Vec<LookAlike> {
    let repo = changes.repo.as_deref().unwrap_or(LOCAL_REPO);
    let Some(tree) = changes.repos.tree(repo, None) else { return Vec::new() };
    let config = &changes.config;
    let briefs = crate::config::globset(&config.briefs.paths);
    let voting = crate::config::globset(&config.voting.paths);
    let under = |folders: &[String], path: &str| folders.iter().any(|f| path.starts_with(&format!("{f}/")));
    let classifier = Classifier::new();
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
            continue;
        }
        match out.iter_mut().find(|a| a.key == key && a.path == path) {
            Some(alike) => alike.files.push(file.clone()),
            None => out.push(LookAlike { noun, key, path, files: vec![file.clone()] }),
        }
    }
    out
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
        let text = explain(&changes(&["briefs/SWARM-AR-pg.md", "briefs/notes.md", "src/main.rs"]));
        assert!(text.contains("  agent briefs         dark-factory/briefs/*.md\n"), "{text}");
        assert!(
            text.contains("  agent briefs         briefs/SWARM-AR-pg.md: add `briefs/*.md` to `briefs.paths`\n"),
            "{text}"
        );
        assert!(!text.contains("notes.md"), "{text}");
    }

    #[test]
    fn documents_under_the_configured_paths_are_no_look_alikes_and_many_are_counted() {
        let text = explain(&changes(&[
            "dark-factory/briefs/SWARM-AA-a.md",
            "specs/search/current-state.txt",
            "ops/decisions/a.json",
            "ops/decisions/b.json",
            "ops/decisions/c.json",
            "ops/decisions/d.json",
        ]));
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
        let text = explain(&changes(&["README.md"]));
        assert!(text.contains("No file of the repository looks like a governed document"), "{text}");
    }
}
