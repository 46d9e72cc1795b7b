//! The `voting/*` rules (ADR-140). The family reads every voting doc the
//! change adds or modifies once, one at a time, into a [`VotingView`] (with
//! its published base version and its tally); each rule is one small pure
//! function over it.

mod active_argument;
mod append_only;
mod appended;
mod argument_id;
mod date;
mod duplicate_vote;
mod evidence_refs;
mod example;
pub(crate) mod field_type;
mod filename;
mod format_cite;
mod frontmatter;
mod immutable_version;
mod missing_field;
mod modification_kind;
mod proposer_format;
mod proposition;
mod rationale_length;
mod section_block;
mod section_duplicate;
mod section_original;
mod self_vote;
mod tally_notice;
mod target;
mod vote_entry;
mod vote_order;

use std::collections::{BTreeMap, BTreeSet};

use super::{Parsed, Rule};
use crate::config::PathFilter;
use crate::docs::tree::Node;
use crate::docs::voting::tally::{self, SectionTally};
use crate::docs::voting::{Argument, Block, Section, VotingDoc, is_voting_doc};
use crate::model::{ChangeSet, FileContent, Span};

fn rules<'a>() -> Vec<Rule<VotingView<'a>>> {
    vec![
        filename::rule(),
        frontmatter::rule(),
        section_block::rule(),
        section_duplicate::rule(),
        missing_field::rule(),
        field_type::rule(),
        argument_id::rule(),
        proposer_format::rule(),
        date::rule(),
        proposition::rule(),
        rationale_length::rule(),
        evidence_refs::rule(),
        example::rule(),
        modification_kind::rule(),
        target::rule(),
        section_original::rule(),
        vote_entry::rule(),
        vote_order::rule(),
        duplicate_vote::rule(),
        self_vote::rule(),
        active_argument::rule(),
        append_only::rule(),
        immutable_version::rule(),
        format_cite::rule(),
        tally_notice::rule(),
    ]
}

declare_family! {
    Voting, Voting, rules, |changes, run, see| {
        let mut view = VotingView::new(changes);
        let unreadable = run.unreadable(changes.changed_in(&view.filter));
        run.documents = view.changed.len() + unreadable + view.deleted.len();
        if !view.not_voting.is_empty() {
            let names: Vec<String> = view.not_voting.iter().map(|p| format!("`{p}`")).collect();
            run.details.push(format!(
                "Not voting docs (no `format: voting/v1` in the frontmatter and no `voting` block), so not checked \
                 here: {}\n",
                names.join(", ")
            ));
        }
        // One document at a time: a big PR's parsed trees never all sit in
        // memory, and each rule walks a tree still in cache. Findings are
        // sorted by path and line afterwards, so the order they are found
        // in does not show.
        let rules = rules();
        let mut eligible = false;
        for at in 0..view.changed.len().max(1) {
            view.load(at);
            for (doc, tallies) in view.docs.iter().zip(&view.tallies) {
                if !tallies.is_empty() {
                    run.details.push(tally::markdown(doc.path, tallies));
                }
                eligible |= tallies.iter().any(|t| t.state == tally::State::RetirementEligible);
            }
            run.run(&rules, &view);
            for (doc, tallies) in view.docs.iter().zip(&view.tallies) {
                see(Parsed::Voting { doc, tallies });
            }
        }
        // Said once for the check, not with every section's tally.
        if eligible {
            run.details.push(
                "Retirement stays gated until ADR-140's bootstrap unlock: gatehouse reports which arguments may \
                 retire and never retires them.\n"
                    .to_string(),
            );
        }
    }
}

/// The voting docs the change adds or modifies, parsed, with what the rules
/// share: the published (base) version of each, the versions of every doc,
/// and the tallies. The rules see one document at a time ([`Self::load`]);
/// what concerns the change as a whole is given with the first.
pub struct VotingView<'a> {
    pub changes: &'a ChangeSet,
    pub(crate) filter: PathFilter,
    /// Every added or modified voting doc that is text, in path order.
    pub changed: Vec<(&'a str, &'a str)>,
    /// Added or modified texts on the voting paths that are not voting docs
    /// (module guidelines, a README): reported as passed over.
    pub not_voting: Vec<&'a str>,
    /// Whether the loaded docs are the first: the change-wide findings
    /// (deleted docs, the PR body's cite) are made once, with them.
    pub first: bool,
    /// The loaded docs (one of `changed`), parsed.
    pub docs: Vec<VotingDoc<'a>>,
    /// For each of `docs`, its published version: the same path on the base.
    pub bases: Vec<Option<Published<'a>>>,
    /// For each of `docs`, the tally of each section with a readable block.
    pub tallies: Vec<Vec<SectionTally>>,
    /// Voting docs on the base that the change deletes.
    pub deleted: Vec<&'a str>,
    /// Versions on the base, by doc name (from file names).
    pub published: BTreeMap<&'a str, BTreeSet<u32>>,
    /// Versions on the head, by doc name (from file names), with the files
    /// that hold each (two spellings of a name can claim one version).
    pub head_versions: BTreeMap<&'a str, BTreeMap<u32, Vec<&'a str>>>,
}

impl<'a> VotingView<'a> {
    /// The view with no document loaded yet.
    pub fn new(changes: &'a ChangeSet) -> VotingView<'a> {
        let filter = PathFilter::globs(&changes.config.voting.paths);
        let (changed, not_voting): (Vec<_>, Vec<_>) = changes
            .changed_in(&filter)
            .filter_map(|(p, c)| c.text().map(|t| (p, t)))
            .partition(|(_, text)| is_voting_doc(text));
        let not_voting = not_voting.into_iter().map(|(p, _)| p).collect();
        let deleted = changes
            .deleted_in(&filter)
            .filter(|p| changes.base.get(p).and_then(FileContent::text).is_some_and(is_voting_doc))
            .collect();
        let versions = |files: &'a crate::model::Files| {
            let mut out: BTreeMap<&'a str, BTreeMap<u32, Vec<&'a str>>> = BTreeMap::new();
            for (path, _) in filter.select(files) {
                if let Ok(name) = crate::docs::voting::parse_file_name(path.rsplit('/').next().unwrap_or(path)) {
                    out.entry(name.doc).or_default().entry(name.version).or_default().push(path.as_str());
                }
            }
            out
        };
        let published =
            versions(&changes.base).into_iter().map(|(doc, versions)| (doc, versions.into_keys().collect())).collect();
        let head_versions = versions(&changes.head);
        VotingView {
            changes,
            filter,
            changed,
            not_voting,
            first: true,
            docs: Vec::new(),
            bases: Vec::new(),
            tallies: Vec::new(),
            deleted,
            published,
            head_versions,
        }
    }

    /// Parses the `at`th changed doc (none past the end), with its base and
    /// tallies, in place of the docs loaded before.
    pub fn load(&mut self, at: usize) {
        let changes = self.changes;
        self.first = at == 0;
        self.docs = self.changed.get(at).map(|&(p, t)| VotingDoc::parse(p, t)).into_iter().collect();
        self.bases = self
            .docs
            .iter()
            .map(|doc| {
                let (path, text) = changes.base.get_key_value(doc.path)?;
                let text = text.text()?;
                Some(if appended::only_appends(text, doc.text, doc) {
                    Published::Appended
                } else {
                    Published::Changed(Box::new(VotingDoc::parse(path, text)))
                })
            })
            .collect();
        self.tallies = self.docs.iter().map(tally::tally_doc).collect();
    }

    /// Every readable block of every doc: (doc, section, block).
    pub fn blocks(&self) -> impl Iterator<Item = (&VotingDoc<'a>, &Section<'a>, &Block<'a>)> {
        self.docs.iter().flat_map(|doc| doc.blocks().map(move |(s, b)| (doc, s, b)))
    }

    /// Every argument of every readable block: (doc, block, argument).
    pub fn arguments(&self) -> impl Iterator<Item = (&VotingDoc<'a>, &Block<'a>, Argument<'_>)> {
        self.blocks().flat_map(|(doc, _, block)| block.arguments().map(move |a| (doc, block, a)))
    }
}

/// A published doc (on the base) that the change modifies.
pub enum Published<'a> {
    /// The head is the base plus appended votes and arguments, nothing else
    /// (decided from the lines, without parsing the base).
    Appended,
    /// Anything else: the base, parsed, for the rules to compare.
    Changed(Box<VotingDoc<'a>>),
}

/// The span of a node's value as written in `text`, the doc's text.
pub fn at(text: &str, node: Node) -> Span {
    super::spans::node_span(text, node)
}

/// The stable anchor of an argument's field: `section/A/field`.
pub fn anchor(block: &Block, argument: &Argument, field: &str) -> String {
    format!("{}/{}/{field}", block.name(), argument.name())
}

/// Names for a message, the first ten of them: `A, B, C` or `none`.
pub fn listed(names: impl Iterator<Item = String>) -> String {
    let mut names = names.peekable();
    if names.peek().is_none() {
        return "none".to_string();
    }
    let shown: Vec<String> = names.by_ref().take(10).collect();
    let more = names.count();
    if more == 0 { shown.join(", ") } else { format!("{}, and {more} more", shown.join(", ")) }
}
