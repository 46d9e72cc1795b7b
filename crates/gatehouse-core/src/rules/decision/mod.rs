//! The `decision/*` rules (ADR 0007, the decision docket). The family pairs
//! every manifest the change adds, edits, moves or deletes with its base
//! version once, in a [`DecisionView`]; each rule is one small pure function
//! over it.

mod archive_state;
mod deleted;
mod evidence_required;
mod id;
mod json;
mod review_required;
pub(crate) mod schema;
mod superseded_by;
mod terminal_readonly;
mod timestamps;
mod transition;
mod wontfix_reason;

use std::fmt::Write as _;

use super::Rule;
use crate::config::PathFilter;
use crate::docs::decision::lifecycle::{self, Status};
use crate::docs::decision::{Location, Manifest, locate, manifest_path};
use crate::docs::json::{Json, Member};
use crate::model::{ChangeSet, Span};

fn rules<'a>() -> Vec<Rule<DecisionView<'a>>> {
    vec![
        json::rule(),
        schema::rule(),
        id::rule(),
        transition::rule(),
        terminal_readonly::rule(),
        evidence_required::rule(),
        review_required::rule(),
        superseded_by::rule(),
        wontfix_reason::rule(),
        deleted::rule(),
        archive_state::rule(),
        timestamps::rule(),
    ]
}

declare_family! {
    Decisions, Decisions, rules, |changes, run| {
        let view = DecisionView::new(changes);
        run.unreadable(view.unreadable.iter().filter_map(|&path| Some((path, changes.head.get(path)?))));
        run.documents = view.decisions.len() + view.unreadable.len() + view.deleted.len();
        run.run(&rules(), &view);
        if let Some(summary) = view.summary() {
            run.details.push(summary);
        }
    }
}

/// A decision whose manifest the change adds, edits or moves.
pub struct Decision<'a> {
    pub head: Manifest<'a>,
    pub location: Location<'a>,
    /// The same decision on the base: at the same path, or at the other of
    /// `<folder>/<id>.json` and `<folder>/archive/<id>.json` when it moved.
    pub base: Option<Manifest<'a>>,
    /// The content is byte-identical to the base's: a pure move into or out
    /// of `archive/`. Content rules leave such a manifest alone.
    pub unchanged: bool,
}

impl Decision<'_> {
    pub fn moved(&self) -> bool {
        self.base.as_ref().is_some_and(|b| b.path != self.head.path)
    }

    /// Base and head statuses, when both are known statuses.
    pub fn statuses(&self) -> Option<(Status, Status)> {
        Some((self.base.as_ref()?.status()?.0, self.head.status()?.0))
    }
}

/// Every decision manifest the change touches, paired with its base.
pub struct DecisionView<'a> {
    pub changes: &'a ChangeSet,
    /// Added, edited or moved manifests that are text, in path order.
    pub decisions: Vec<Decision<'a>>,
    /// Added or edited manifests that are binary, not UTF-8 or too large.
    pub unreadable: Vec<&'a str>,
    /// Base manifests whose decision has no manifest left on the head.
    pub deleted: Vec<(&'a str, Location<'a>)>,
}

/// True when the head has a manifest of decision `id` in `folder` (the
/// configured folder, as [`locate`] gives it), at the top or in the archive.
fn has_manifest(changes: &ChangeSet, folder: &str, id: &str) -> bool {
    let folders = &changes.config.decisions.paths;
    [false, true].into_iter().any(|archived| {
        let path = manifest_path(folder, id, archived);
        changes.head.contains_key(path.as_str())
            && locate(&path, folders).is_some_and(|l| (l.folder, l.stem) == (folder, id))
    })
}

impl<'a> DecisionView<'a> {
    pub fn new(changes: &'a ChangeSet) -> DecisionView<'a> {
        let folders = &changes.config.decisions.paths;
        let filter = PathFilter::folders(folders);
        let mut decisions = Vec::new();
        let mut unreadable = Vec::new();
        // A manifest left as it was at its path is not touched; the walk
        // over what changed skips it without a lookup.
        for (path, content) in changes.changed_in(&filter) {
            let Some(location) = locate(path, folders) else { continue };
            // The base version: same path, else the other location when the
            // change moved the manifest (it is gone from there on the head).
            let base_content = changes.base.get_key_value(path).or_else(|| {
                let other = manifest_path(location.folder, location.stem, !location.archived);
                changes.base.get_key_value(other.as_str()).filter(|_| !changes.head.contains_key(other.as_str()))
            });
            let unchanged = base_content.is_some_and(|(_, c)| c == content);
            let Some(text) = content.text() else {
                unreadable.push(path);
                continue;
            };
            decisions.push(Decision {
                head: Manifest::parse(path, text),
                location,
                base: base_content.and_then(|(p, c)| Some(Manifest::parse(p, c.text()?))),
                unchanged,
            });
        }
        let deleted = changes
            .deleted_in(&filter)
            .filter_map(|path| Some((path, locate(path, folders)?)))
            .filter(|(_, l)| !has_manifest(changes, l.folder, l.stem))
            .collect();
        DecisionView { changes, decisions, unreadable, deleted }
    }

    /// Decisions whose content the change wrote (not pure moves).
    pub fn edited(&self) -> impl Iterator<Item = &Decision<'a>> {
        self.decisions.iter().filter(|d| !d.unchanged)
    }

    /// Edited decisions whose manifest is a JSON document.
    pub fn parsed(&self) -> impl Iterator<Item = &Decision<'a>> {
        self.edited().filter(|d| d.head.root.is_ok())
    }

    /// True when decision `id` has a manifest on the head, in `folder` or in
    /// the repository's file listing (sources that read only changed files).
    pub fn exists(&self, folder: &str, id: &str) -> bool {
        if has_manifest(self.changes, folder, id) {
            return true;
        }
        let repo = self.changes.repo.as_deref().unwrap_or(crate::model::LOCAL_REPO);
        self.changes.repos.tree(repo, None).is_some_and(|tree| {
            tree.contains_file(&manifest_path(folder, id, false))
                || tree.contains_file(&manifest_path(folder, id, true))
        })
    }

    /// The check summary block: each decision's status change.
    fn summary(&self) -> Option<String> {
        let mut lines = Vec::new();
        for d in &self.decisions {
            let id = d.location.stem;
            let head = d.head.status().map_or("(no valid status)", |(s, _)| s.name());
            let moved = if d.moved() {
                if d.location.archived { ", moved to `archive/`" } else { ", moved out of `archive/`" }
            } else {
                ""
            };
            let line = match (&d.base, d.statuses()) {
                (None, _) => format!("- `{id}`: new → {head}"),
                (Some(_), Some((from, to))) if from == to => format!("- `{id}`: {head} (status unchanged){moved}"),
                (Some(_), Some((from, to))) => match lifecycle::shortest_path(from, to) {
                    Some(path) if path.len() > 2 => {
                        format!(
                            "- `{id}`: {} → {} (via {}){moved}",
                            from.name(),
                            to.name(),
                            lifecycle::show_path(&path[1..path.len() - 1])
                        )
                    }
                    Some(_) => format!("- `{id}`: {} → {}{moved}", from.name(), to.name()),
                    None => format!("- `{id}`: {} → {} — **not a legal move**{moved}", from.name(), to.name()),
                },
                (Some(base), None) => {
                    let from = base.status().map_or("(no valid status)", |(s, _)| s.name());
                    format!("- `{id}`: {from} → {head}{moved}")
                }
            };
            lines.push(line);
        }
        for (path, location) in &self.deleted {
            let was = self
                .changes
                .base
                .get(path)
                .and_then(|c| c.text())
                .and_then(|t| Manifest::parse(path, t).status().map(|(s, _)| s.name()));
            lines.push(format!("- `{}`: **deleted** (was {})", location.stem, was.unwrap_or("unreadable")));
        }
        if lines.is_empty() {
            return None;
        }
        let mut out = String::from("**Decision status changes**\n\n");
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests;

/// The span of a value of the manifest as written (its first line when it
/// spans several).
pub fn value_span(m: &Manifest, node: &Json) -> Span {
    let bom = if m.text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    super::spans::range_span(m.text, bom + node.bytes.start..bom + node.bytes.end, node.line, node.col)
}

/// The span of a member's key, quotes included.
pub fn key_span(member: &Member) -> Span {
    Span::at(member.line, member.col, member.key.chars().count() as u32 + 2)
}

/// The span of the `status` value, else of the top-level value.
pub fn status_span(m: &Manifest) -> Span {
    match (m.get("status"), &m.root) {
        (Some(node), _) | (None, Ok(node)) => value_span(m, node),
        (None, Err(_)) => Span::line(1),
    }
}
