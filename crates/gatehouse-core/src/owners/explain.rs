//! Who must approve a change of some paths, and why: the CODEOWNERS line
//! deciding each path's owners and the earlier lines it overrides, and the
//! rosters covering it. `gatehouse owners` prints it; an editor's hover on
//! a CODEOWNERS line shows the same from the line's side.

use serde::Serialize;

use super::{Codeowners, OwnerRule};
use crate::config::{CONFIG_PATH, OwnersFrom, globset};
use crate::model::ChangeSet;

/// A CODEOWNERS line as the explanation shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OwnerLine {
    pub file: String,
    pub line: u32,
    pub pattern: String,
    /// Empty: the line leaves its files unowned.
    pub owners: Vec<String>,
}

/// A roster covering a path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RosterLine {
    pub file: String,
    pub line: u32,
    pub paths: Vec<String>,
    /// Each quorum: approvals needed and from whom.
    pub all_of: Vec<(u64, Vec<String>)>,
    pub advisory: Vec<String>,
    pub bots: Vec<String>,
}

/// Who must approve a change of one path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathOwners {
    pub path: String,
    /// The line deciding its owners (the last matching one).
    pub codeowners: Option<OwnerLine>,
    /// Earlier lines matching the path, which that line overrides.
    pub overridden: Vec<OwnerLine>,
    /// Whether the gate requires the owners' approval (`review.owners:
    /// codeowners`); GitHub does where the branch requires code owners.
    pub owners_required: bool,
    pub rosters: Vec<RosterLine>,
}

fn line(codeowners: &Codeowners, rule: &OwnerRule) -> OwnerLine {
    OwnerLine {
        file: codeowners.path.clone(),
        line: rule.line,
        pattern: rule.pattern.clone(),
        owners: rule.owners.iter().map(|o| o.to_string()).collect(),
    }
}

/// Who must approve a change of each of `paths`, as the base's CODEOWNERS
/// and the config's policy say.
pub fn who_must_approve(changes: &ChangeSet, paths: &[&str]) -> Vec<PathOwners> {
    let codeowners = changes.codeowners.as_ref().map(|f| f.parse());
    let policy = changes.config.review.as_ref();
    paths
        .iter()
        .map(|path| {
            let (decided, overridden) = match &codeowners {
                Some(c) => {
                    let decided = c.rule_for(path);
                    let earlier = c
                        .rules
                        .iter()
                        .filter(|r| r.matches(path) && decided.is_some_and(|d| d.line != r.line))
                        .map(|r| line(c, r))
                        .collect();
                    (decided.map(|r| line(c, r)), earlier)
                }
                None => (None, Vec::new()),
            };
            let rosters = policy
                .map(|p| p.rosters.as_slice())
                .unwrap_or_default()
                .iter()
                .filter(|r| globset(&r.paths).is_match(path))
                .map(|r| RosterLine {
                    file: CONFIG_PATH.to_string(),
                    line: r.line,
                    paths: r.paths.clone(),
                    all_of: r.all_of.iter().map(|q| (q.n_of, q.from.clone())).collect(),
                    advisory: r.advisory.clone(),
                    bots: r.bots.clone(),
                })
                .collect();
            PathOwners {
                path: path.to_string(),
                codeowners: decided,
                overridden,
                owners_required: policy.is_some_and(|p| p.owners == OwnersFrom::Codeowners),
                rosters,
            }
        })
        .collect()
}

fn owners_text(owners: &[String]) -> String {
    match owners {
        [] => "nobody (the line leaves its files unowned)".to_string(),
        [one] => one.clone(),
        many => format!("one of {}", many.join(", ")),
    }
}

/// The explanation as `gatehouse owners` prints it.
pub fn text(found: &[PathOwners]) -> String {
    let mut out = String::new();
    for p in found {
        out.push_str(&format!("{}\n", p.path));
        match &p.codeowners {
            Some(l) => {
                let gate = match p.owners_required || l.owners.is_empty() {
                    true => "",
                    false => " (not required by gatehouse: `review.owners` is not `codeowners`)",
                };
                out.push_str(&format!("  {}:{} `{}`: {}{gate}\n", l.file, l.line, l.pattern, owners_text(&l.owners)));
            }
            None => out.push_str("  no CODEOWNERS line matches: no code owner\n"),
        }
        for l in &p.overridden {
            out.push_str(&format!(
                "    overrides {}:{} `{}` ({})\n",
                l.file,
                l.line,
                l.pattern,
                owners_text(&l.owners)
            ));
        }
        for r in &p.rosters {
            let mut wants: Vec<String> =
                r.all_of.iter().map(|(n, from)| format!("{n} of {}", from.join(", "))).collect();
            if !r.advisory.is_empty() {
                wants.push(format!("a review from {}", r.advisory.join(" and ")));
            }
            out.push_str(&format!("  {}:{} roster {}: {}\n", r.file, r.line, r.paths.join(", "), wants.join("; ")));
        }
    }
    out
}

/// What an editor shows on a CODEOWNERS line (`line`, 1-based) of `file`:
/// whom the line names, and which later lines take which of `files` from it.
pub fn hover(codeowners: &Codeowners, line: u32, files: &[&str]) -> Option<String> {
    if let Some(error) = codeowners.errors.iter().find(|e| e.line == line) {
        return Some(format!("**{}**: {}. GitHub skips this line.", error.kind, error.message));
    }
    let rule = codeowners.rule_at(line)?;
    let owners: Vec<String> = rule.owners.iter().map(|o| o.to_string()).collect();
    let mut out = format!("`{}`: {}", rule.pattern, owners_text(&owners));
    if owners.iter().any(|o| o.contains('/')) {
        out.push_str(" (a team's members are read from GitHub by the App)");
    }
    let matched = files.iter().filter(|f| rule.matches(f)).count();
    let overrides = codeowners.overridden(line, files);
    let taken: usize = overrides.iter().map(|o| o.paths.len()).sum();
    out.push_str(&format!("\n\nDecides the owners of {} of the {matched} files it matches.", matched - taken));
    for o in overrides {
        let shown: Vec<String> = o.paths.iter().take(3).map(|p| format!("`{p}`")).collect();
        let more = if o.paths.len() > 3 { format!(" and {} more", o.paths.len() - 3) } else { String::new() };
        out.push_str(&format!("\n\n- line {} (`{}`) overrides it for {}{more}", o.line, o.pattern, shown.join(", ")));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ReviewConfig;
    use crate::owners::BaseFile;

    #[test]
    fn each_path_gets_its_deciding_line_what_it_overrides_and_its_rosters() {
        let codeowners =
            BaseFile { path: "CODEOWNERS".into(), text: "* @lead\n/infra/ @acme/sre\n/infra/tmp/\n".into() };
        let mut changes = ChangeSet { codeowners: Some(codeowners), ..Default::default() };
        let (config, errors) = crate::rules::read_config(
            "review:\n  owners: codeowners\n  rosters:\n    - paths: [\"infra/**\"]\n      all_of: [{ n_of: 2, from: [alice, bob] }]\n",
        );
        assert_eq!(errors, vec![]);
        changes.config = config;
        let found = who_must_approve(&changes, &["infra/db.tf", "infra/tmp/x", "README.md"]);
        assert_eq!(
            text(&found),
            "infra/db.tf\n  CODEOWNERS:2 `/infra/`: @acme/sre\n    overrides CODEOWNERS:1 `*` (@lead)\n  \
             .github/gatehouse.yml:4 roster infra/**: 2 of alice, bob\n\
             infra/tmp/x\n  CODEOWNERS:3 `/infra/tmp/`: nobody (the line leaves its files unowned)\n    \
             overrides CODEOWNERS:1 `*` (@lead)\n    overrides CODEOWNERS:2 `/infra/` (@acme/sre)\n  \
             .github/gatehouse.yml:4 roster infra/**: 2 of alice, bob\n\
             README.md\n  CODEOWNERS:1 `*`: @lead\n"
        );
        changes.config.review = Some(ReviewConfig::default());
        let found = who_must_approve(&changes, &["README.md"]);
        assert!(text(&found).contains("not required by gatehouse"), "{}", text(&found));
    }

    #[test]
    fn hover_names_the_owners_and_the_later_lines_taking_files() {
        let c = Codeowners::parse("CODEOWNERS", "* @lead\n/infra/ @acme/sre\n!x @a\n");
        let shown = hover(&c, 1, &["a.md", "infra/b.tf", "infra/c.tf"]).expect("a rule");
        assert!(shown.starts_with("`*`: @lead\n\nDecides the owners of 1 of the 3 files it matches."), "{shown}");
        assert!(shown.contains("- line 2 (`/infra/`) overrides it for `infra/b.tf`, `infra/c.tf`"), "{shown}");
        assert!(hover(&c, 3, &[]).expect("an error").starts_with("**Invalid pattern**"));
        assert_eq!(hover(&c, 9, &[]), None);
    }
}
