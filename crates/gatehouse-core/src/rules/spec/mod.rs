//! The `spec/*` rules (fondue `spec` protocol v9, seed 003; the engine formats in docs/seed-coverage.md).
//! The family groups the files under `specs.paths` into spec folders, keeps
//! those the change touches, parses each once into a [`Spec`] (state, review
//! folders, stats, the legal path from the base state to the head state),
//! and runs one small pure rule per id over them.

mod answer_coverage;
mod append_only;
mod archive_state;
mod artifact_required;
mod attempts;
mod brief_template;
mod finding_format;
mod gate_evidence;
mod immutable;
mod landed_format;
mod nothing_to_change;
mod plan_copy;
mod reopened_draft;
mod request_fields;
mod research_existing_code;
mod review_numbering;
mod roster;
mod state_grammar;
mod state_missing;
mod state_transition;
mod user_log;
mod verdict;

use std::collections::{BTreeMap, BTreeSet};

use super::Rule;
use crate::config::PathFilter;
use crate::docs::spec::files::{Landed, LandedEvent, StatsRow, parse_landed, parse_stats};
use crate::docs::spec::review::{self, Kind, ReviewFile};
use crate::docs::spec::state::{self, Part, State, StateError, Step, Topic};
use crate::docs::spec::transitions::{Row, shortest_path_by};
use crate::model::{ChangeSet, FileContent, PathLookup};

fn rules<'a>() -> Vec<Rule<SpecView<'a>>> {
    vec![
        state_missing::rule(),
        state_grammar::rule(),
        state_transition::rule(),
        gate_evidence::rule(),
        artifact_required::rule(),
        immutable::rule(),
        append_only::rule(),
        plan_copy::rule(),
        review_numbering::rule(),
        verdict::rule(),
        finding_format::rule(),
        answer_coverage::rule(),
        request_fields::rule(),
        landed_format::rule(),
        nothing_to_change::rule(),
        roster::rule(),
        brief_template::rule(),
        research_existing_code::rule(),
        reopened_draft::rule(),
        attempts::rule(),
        archive_state::rule(),
        user_log::rule(),
    ]
}

declare_family! {
    Specs, Specs, rules, |changes, run| {
        run.unreadable(changes.changed_in(&PathFilter::folders(&changes.config.specs.paths)));
        // The engine reads a touched spec's other files too: every file of
        // the spec folders is read as seen once one is touched.
        let filter = PathFilter::folders(&changes.config.specs.paths);
        let touched = changes.changed_in(&filter).next().is_some() || changes.deleted_in(&filter).next().is_some();
        let folders = filter.select(&changes.head).chain(filter.select(&changes.base)).map(|(path, _)| path.as_str());
        let resolved = if touched { super::resolved(changes, folders) } else { None };
        let written = changes;
        let changes = resolved.as_ref().unwrap_or(changes);
        let view = SpecView { written, ..SpecView::new(changes) };
        run.documents = view.specs.len();
        if let Some(moves) = view.moves() {
            run.details.push(moves);
        }
        run.run(&rules(), &view);
    }
}

/// Files of one spec folder at one revision, by path relative to its root.
pub type Folder<'a> = BTreeMap<&'a str, &'a FileContent>;

/// One file of `review/<topic>/`, parsed.
pub struct ReviewEntry<'a> {
    /// Path relative to the spec root.
    pub rel: &'a str,
    pub name: &'a str,
    /// Number and kind, when the name is `NN-<kind>.md`.
    pub numbered: Option<(u32, Kind)>,
    pub doc: ReviewFile,
}

/// A spec folder the change touches.
pub struct Spec<'a> {
    /// `fondue/specs/<spec>` or `fondue/specs/archive/<spec>` at the head.
    pub root: String,
    pub archived: bool,
    /// Gone from the head without a move into `archive/`.
    pub deleted: bool,
    pub head: Folder<'a>,
    /// The same spec at the base (at its live path when the change archives it).
    pub base: Folder<'a>,
    /// `None` when the head has no `current-state.txt`.
    pub state: Option<Result<State, StateError>>,
    /// The base state, when the base has a well-formed one.
    pub base_state: Option<State>,
    /// `review/<topic>/` folders of the live attempt: folder name → files by name.
    pub reviews: BTreeMap<&'a str, Vec<ReviewEntry<'a>>>,
    pub stats: Vec<StatsRow>,
    /// The well-formed lines of `landed.md`.
    pub landed: Vec<Landed>,
    /// The live attempt's number: one more than the folders in `attempts/`.
    pub attempt: u8,
    /// The highest `NN` of `plan/phase-NN.md`.
    pub last_phase: Option<u8>,
    /// The change adds an `attempts/NN/` folder: a reopen or restart.
    pub reopened: bool,
    /// The state the move starts from: the base state, or `brief` (the
    /// first state) for a new spec.
    pub from: Option<State>,
    /// The legal path `from` → head state, preferring one the disk allows.
    pub path: Option<Vec<(State, &'static Row)>>,
    /// Handover's update runs: the repository has a knowledge base or a
    /// project skill.
    pub update_runs: bool,
}

pub struct SpecView<'a> {
    pub changes: &'a ChangeSet,
    /// The files as written, before their Markdown is resolved as a reader
    /// sees it: for `spec/plan-copy`, whose founding text compares bytes.
    pub written: &'a ChangeSet,
    pub specs: Vec<Spec<'a>>,
    /// The project has a knowledge base (`fondue/kb/index.md`), so handover
    /// requests and answers carry `KB:`.
    pub has_kb: bool,
}

impl<'a> SpecView<'a> {
    /// The specs that are current truth: at the head and not in
    /// `archive/`, which the seed calls "history, never current truth". The
    /// rules on what a live spec's files must hold read only these; an
    /// archived spec is held to `spec/archive-state` and its history.
    pub fn current(&self) -> impl Iterator<Item = &Spec<'a>> {
        self.specs.iter().filter(|s| !s.deleted && !s.archived)
    }
}

/// The knowledge base's index (seed 003, handover).
pub const KB_INDEX: &str = "fondue/kb/index.md";

/// A project skill: `.claude/skills/*/SKILL.md` (seed 003, handover).
fn is_project_skill(path: &str) -> bool {
    path.strip_prefix(".claude/skills/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(name, file)| !name.is_empty() && file == "SKILL.md")
}

/// The head has a knowledge base or a project skill, so handover's update
/// runs. Their absence proves nothing: the seed lets a project ignore
/// `fondue/kb/` in git, so the Arbiter's disk may have one the repository
/// does not.
fn update_runs(changes: &ChangeSet) -> bool {
    let repo = changes.repo.as_deref().unwrap_or(crate::model::LOCAL_REPO);
    changes.head.contains_key(KB_INDEX)
        || changes.head.with_prefix(".claude/skills/").any(|(p, _)| is_project_skill(p))
        || changes.repos.tree(repo, None).is_some_and(|tree| {
            let files = tree.files();
            let skills = files.partition_point(|p| p.as_str() < ".claude/skills/");
            tree.contains_file(KB_INDEX)
                || files[skills..].iter().take_while(|p| p.starts_with(".claude/skills/")).any(|p| is_project_skill(p))
        })
}

/// Where a path sits: (specs folder, archived, spec name, path in the spec).
fn locate<'p>(path: &'p str, folders: &[String]) -> Option<(usize, bool, &'p str, &'p str)> {
    folders.iter().enumerate().find_map(|(i, folder)| {
        let rest = path.strip_prefix(folder.trim_end_matches('/'))?.strip_prefix('/')?;
        let (first, rest) = rest.split_once('/')?;
        if first == "archive" {
            let (name, rel) = rest.split_once('/')?;
            Some((i, true, name, rel))
        } else {
            Some((i, false, first, rest))
        }
    })
}

type Key<'a> = (usize, bool, &'a str);

/// The files of the spec folders in `wanted`, grouped by folder. Each
/// folder's files are one range of the sorted map: a PR touching one spec
/// in a repository of hundreds reads that spec's files alone.
fn group<'a>(
    files: &'a crate::model::Files,
    folders: &[String],
    wanted: &BTreeSet<Key<'_>>,
) -> BTreeMap<Key<'a>, Folder<'a>> {
    let mut out: BTreeMap<Key<'a>, Folder<'a>> = BTreeMap::new();
    for &key in wanted {
        let (i, archived, name) = key;
        let folder = folders[i].trim_end_matches('/');
        let root = if archived { format!("{folder}/archive/{name}/") } else { format!("{folder}/{name}/") };
        for (path, content) in files.with_prefix(&root) {
            // An earlier configured folder may claim the path (folders inside folders).
            if let Some((j, archived, name, rel)) = locate(path, folders)
                && (j, archived, name) == key
            {
                out.entry((j, archived, name)).or_default().insert(rel, content);
            }
        }
    }
    out
}

impl<'a> SpecView<'a> {
    pub fn new(changes: &'a ChangeSet) -> SpecView<'a> {
        let folders = &changes.config.specs.paths;
        // Only folders with an added, changed or deleted file can be touched
        // (with their other location, for moves into the archive); grouping
        // just those keeps a PR in a repository of many specs cheap.
        let filter = PathFilter::folders(folders);
        let mut wanted: BTreeSet<Key<'a>> = BTreeSet::new();
        for path in changes.changed_in(&filter).map(|(p, _)| p).chain(changes.deleted_in(&filter)) {
            if let Some((i, archived, name, _)) = locate(path, folders) {
                wanted.insert((i, archived, name));
                wanted.insert((i, !archived, name));
            }
        }
        let mut head = group(&changes.head, folders, &wanted);
        let mut base = group(&changes.base, folders, &wanted);
        let mut specs = Vec::new();
        let keys: BTreeSet<Key<'a>> = head.keys().chain(base.keys()).copied().collect();
        for key in keys {
            let (i, archived, name) = key;
            let Some(head_files) = head.remove(&key) else {
                // Gone from the head: archived when the archive has it.
                if !archived && head.contains_key(&(i, true, name)) {
                    continue;
                }
                let base_files = base.remove(&key).unwrap_or_default();
                specs.push((key, Folder::new(), base_files));
                continue;
            };
            // A spec the change moves into the archive is touched even when
            // its files are unchanged.
            let (base_files, moved) = match base.remove(&key) {
                Some(files) => (files, false),
                None if archived => match base.get(&(i, false, name)) {
                    Some(files) => (files.clone(), true),
                    None => (Folder::new(), false),
                },
                None => (Folder::new(), false),
            };
            let touched = moved
                || head_files.len() != base_files.len()
                || head_files.iter().any(|(rel, c)| base_files.get(rel) != Some(c));
            if touched {
                specs.push((key, head_files, base_files));
            }
        }
        let repo = changes.repo.as_deref().unwrap_or(crate::model::LOCAL_REPO);
        let has_kb =
            changes.repos.lookup(repo, None, KB_INDEX) == PathLookup::Exists || changes.head.contains_key(KB_INDEX);
        let update = update_runs(changes);
        let specs = specs
            .into_iter()
            .map(|((i, archived, name), head, base)| {
                let folder = folders[i].trim_end_matches('/');
                let root = if archived { format!("{folder}/archive/{name}") } else { format!("{folder}/{name}") };
                Spec::new(root, archived, head, base, update)
            })
            .collect();
        SpecView { changes, written: changes, specs, has_kb }
    }

    /// The check summary's block: each spec's move and the legal path it took.
    fn moves(&self) -> Option<String> {
        let mut lines = Vec::new();
        for spec in &self.specs {
            let Some(Ok(to)) = &spec.state else { continue };
            let from = match (spec.base_state, spec.base.contains_key("current-state.txt")) {
                (Some(s), _) => format!("`{s}`"),
                (None, true) => "a malformed state".to_string(),
                (None, false) => "new".to_string(),
            };
            let via = match &spec.path {
                Some(path) if path.is_empty() => "no move".to_string(),
                Some(path) => {
                    let start = spec.from.map_or(String::new(), |s| format!("`{s}` → "));
                    let steps: Vec<String> = path.iter().map(|(s, _)| format!("`{s}`")).collect();
                    format!("{start}{}", steps.join(" → "))
                }
                None if spec.from.is_none() => "not checked".to_string(),
                None => "**no legal path**".to_string(),
            };
            lines.push(format!("- `{}`: {from} → `{to}` — {via}", spec.root));
        }
        (!lines.is_empty()).then(|| format!("**Spec moves**\n\n{}", lines.join("\n")))
    }
}

impl<'a> Spec<'a> {
    fn new(root: String, archived: bool, head: Folder<'a>, base: Folder<'a>, update_runs: bool) -> Spec<'a> {
        let deleted = head.is_empty();
        let text = |folder: &Folder<'a>, rel: &str| folder.get(rel).and_then(|c| c.text());
        let state = text(&head, "current-state.txt").map(state::parse_file);
        let base_state = text(&base, "current-state.txt").and_then(|t| state::parse_file(t).ok());
        let mut reviews: BTreeMap<&'a str, Vec<ReviewEntry<'a>>> = BTreeMap::new();
        for (rel, content) in &head {
            let Some(rest) = rel.strip_prefix("review/") else { continue };
            let Some((topic, name)) = rest.split_once('/') else { continue };
            if name.contains('/') {
                continue;
            }
            let doc = content.text().map(review::parse).unwrap_or_default();
            reviews.entry(topic).or_default().push(ReviewEntry { rel, name, numbered: review::parse_name(name), doc });
        }
        let stats = text(&head, "stats.md").map(parse_stats).unwrap_or_default();
        let landed = text(&head, "landed.md").map(|t| parse_landed(t).0).unwrap_or_default();
        let last_phase = head
            .keys()
            .filter_map(|rel| rel.strip_prefix("plan/phase-")?.strip_suffix(".md").and_then(state::parse_nn))
            .max();
        let attempts = |f: &Folder<'a>| -> BTreeSet<&'a str> {
            f.keys().filter_map(|r| r.strip_prefix("attempts/")?.split_once('/').map(|(n, _)| n)).collect()
        };
        let head_attempts = attempts(&head);
        let reopened = !head_attempts.is_subset(&attempts(&base));
        let attempt = u8::try_from(head_attempts.len() + 1).unwrap_or(u8::MAX);
        let mut spec = Spec {
            root,
            archived,
            deleted,
            head,
            base,
            state,
            base_state,
            reviews,
            stats,
            landed,
            attempt,
            last_phase,
            reopened,
            from: None,
            path: None,
            update_runs,
        };
        spec.from = match (text(&spec.base, "current-state.txt"), spec.base_state) {
            (Some(_), state) => state,
            (None, _) => Some(State::Brief),
        };
        if let (Some(from), Some(Ok(to))) = (spec.from, spec.state.clone()) {
            let reopen = spec.reopened;
            let by_disk = |a: State, b: State, r: &Row| (reopen || !r.reopen) && spec.condition_fails(a, b).is_none();
            let by_table = |_: State, _: State, r: &Row| reopen || !r.reopen;
            spec.path = shortest_path_by(from, to, &by_disk).or_else(|| shortest_path_by(from, to, &by_table));
        }
        spec
    }

    /// The repo path of a file of this spec.
    pub fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.root)
    }

    pub fn text(&self, rel: &str) -> Option<&'a str> {
        self.head.get(rel).and_then(|c| c.text())
    }

    pub fn base_text(&self, rel: &str) -> Option<&'a str> {
        self.base.get(rel).and_then(|c| c.text())
    }

    pub fn has(&self, rel: &str) -> bool {
        self.head.contains_key(rel)
    }

    /// The head state, when well-formed.
    pub fn state(&self) -> Option<State> {
        self.state.as_ref().and_then(|s| s.as_ref().ok()).copied()
    }

    /// The spec's folder name.
    pub fn name(&self) -> &str {
        self.root.rsplit('/').next().unwrap_or(&self.root)
    }

    /// The brief's title: the text of its first `# ` line, when it has one.
    pub fn title(&self) -> Option<&'a str> {
        self.text("pre-plan/00-brief.md")?
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }

    /// The files of `review/<topic>/`, by name.
    pub fn review(&self, topic: Topic) -> &[ReviewEntry<'a>] {
        self.reviews.get(topic.dir().as_str()).map_or(&[], Vec::as_slice)
    }

    /// The topic's newest file carries a closing verdict (`approved`, `closed`).
    pub fn topic_closed(&self, topic: Topic) -> bool {
        self.review(topic)
            .iter()
            .filter(|e| e.numbered.is_some())
            .max_by_key(|e| e.numbered.map(|n| n.0))
            .and_then(|e| e.doc.verdict())
            .and_then(|v| v.kind)
            .is_some_and(|k| k.closes())
    }

    /// `stats.md` records the reply `result` in `state`.
    pub fn stats_say(&self, state: State, result: &str) -> bool {
        let state = state.to_string();
        self.stats.iter().any(|r| r.state.trim_matches('`') == state && r.result.contains(result))
    }

    /// `landed.md` has the live attempt's line for `event`.
    pub fn landed(&self, event: LandedEvent) -> bool {
        self.landed.iter().any(|l| l.attempt == self.attempt && l.event == event)
    }

    /// A hop the table allows but the disk rules out, and why.
    pub fn condition_fails(&self, prev: State, next: State) -> Option<String> {
        let findings = self.has("audit/findings.md");
        match (prev, next) {
            (State::Implementation(n, _), State::Implementation(_, Step::Draft)) => match self.last_phase {
                Some(last) if n >= last => {
                    Some(format!("phase-{n:02} is the last phase in plan/, so audit:tests:Draft follows it"))
                }
                _ => None,
            },
            (State::Implementation(n, _), State::Audit(Part::Tests, Step::Draft)) => match self.last_phase {
                Some(last) if n < last => {
                    Some(format!("phase-{n:02} is not the last phase: plan/ has phase-{last:02}.md"))
                }
                None => Some("plan/ has no phase-NN.md files".to_string()),
                _ => None,
            },
            (_, State::Audit(Part::Fixes, Step::Draft)) if !findings => {
                Some("audit/findings.md does not exist, and audit-fixes runs only when it does".to_string())
            }
            (State::Audit(Part::Conventions, _), State::HandoverUpdate(_) | State::Handover) if findings => {
                Some("audit/findings.md exists, so audit-fixes runs before handover".to_string())
            }
            (State::Audit(..), State::Handover) if self.update_runs => Some(format!(
                "the project has a knowledge base (`{KB_INDEX}`) or a project skill (`.claude/skills/*/SKILL.md`), so the update `handover:Draft` runs before `handover`"
            )),
            _ => None,
        }
    }

    /// The review and answer files of the live attempt, with their topic.
    pub fn review_files(&self) -> impl Iterator<Item = (Option<Topic>, &ReviewEntry<'a>)> {
        self.reviews.iter().flat_map(|(dir, files)| files.iter().map(move |e| (Topic::parse_dir(dir), e)))
    }
}

/// The first line where `head` departs from `base` (1-based), for an edit.
pub fn first_difference(base: &str, head: &str) -> u32 {
    let mut n = 0;
    let mut b = base.lines();
    for line in head.lines() {
        n += 1;
        if b.next().is_none_or(|b| !crate::docs::seen::same_line(b, line)) {
            return n;
        }
    }
    n.max(1)
}
