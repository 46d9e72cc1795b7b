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
mod edited_after_merge;
mod field_type;
mod filename;
mod frontmatter;
mod missing_field;
mod out_of_scope_empty;
mod path_invalid;
mod path_missing;
mod path_unverifiable;
mod repo_format;
mod review_required;
mod to_be_created_rationale;
mod unknown_field;
mod untestable_criterion;

use std::collections::BTreeMap;

use super::{Family, FamilyRun, Rule, RuleInfo, report_unreadable};
use crate::config::{Threshold, globset};
use crate::docs::adr::Adr;
use crate::docs::brief::Brief;
use crate::docs::pathref::{PathRef, SpanKind, classify};
use crate::model::{ChangeSet, Check, PathLookup, Sink, Span};
use crate::rules::paths::lookups;

pub use crate::rules::paths::LOCAL_REPO;

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
        adr_format::rule(),
        adr_missing::rule(),
        adr_not_honoured::rule(),
        adr_misquoted::rule(),
        adr_undeclared::rule(),
        adr_superseded::rule(),
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

pub struct Briefs;

impl Family for Briefs {
    fn check(&self) -> Check {
        Check::Briefs
    }

    fn rules(&self) -> Vec<&'static RuleInfo> {
        rules().iter().map(|r| r.info).collect()
    }

    fn run(&self, changes: &ChangeSet) -> FamilyRun {
        let mut run = FamilyRun::default();
        let view = BriefView::new(changes);
        let mut unreadable = Sink::default();
        for (path, content) in changes.changed().filter(|(p, _)| view.is_brief(p)) {
            report_unreadable(path, content, &mut unreadable);
        }
        run.extend(&super::DOC_UNREADABLE, &mut unreadable);
        run.documents = view.briefs.len() + unreadable_count(changes, &view) + view.merged_changed.len();
        run.run(&rules(), &view);
        run
    }
}

fn unreadable_count(changes: &ChangeSet, view: &BriefView) -> usize {
    changes.changed().filter(|(p, c)| view.is_brief(p) && c.text().is_none()).count()
}

/// A path named in a brief's body, and what is known about it.
pub struct BodyPath<'a> {
    pub brief: usize,
    pub span: Span,
    /// The code span's text as written.
    pub text: &'a str,
    pub kind: SpanKind,
    /// The rationale after `to-be-created:` on the same line, when flagged.
    pub flag: Option<&'a str>,
    /// Where it was looked up and what was found; empty for unsafe paths.
    pub lookups: Vec<(String, PathLookup)>,
}

/// Every brief the change adds or modifies, parsed once, with what the rules
/// share: the ADRs, every agent id in use, and the body paths resolved.
pub struct BriefView<'a> {
    pub changes: &'a ChangeSet,
    matcher: globset::GlobSet,
    /// Added or modified briefs that are text, in path order.
    pub briefs: Vec<Brief<'a>>,
    /// Agent ids of every brief at the head: (agent, path, line).
    pub agents: Vec<(&'a str, &'a str, u32)>,
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
        let matcher = globset(&config.briefs.paths);
        let briefs: Vec<Brief<'a>> = changes
            .changed()
            .filter(|(p, _)| matcher.is_match(p))
            .filter_map(|(p, c)| c.text().map(|t| Brief::parse(p, t)))
            .collect();
        let agents = changes
            .head
            .iter()
            .filter(|(p, _)| matcher.is_match(p))
            .filter_map(|(p, c)| {
                let text = c.text()?;
                let fm = crate::docs::frontmatter::split(text).frontmatter.ok()?;
                let node = fm.get("agent")?;
                let agent = node.as_str()?;
                // Borrow the agent id from the stored text, not the parsed tree.
                let start = text.find(agent)?;
                Some((&text[start..start + agent.len()], p.as_str(), node.line))
            })
            .collect();
        let adr_matcher = globset(&config.adrs.paths);
        let mut adrs = BTreeMap::new();
        for (path, content) in &changes.head {
            if !adr_matcher.is_match(path) {
                continue;
            }
            // ADR text comes from the base when the ADR exists there: a PR cannot
            // edit an ADR to make its own brief's quotes match.
            let content = changes.base.get(path).unwrap_or(content);
            if let Some(adr) = content.text().and_then(|t| Adr::parse(path, t)) {
                adrs.entry(adr.number).or_insert(adr);
            }
        }
        let merged_changed = changes
            .base
            .iter()
            .filter(|(p, c)| matcher.is_match(p) && changes.head.get(*p) != Some(c))
            .map(|(p, _)| p.as_str())
            .collect();
        let mut view = BriefView {
            changes,
            matcher,
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

    pub fn is_brief(&self, path: &str) -> bool {
        self.matcher.is_match(path)
    }

    fn resolve_paths(&self) -> Vec<BodyPath<'a>> {
        let mut out = Vec::new();
        for (index, brief) in self.briefs.iter().enumerate() {
            let repos = brief.repos();
            for span in &brief.markdown.code_spans {
                let kind = classify(&span.text, &repos);
                if kind == SpanKind::NotAPath {
                    continue;
                }
                let line_text = brief.line_text(span.line);
                let flag = line_text.find("to-be-created").map(|at| {
                    let rest = &line_text[at + "to-be-created".len()..];
                    rest.strip_prefix(':').unwrap_or("").trim()
                });
                let lookups = match &kind {
                    SpanKind::Path(path) => lookups(&self.changes.repos, self.changes.repo.as_deref(), &repos, path),
                    _ => Vec::new(),
                };
                // The span's text lives in the brief; find it there to borrow it.
                let text = brief.line_text(span.line);
                let text = text.find(span.text.as_str()).map_or("", |at| &text[at..at + span.text.len()]);
                out.push(BodyPath {
                    brief: index,
                    span: crate::model::Span::at(span.line, span.col, span.width),
                    text,
                    kind,
                    flag,
                    lookups,
                });
            }
        }
        out
    }
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
