//! PR-body cites. Once a brief merges, "the brief slug is what the sub-agent
//! receives" (ADR-099): implementation PRs say which brief they implement
//! (`Brief: <path>`) and which guideline versions they follow
//! (`Guideline: <name>@v<n>`). The cites must name files on the BASE branch,
//! and the PR must stay inside the cited brief.

mod brief;
mod brief_repo;
mod brief_scope;
mod brief_size;
mod guideline;

use super::Rule;
use crate::config::globset;
use crate::docs::brief::Brief;
use crate::model::ChangeSet;

/// One `Key: value` cite line of the PR body.
pub struct Cite<'a> {
    /// 1-based line in the PR body.
    pub line: u32,
    /// 1-based column where the value starts.
    pub col: u32,
    pub value: &'a str,
}

/// The cites of a PR body, and the base documents they resolve to.
pub struct CiteView<'a> {
    pub changes: &'a ChangeSet,
    pub briefs: Vec<Cite<'a>>,
    pub guidelines: Vec<Cite<'a>>,
    /// For each brief cite (same order), the merged brief it names, if any.
    pub resolved: Vec<Option<Brief<'a>>>,
}

/// Finds `Key: value` lines (case-insensitive key, optional bullet list
/// marker, `-`, `+` or `*`, or emphasis around the key).
pub(crate) fn cites<'a>(body: &'a str, key: &str) -> Vec<Cite<'a>> {
    let mut out = Vec::new();
    for (i, line) in body.lines().enumerate() {
        let trimmed = line.trim_start().trim_start_matches(['-', '*', '+', ' ']);
        let plain = trimmed.trim_start_matches('*');
        let Some(rest) = plain.get(..key.len()).filter(|k| k.eq_ignore_ascii_case(key)).map(|_| &plain[key.len()..])
        else {
            continue;
        };
        let Some(rest) =
            rest.strip_prefix(":**").or_else(|| rest.strip_prefix("**:")).or_else(|| rest.strip_prefix(':'))
        else {
            continue;
        };
        let value = rest.trim().trim_matches('`');
        if value.is_empty() {
            continue;
        }
        let col = line.find(value).map_or(1, |at| line[..at].chars().count() as u32 + 1);
        out.push(Cite { line: i as u32 + 1, col, value });
    }
    out
}

impl<'a> CiteView<'a> {
    pub fn new(changes: &'a ChangeSet) -> CiteView<'a> {
        let body = changes.pr.body.as_deref().unwrap_or("");
        let briefs = cites(body, "Brief");
        let guidelines = cites(body, "Guideline");
        let matcher = globset(&changes.config.briefs.paths);
        let resolved = briefs
            .iter()
            .map(|cite| {
                let value = cite.value.trim_end_matches(".md");
                changes
                    .base
                    .iter()
                    .filter(|(path, _)| matcher.is_match(path))
                    .find(|(path, _)| {
                        let stem = path.rsplit('/').next().unwrap_or(path).trim_end_matches(".md");
                        path.trim_end_matches(".md") == value || stem == value
                    })
                    .and_then(|(path, content)| Some(Brief::parse(path, content.text()?)))
            })
            .collect();
        CiteView { changes, briefs, guidelines, resolved }
    }
}

fn brief_rules<'a>() -> Vec<Rule<CiteView<'a>>> {
    vec![brief::rule(), brief_repo::rule(), brief_size::rule(), brief_scope::rule()]
}

fn guideline_rules<'a>() -> Vec<Rule<CiteView<'a>>> {
    vec![guideline::rule()]
}

declare_family! {
    /// `Brief:` cites, reported with the briefs.
    BriefCites, Briefs, brief_rules, |changes, run| {
        let view = CiteView::new(changes);
        run.cites = view.briefs.len();
        run.run(&brief_rules(), &view);
    }
}

declare_family! {
    /// `Guideline:` cites, reported with the voting docs.
    GuidelineCites, Voting, guideline_rules, |changes, run| {
        let view = CiteView::new(changes);
        run.cites = view.guidelines.len();
        run.run(&guideline_rules(), &view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cite_lines_in_common_spellings() {
        let body = "Implements the backup brief.\n\nBrief: dark-factory/briefs/SWARM-AR-pg-backup.md\n- **Guideline:** smoke-spec-path@v2\nbrief: `SWARM-AS-x`\nBriefly: no\n+ Brief: SWARM-AR-plus\n";
        let briefs: Vec<(u32, u32, &str)> = cites(body, "Brief").iter().map(|c| (c.line, c.col, c.value)).collect();
        assert_eq!(
            briefs,
            vec![(3, 8, "dark-factory/briefs/SWARM-AR-pg-backup.md"), (5, 9, "SWARM-AS-x"), (7, 10, "SWARM-AR-plus")]
        );
        let guidelines: Vec<(u32, &str)> = cites(body, "Guideline").iter().map(|c| (c.line, c.value)).collect();
        assert_eq!(guidelines, vec![(4, "smoke-spec-path@v2")]);
    }
}
