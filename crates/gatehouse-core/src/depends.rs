//! What an evaluation reads from documents the change does not touch: the
//! config (always), the ADRs its changed briefs cite (ADR-099: the merged ADR
//! is the brief's upstream contract), the merged briefs and guideline
//! versions its body cites (`Brief:`, `Guideline:`), and the voting docs it
//! appends to (their published ledger is on the base). When one of these
//! changes on the base branch, the evaluation may come out differently: the
//! App keeps this list per pull request and evaluates it again.

use std::collections::BTreeMap;

use crate::config::{CONFIG_PATH, PathFilter, globset};
use crate::docs::adr::{Adr, parse_id};
use crate::docs::brief::Brief;
use crate::model::ChangeSet;
use crate::rules::cite::CiteView;

/// One document the evaluation depends on, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub path: String,
    /// E.g. "cited by `dark-factory/briefs/SWARM-AR-x.md`".
    pub why: String,
    /// The change touches it (a voting doc it appends to): its base side is
    /// what the change is checked against.
    pub touched: bool,
}

/// The documents `changes` depends on, sorted by path (each once, its
/// reasons joined).
pub fn dependencies(changes: &ChangeSet) -> Vec<Dependency> {
    let mut found: BTreeMap<String, (Vec<String>, bool)> = BTreeMap::new();
    let mut add = |path: &str, why: String, touched: bool| {
        let entry = found.entry(path.to_string()).or_default();
        if !entry.0.contains(&why) {
            entry.0.push(why);
        }
        entry.1 |= touched;
    };
    add(CONFIG_PATH, "the configuration every evaluation reads".into(), changes.touches(CONFIG_PATH));

    let config = &changes.config;
    let briefs = PathFilter::globs(&config.briefs.paths);
    let mut cited: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for (path, content) in changes.changed_in(&briefs) {
        let Some(text) = content.text() else { continue };
        for (id, _) in Brief::parse(path, text).strings("adrs_referenced") {
            if let Some(number) = parse_id(id) {
                cited.entry(number).or_default().push(path);
            }
        }
    }
    if !cited.is_empty() {
        let adrs = PathFilter::globs(&config.adrs.paths);
        for (path, content) in adrs.select(&changes.head) {
            let Some(adr) = content.text().and_then(|t| Adr::parse(path, t)) else { continue };
            for brief in cited.get(&adr.number).into_iter().flatten() {
                add(path, format!("cited by `{brief}`"), changes.touches(path));
            }
        }
    }

    let cites = CiteView::new(changes);
    for brief in cites.resolved.iter().flatten() {
        add(brief.path, "cited by the pull request's `Brief:` line".into(), changes.touches(brief.path));
    }
    let voting = globset(&config.voting.paths);
    for cite in &cites.guidelines {
        let Some((name, version)) = cite.value.rsplit_once("@v") else { continue };
        let names = [format!("{name}@v{version}.md"), format!("{name}.md@v{version}")];
        for path in changes.base.keys().filter(|p| voting.is_match(p)) {
            if names.iter().any(|n| path.rsplit('/').next() == Some(n.as_str())) {
                add(path, "cited by the pull request's `Guideline:` line".into(), changes.touches(path));
            }
        }
    }
    let voting = PathFilter::globs(&config.voting.paths);
    let appended: Vec<&str> =
        changes.changed_in(&voting).map(|(p, _)| p).filter(|p| changes.base.contains_key(p)).collect();
    for path in appended {
        add(path, "changed by this pull request: its published ledger is on the base".into(), true);
    }
    found.into_iter().map(|(path, (why, touched))| Dependency { path, why: why.join("; "), touched }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileContent;

    fn text(s: &str) -> FileContent {
        FileContent::Text(s.to_string().into())
    }

    #[test]
    fn the_config_cited_adrs_cited_briefs_and_appended_ledgers() {
        let mut changes = ChangeSet::default();
        let adr = "docs/adr/ADR-095-backups.md";
        let other_adr = "docs/adr/ADR-090-scaffold.md";
        let brief = "dark-factory/briefs/SWARM-AR-pg-backup.md";
        let merged = "dark-factory/briefs/SWARM-AQ-tools.md";
        let ledger = "dark-factory/guidelines/backup-scripts@v1.md";
        for files in [&mut changes.base, &mut changes.head] {
            files.insert(adr.into(), text("# ADR-095: Backups\n\nStatus: Accepted\n"));
            files.insert(other_adr.into(), text("# ADR-090: Scaffold\n\nStatus: Accepted\n"));
            files.insert(merged.into(), text("---\nagent: SWARM-AQ\n---\n"));
            files.insert(ledger.into(), text("# Backup scripts\n"));
        }
        changes.head.insert(brief.into(), text("---\nagent: SWARM-AR\nadrs_referenced: [ADR-95]\n---\n"));
        changes.head.insert(ledger.into(), text("# Backup scripts\n\nappended\n"));
        changes.pr.body = Some(format!("Brief: {merged}\n"));
        let found: Vec<(String, String, bool)> =
            dependencies(&changes).into_iter().map(|d| (d.path, d.why, d.touched)).collect();
        assert_eq!(
            found,
            [
                (CONFIG_PATH.to_string(), "the configuration every evaluation reads".to_string(), false),
                (merged.to_string(), "cited by the pull request's `Brief:` line".to_string(), false),
                (
                    ledger.to_string(),
                    "changed by this pull request: its published ledger is on the base".to_string(),
                    true
                ),
                (adr.to_string(), format!("cited by `{brief}`"), false),
            ]
        );
    }
}
