//! The `brief/*` rules (ADR-099). The family reads every brief the change
//! adds or modifies once into a [`BriefView`]; each rule is one small pure
//! function over it.

mod adr_format;
mod adr_misquoted;
mod adr_missing;
mod adr_not_honoured;
mod adr_superseded;
mod adr_undeclared;
mod agent_duplicate;
mod agent_mismatch;
mod body_paths;
mod cited_adr_retired;
mod criterion;
mod edited_after_merge;
mod field_type;
mod filename;
mod frontmatter;
mod missing_field;
mod out_of_scope_empty;
mod path_invalid;
mod path_missing;
mod path_unverifiable;
mod repo_duplicate;
mod repo_format;
mod review_required;
mod to_be_created_rationale;
mod unknown_field;
mod untestable_criterion;

use std::collections::BTreeMap;

use super::Rule;
use crate::config::{PathFilter, Threshold, globset};
use crate::docs::adr::Adr;
use crate::docs::brief::{Brief, agent_of};
use crate::docs::pathref::{PathRef, SpanKind};
use crate::model::{ChangeSet, PathLookup, Span};
use crate::rules::paths::lookups;

pub use criterion::{Assessment, Vague, VagueKind, Verdict, assess as assess_criterion};
pub use review_required::reasons as review_reasons;

fn rules<'a>() -> Vec<Rule<BriefView<'a>>> {
    vec![
        filename::rule(),
        frontmatter::rule(),
        missing_field::rule(),
        field_type::rule(),
        unknown_field::rule(),
        agent_mismatch::rule(),
        agent_duplicate::rule(),
        repo_format::rule(),
        repo_duplicate::rule(),
        adr_format::rule(),
        adr_missing::rule(),
        adr_not_honoured::rule(),
        adr_misquoted::rule(),
        adr_undeclared::rule(),
        adr_superseded::rule(),
        cited_adr_retired::rule(),
        path_missing::rule(),
        path_invalid::rule(),
        to_be_created_rationale::rule(),
        path_unverifiable::rule(),
        untestable_criterion::rule(),
        out_of_scope_empty::rule(),
        review_required::rule(),
        edited_after_merge::rule(),
    ]
}

declare_family! {
    Briefs, Briefs, rules, |changes, run| {
        let filter = PathFilter::globs(&changes.config.briefs.paths);
        let touched = changes.changed_in(&filter).map(|(path, _)| path).chain(changes.deleted_in(&filter));
        let resolved = super::resolved(changes, touched);
        let changes = resolved.as_ref().unwrap_or(changes);
        let view = BriefView::new(changes);
        run.unreadable(changes.changed_in(&view.filter));
        run.documents = changes.changed_in(&view.filter).count() + changes.deleted_in(&view.filter).count();
        run.run(&rules(), &view);
        run.details.extend(threshold_table(&view));
    }
}

/// Each changed brief's side of ADR-099's review threshold, for the summary:
/// every brief, those whose fields cannot decide it saying which are invalid.
fn threshold_table(view: &BriefView) -> Option<String> {
    let rows: Vec<String> = view
        .briefs
        .iter()
        .map(|brief| {
            let verdict = match review_required::reasons(brief, view.threshold) {
                Some(reasons) if reasons.is_empty() => "exempt: operator's call".to_string(),
                Some(reasons) => format!("required: {}", reasons.join(" and ")),
                None => format!("undecided: {}", undecided_by(brief).join(" and ")),
            };
            let lines = match brief.lines_estimate().filter(|n| *n > 0) {
                Some(n) => n.to_string(),
                None => field_state(brief, "lines_estimate").to_string(),
            };
            let repos = match brief.field("repos_touched").and_then(|r| r.as_seq()) {
                Some(_) => brief.repos().len().to_string(),
                None => field_state(brief, "repos_touched").to_string(),
            };
            let agent = brief.agent().map_or_else(|| field_state(brief, "agent").to_string(), str::to_string);
            format!("| `{}` | {agent} | {lines} | {repos} | {verdict} |", brief.path)
        })
        .collect();
    (!rows.is_empty()).then(|| {
        format!(
            "| Brief | Agent | Lines | Repos | Brief-PR review (ADR-099) |\n|---|---|---|---|---|\n{}",
            rows.join("\n")
        )
    })
}

/// `missing` or `invalid`, for a field whose value cannot be read.
fn field_state(brief: &Brief, field: &str) -> &'static str {
    if brief.field(field).is_some() { "invalid" } else { "missing" }
}

/// The fields that keep the review threshold from being decided, as
/// markdown (`lines_estimate` is invalid).
pub fn undecided_by(brief: &Brief) -> Vec<String> {
    let mut out = Vec::new();
    if brief.lines_estimate().filter(|n| *n > 0).is_none() {
        out.push(format!("`lines_estimate` is {}", field_state(brief, "lines_estimate")));
    }
    if brief.field("repos_touched").and_then(|r| r.as_seq()).is_none() {
        out.push(format!("`repos_touched` is {}", field_state(brief, "repos_touched")));
    }
    out
}

/// A path named in a brief's body, and what is known about it.
pub struct BodyPath<'a> {
    pub brief: usize,
    pub span: Span,
    /// The path as written (a code span's text, a word, a link's destination).
    pub text: &'a str,
    pub kind: SpanKind,
    /// The `to-be-created:` flag that covers this path (see
    /// [`body_paths::flags`]), when flagged.
    pub flag: Option<body_paths::Flag>,
    /// Where it was looked up and what was found; empty for unsafe paths.
    pub lookups: Vec<(String, PathLookup)>,
}

/// Every brief the change adds or modifies, parsed once, with what the rules
/// share: the ADRs, every agent id in use, and the body paths resolved.
pub struct BriefView<'a> {
    pub changes: &'a ChangeSet,
    filter: PathFilter,
    /// Added or modified briefs that are text, in path order.
    pub briefs: Vec<Brief<'a>>,
    /// Every brief at the head as `(agent id, path)`, sorted by agent id
    /// (stably: the changed briefs first, then the merged ones, each in path
    /// order), so a brief's namesakes are one binary search: 10,000 briefs
    /// compared pairwise were 10^8 comparisons. The changed briefs alone
    /// when the ChangeSet brings an [`AgentIndex`] for the merged ones.
    agents: Vec<(&'a str, &'a str)>,
    /// ADRs by number: the base's, plus the PR's additions.
    pub adrs: BTreeMap<u32, Adr>,
    pub paths: Vec<BodyPath<'a>>,
    /// Briefs present on the base that the change modifies or deletes.
    pub merged_changed: Vec<&'a str>,
    pub threshold: Threshold,
}

impl<'a> BriefView<'a> {
    pub fn new(changes: &'a ChangeSet) -> BriefView<'a> {
        let config = &changes.config;
        let filter = PathFilter::globs(&config.briefs.paths);
        let briefs: Vec<Brief<'a>> =
            changes.changed_in(&filter).filter_map(|(p, c)| c.text().map(|t| Brief::parse(p, t))).collect();
        // Agent ids of every brief at the head: the changed ones are parsed
        // already; the rest only need their frontmatter, or the source's
        // index when it gave one.
        let mut agents: Vec<(&'a str, &'a str)> =
            briefs.iter().filter_map(|b| Some((b.field_text("agent")?, b.path))).collect();
        if changes.agents.is_none() {
            for (path, content) in filter.select(&changes.head) {
                if changes.base.get(path) != Some(content) {
                    continue;
                }
                let Some(text) = content.text() else { continue };
                if let Some(agent) = agent_of(text) {
                    agents.push((agent, path));
                }
            }
        }
        agents.sort_by_key(|&(agent, _)| agent);
        let adr_filter = PathFilter::globs(&config.adrs.paths);
        // ADR text comes from the base when the ADR exists there: a PR cannot
        // edit an ADR to make its own brief's quotes match.
        let adrs = crate::docs::adr::index(adr_filter.select(&changes.head).filter_map(|(path, content)| {
            changes.base.get(path).unwrap_or(content).text().and_then(|t| Adr::parse(path, t))
        }));
        let mut merged_changed: Vec<&str> = changes
            .changed_in(&filter)
            .map(|(p, _)| p)
            .filter(|p| changes.base.contains_key(p))
            .chain(changes.deleted_in(&filter))
            .collect();
        merged_changed.sort_unstable();
        let mut view = BriefView {
            changes,
            filter,
            briefs,
            agents,
            adrs,
            paths: Vec::new(),
            merged_changed,
            threshold: config.briefs.review_threshold,
        };
        view.paths = view.resolve_paths();
        view
    }

    /// The paths of the briefs at the head whose agent id is `agent`: the
    /// changed ones, then the merged ones, each in path order.
    pub fn briefs_of<'s>(&'s self, agent: &'s str) -> impl Iterator<Item = &'a str> + 's {
        let start = self.agents.partition_point(|&(a, _)| a < agent);
        let listed = self.agents[start..].iter().take_while(move |&&(a, _)| a == agent).map(|&(_, path)| path);
        let changes = self.changes;
        let indexed = changes.agents.iter().flat_map(move |index| {
            index.paths_of(agent).filter(move |path| {
                self.filter.is_match(path) && changes.head.get(path).is_some_and(|c| changes.base.get(path) == Some(c))
            })
        });
        listed.chain(indexed)
    }

    fn resolve_paths(&self) -> Vec<BodyPath<'a>> {
        let mut out = Vec::new();
        for (index, brief) in self.briefs.iter().enumerate() {
            let repos = brief.repos();
            let candidates = body_paths::candidates(brief);
            let flags = body_paths::flags(brief, &candidates);
            let own = self.changes.repo.as_deref();
            let own_repo = [own.unwrap_or(crate::model::LOCAL_REPO)];
            for (candidate, flag) in candidates.into_iter().zip(flags) {
                let places: &[&str] = if candidate.own_repo { &own_repo } else { &repos };
                let lookups = match &candidate.kind {
                    SpanKind::Path(path) => lookups(&self.changes.repos, own, places, path),
                    _ => Vec::new(),
                };
                out.push(BodyPath {
                    brief: index,
                    span: candidate.span,
                    text: candidate.text,
                    kind: candidate.kind,
                    flag,
                    lookups,
                });
            }
        }
        out
    }
}

/// The `(repo, revision)` pairs that changed briefs name in
/// `owner/repo@rev:path` spans, so a source can load those trees before the
/// rules run.
pub fn revisions_named(changes: &ChangeSet) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = pinned_paths(changes).into_iter().map(|p| (p.repo, p.rev)).collect();
    out.dedup();
    out
}

/// A path a changed brief pins to a revision: `owner/repo@rev:path`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PinnedPath {
    pub repo: String,
    pub rev: String,
    pub path: String,
}

/// Every `owner/repo@rev:path` span of the changed briefs, sorted, once each,
/// so a source can look up exactly those paths before the rules run.
pub fn pinned_paths(changes: &ChangeSet) -> Vec<PinnedPath> {
    let matcher = globset(&changes.config.briefs.paths);
    let mut out: Vec<PinnedPath> = changes
        .changed()
        .filter(|(p, _)| matcher.is_match(p))
        .filter_map(|(p, c)| c.text().filter(|t| may_pin(t)).map(|t| Brief::parse(p, t)))
        .flat_map(|brief| {
            body_paths::candidates(&brief)
                .into_iter()
                .filter_map(|candidate| match candidate.kind {
                    SpanKind::Path(PathRef { repo: Some(repo), rev: Some(rev), path }) => {
                        Some(PinnedPath { repo, rev, path })
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `text` may name an `owner/repo@rev:path`: some run of it without
/// whitespace holds a `/`, then an `@`, then a `:`. A span with whitespace
/// names no path, so a brief without such a run pins nothing and is left
/// unparsed here; the rules parse every brief anyway. Most briefs pin
/// nothing: on 1,000 synthetic briefs (`examples/briefs_once`), parsing each
/// here cost 23% of `check --all`'s instructions (callgrind).
fn may_pin(text: &str) -> bool {
    if memchr::memchr(b'@', text.as_bytes()).is_none() {
        return false;
    }
    let (mut slash, mut at) = (false, false);
    for &b in text.as_bytes() {
        match b {
            b'/' => slash = true,
            b'@' if slash => at = true,
            b':' if at => return true,
            b if b.is_ascii_whitespace() => (slash, at) = (false, false),
            _ => {}
        }
    }
    false
}

impl BodyPath<'_> {
    pub fn exists(&self) -> bool {
        self.lookups.iter().any(|(_, l)| *l == PathLookup::Exists)
    }

    /// Looked up, readable everywhere it could be, and found nowhere.
    pub fn missing(&self) -> bool {
        !self.lookups.is_empty() && self.lookups.iter().all(|(_, l)| *l == PathLookup::Missing)
    }

    /// Not found where it could be read, and some repo could not be read.
    pub fn unverifiable(&self) -> bool {
        !self.exists() && self.lookups.iter().any(|(_, l)| *l == PathLookup::Unknown)
    }

    pub fn path(&self) -> Option<&PathRef> {
        match &self.kind {
            SpanKind::Path(p) => Some(p),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileContent;

    #[test]
    fn only_a_slash_at_colon_run_may_pin() {
        for pins in ["see `o/r@v1.2:src/a.rs`.", "o/r@feature/x:a.md", "[a](o/r@main:docs/a.md)"] {
            assert!(may_pin(pins), "{pins}");
        }
        for none in ["no pins", "mail a@b.c: soon", "o/r @v:a", "o/r@v :a", "a@b/c:d", "o/r@v\n:a.md"] {
            assert!(!may_pin(none), "{none}");
        }
    }

    #[test]
    fn pinned_paths_skip_no_brief_that_pins() {
        let brief = "---\nagent: SWARM-AZ\nrepos_touched: [o/r]\n---\nKeep `o/r@v1.2:src/a.rs` and o/r@main:b.md.\n";
        let mut changes = ChangeSet::default();
        changes.head.insert("dark-factory/briefs/SWARM-AZ-pins.md".into(), FileContent::Text(brief.into()));
        changes.head.insert("dark-factory/briefs/SWARM-AY-none.md".into(), FileContent::Text("---\n---\nx@y\n".into()));
        let pinned: Vec<(String, String, String)> =
            pinned_paths(&changes).into_iter().map(|p| (p.repo, p.rev, p.path)).collect();
        assert_eq!(
            pinned,
            vec![("o/r".into(), "main".into(), "b.md".into()), ("o/r".into(), "v1.2".into(), "src/a.rs".into())]
        );
    }
}
