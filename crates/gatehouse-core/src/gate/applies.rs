//! When the review gate applies to a pull request: a
//! brief over ADR-099's threshold added or changed, a decision moving to
//! `enacted` at tier 2 (ADR 0007: tier 2 is "where a human sees them before
//! enactment"), or a path the policy names touched. Elsewhere the `gatehouse/review` check is neutral and says
//! why.

use crate::config::{CONFIG_PATH, OwnersFrom, ReviewConfig, globset};
use crate::docs::brief::Brief;
use crate::docs::decision::lifecycle::Status;
use crate::docs::decision::{Manifest, locate};
use crate::model::ChangeSet;
use crate::rules::brief::review_reasons;

/// Why the gate applies, or why it does not.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Applicability {
    pub applies: bool,
    /// One line per reason, e.g. "`dark-factory/briefs/SWARM-AR-x.md`: lines_estimate 400 > 100".
    pub reasons: Vec<String>,
    /// The files whose content made the gate apply, sorted: an approval
    /// given on an earlier head follows them (see [`super::Contents`]).
    pub documents: Vec<String>,
}

pub fn applicability(changes: &ChangeSet) -> Applicability {
    let config = &changes.config;
    let briefs = globset(&config.briefs.paths);
    let mut reasons = Vec::new();
    let mut documents: Vec<String> = Vec::new();
    let mut exempt = Vec::new();
    for (path, content) in changes.changed().filter(|(p, _)| briefs.is_match(p)) {
        let Some(text) = content.text() else {
            reasons.push(format!("`{path}` cannot be read, so its threshold is unknown"));
            documents.push(path.to_string());
            continue;
        };
        match review_reasons(&Brief::parse(path, text), config.briefs.review_threshold) {
            Some(r) if r.is_empty() => {
                exempt.push(path);
                continue;
            }
            Some(r) => reasons.push(format!("`{path}`: {}", r.join(" and "))),
            None => reasons
                .push(format!("`{path}` has no valid lines_estimate or repos_touched, so its threshold is unknown")),
        }
        documents.push(path.to_string());
    }
    for (path, content) in changes.changed() {
        if locate(path, &config.decisions.paths).is_none() {
            continue;
        }
        let Some(manifest) = content.text().map(|t| Manifest::parse(path, t)) else { continue };
        let enacted = manifest.status().is_some_and(|(s, _)| s == Status::Enacted);
        let tier_2 = manifest.get("tier").and_then(|t| t.as_i64()) == Some(2);
        let was_enacted = changes
            .base
            .get(path)
            .and_then(|c| c.text())
            .is_some_and(|t| Manifest::parse(path, t).status().is_some_and(|(s, _)| s == Status::Enacted));
        if enacted && tier_2 && !was_enacted {
            reasons.push(format!(
                "`{path}`: a tier-2 decision moves to enacted; a human sees it before enactment (ADR 0007)"
            ));
            documents.push(path.to_string());
        }
    }
    let named = globset(config.review.as_ref().map_or(&[][..], |r| &r.paths));
    let touched: Vec<&str> = super::groups::touched_paths(changes).into_iter().filter(|p| named.is_match(p)).collect();
    if let Some(first) = touched.first() {
        reasons.push(format!("`{first}` is on a path the review policy names"));
    }
    documents.extend(touched.iter().map(|p| p.to_string()));
    if let Some(policy) = &config.review {
        owned(changes, policy, &mut reasons, &mut documents);
    }
    documents.sort();
    documents.dedup();
    if reasons.is_empty() {
        let why = if exempt.is_empty() {
            "no brief over the review threshold and no path the review policy names is changed".to_string()
        } else {
            format!("brief under threshold: operator's call ({})", exempt.join(", "))
        };
        return Applicability { applies: false, reasons: vec![why], documents: Vec::new() };
    }
    Applicability { applies: true, reasons, documents }
}

/// The files CODEOWNERS (under `review.owners: codeowners`) or a roster
/// gives owners: the first of each kind is a reason, every one a document.
fn owned(changes: &ChangeSet, policy: &ReviewConfig, reasons: &mut Vec<String>, documents: &mut Vec<String>) {
    let paths = super::groups::touched_paths(changes);
    if let Some(file) = changes.codeowners.as_ref().filter(|_| policy.owners == OwnersFrom::Codeowners) {
        let codeowners = file.parse();
        let owned: Vec<(&str, u32)> = paths
            .iter()
            .filter_map(|p| Some((*p, codeowners.rule_for(p).filter(|r| !r.owners.is_empty())?.line)))
            .collect();
        if let Some((first, line)) = owned.first() {
            reasons.push(format!("`{first}` has code owners (`{}` line {line})", file.path));
        }
        documents.extend(owned.iter().map(|(p, _)| p.to_string()));
    }
    for roster in &policy.rosters {
        let set = globset(&roster.paths);
        let covered: Vec<&str> = paths.iter().copied().filter(|p| set.is_match(p)).collect();
        if let Some(first) = covered.first() {
            reasons.push(format!("`{first}` is on the paths of the roster at `{CONFIG_PATH}` line {}", roster.line));
        }
        documents.extend(covered.iter().map(|p| p.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileContent;

    fn brief(lines: u32, repos: &str) -> FileContent {
        FileContent::Text(
            format!("---\nagent: SWARM-AR\nrepos_touched: [{repos}]\nlines_estimate: {lines}\n---\n").into(),
        )
    }

    #[test]
    fn over_the_threshold_under_it_and_named_paths() {
        let path = "dark-factory/briefs/SWARM-AR-x.md";
        let mut changes = ChangeSet::default();
        changes.head.insert(path.into(), brief(80, "a/b"));
        let a = applicability(&changes);
        assert_eq!(
            a,
            Applicability {
                applies: false,
                reasons: vec![format!("brief under threshold: operator's call ({path})")],
                documents: vec![],
            }
        );

        changes.head.insert(path.into(), brief(80, "a/b, A/B, a/b"));
        assert!(!applicability(&changes).applies, "one repository, listed three times");
        changes.head.insert(path.into(), brief(80, "a/b, c/d"));
        assert_eq!(applicability(&changes).reasons, vec![format!("`{path}`: 2 repos touched > 1")]);
        changes.head.insert(path.into(), brief(101, "a/b"));
        assert!(applicability(&changes).applies);
        assert_eq!(applicability(&changes).documents, [path]);
        // More than one repository needs review whatever the LOC estimate says.
        for estimate in ["", "lines_estimate: many\n", "lines_estimate: -5\n"] {
            let text = format!("---\nagent: SWARM-AR\nrepos_touched: [a/b, c/d]\n{estimate}---\n");
            changes.head.insert(path.into(), FileContent::Text(text.into()));
            assert_eq!(applicability(&changes).reasons, vec![format!("`{path}`: 2 repos touched > 1")], "{estimate}");
        }

        let mut changes = ChangeSet::default();
        assert!(!applicability(&changes).applies);
        let manifest = |status: &str, tier: u8| {
            FileContent::Text(format!("{{\"status\": \"{status}\", \"tier\": {tier}}}").into())
        };
        let decision = ".harnery/decisions/db-2026-07-06-a1b2.json";
        changes.base.insert(decision.into(), manifest("resolved", 2));
        changes.head.insert(decision.into(), manifest("enacted", 2));
        assert_eq!(
            applicability(&changes).reasons,
            vec![format!(
                "`{decision}`: a tier-2 decision moves to enacted; a human sees it before enactment (ADR 0007)"
            )]
        );
        changes.head.insert(decision.into(), manifest("enacted", 1));
        assert!(!applicability(&changes).applies, "tier 1 enacts without the gate");
        changes.head.clear();
        changes.base.clear();
        changes.config.review =
            Some(crate::config::ReviewConfig { paths: vec!["infra/**".into()], ..Default::default() });
        changes.pr.files =
            Some(vec![crate::model::ChangedFile { path: "infra/db/main.tf".into(), additions: 1, deletions: 0 }]);
        assert_eq!(
            applicability(&changes).reasons,
            vec!["`infra/db/main.tf` is on a path the review policy names".to_string()]
        );
        assert_eq!(applicability(&changes).documents, ["infra/db/main.tf"]);
    }

    #[test]
    fn owned_files_and_roster_paths_make_the_gate_apply() {
        let mut changes = ChangeSet::default();
        changes.pr.files = Some(vec![
            crate::model::ChangedFile { path: "infra/db/main.tf".into(), additions: 1, deletions: 0 },
            crate::model::ChangedFile { path: "src/lib.rs".into(), additions: 1, deletions: 0 },
        ]);
        changes.codeowners =
            Some(crate::owners::BaseFile { path: "CODEOWNERS".into(), text: "/infra/ @acme/sre\n".into() });
        changes.config.review = Some(ReviewConfig::default());
        assert!(!applicability(&changes).applies, "CODEOWNERS is the gate's only under `review.owners`");
        changes.config.review = Some(ReviewConfig { owners: OwnersFrom::Codeowners, ..Default::default() });
        let a = applicability(&changes);
        assert_eq!(a.reasons, ["`infra/db/main.tf` has code owners (`CODEOWNERS` line 1)"]);
        assert_eq!(a.documents, ["infra/db/main.tf"]);
        let roster = crate::config::Roster {
            paths: vec!["src/**".into()],
            all_of: vec![crate::config::Quorum { n_of: 1, from: vec!["a".into()] }],
            advisory: vec![],
            bots: vec![],
            line: 9,
        };
        changes.config.review = Some(ReviewConfig { rosters: vec![roster], ..Default::default() });
        let a = applicability(&changes);
        assert_eq!(a.reasons, ["`src/lib.rs` is on the paths of the roster at `.github/gatehouse.yml` line 9"]);
        assert_eq!(a.documents, ["src/lib.rs"]);
    }
}
