//! Building a ChangeSet from a checkout on disk for `gatehouse check`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::Relevance;
use super::git::{Checkout, Entry, listing};
use super::inherited::Local;
use crate::config::inherit::Inheritance;
use crate::config::{CONFIG_PATH, Config};
use crate::model::{ChangeSet, FileContent, Files, LOCAL_REPO, RepoIndex, RepoTree};
use crate::reads::{self, revisions};

/// What `gatehouse check` was asked to compare.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The checkout (or plain folder with `all`).
    pub dir: PathBuf,
    /// The base revision; default: merge-base of HEAD with the default branch.
    pub base: Option<String>,
    /// The head revision; default: the working tree with uncommitted edits.
    pub head: Option<String>,
    /// Treat every document as new (no base); works on plain folders.
    pub all: bool,
    pub pr_body: Option<String>,
    /// `owner/name` of the checkout; default: from the `origin` remote.
    pub repo_name: Option<String>,
    /// Other repositories' checkouts, for path checks and the configs the
    /// repository's config extends.
    pub repo_roots: Vec<(String, PathBuf)>,
    /// The organisation's config: the file the repository's `extends:`
    /// names, or the one a config without `extends:` inherits.
    pub org_config: Option<PathBuf>,
}

/// The variable naming the organisation's config for every local tool:
/// `check` and `config explain` (beside `--org-config`), and the editor
/// and agent servers, which an editor or agent starts without flags.
pub const ORG_CONFIG_ENV: &str = "GATEHOUSE_ORG_CONFIG";

/// The organisation's config `GATEHOUSE_ORG_CONFIG` names, if any.
pub fn org_config_from_env() -> Option<PathBuf> {
    std::env::var_os(ORG_CONFIG_ENV).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The `owner/name` of the checkout at `dir`, read from its origin remote.
pub(crate) fn origin_name(dir: &Path) -> Option<String> {
    Checkout::find(dir).ok().flatten().and_then(|c| c.origin_name())
}

/// Reads what the request names into a ChangeSet.
pub fn changeset(req: &Request) -> Result<ChangeSet> {
    if !req.dir.is_dir() {
        bail!("{} is not a folder", req.dir.display());
    }
    // With --all, a folder inside some other repository (a fixture, a vendored
    // docs tree) is checked as the plain folder it is.
    let dir = req.dir.canonicalize()?;
    let checkout = Checkout::find(&req.dir)?.filter(|c| !req.all || c.root() == dir.as_path());
    let repo = req.repo_name.clone().or_else(|| checkout.as_ref().and_then(Checkout::origin_name));
    let mut diff = None;
    let local = Local { org_config: req.org_config.as_deref(), repo_roots: &req.repo_roots };
    let mut inheritance: Inheritance;
    let (config, base, head, head_tree, codeowners) = match (&checkout, req.all) {
        (None, false) => {
            bail!("{} is not a git repository; pass --all to check every document in a plain folder", req.dir.display())
        }
        (None, true) => {
            let text = super::fs::config_text(&req.dir)?;
            inheritance = local.inheritance(text.as_deref())?;
            let config = reads::effective_config(text.as_deref(), &inheritance).config;
            let relevance = Relevance::new(&config);
            let (head, tree) = super::fs::snapshot(&req.dir, &relevance, config.limits.max_file_bytes)?;
            (config, Files::new(), head, tree, super::fs::codeowners(&req.dir)?)
        }
        (Some(git), all) => {
            let base =
                if all {
                    None
                } else {
                    Some(git.resolve(
                        req.base.as_deref().map_or_else(|| git.default_base(), |b| Ok(b.to_string()))?.as_str(),
                    )?)
                };
            let base_tree = base.as_deref().map(|b| git.tree(b)).transpose()?;
            let (text, codeowners) = match &base_tree {
                Some(tree) => (config_at(git, tree)?, codeowners_at(git, tree)?),
                None => match &req.head {
                    Some(rev) => {
                        let tree = git.tree(&git.resolve(rev)?)?;
                        (config_at(git, &tree)?, codeowners_at(git, &tree)?)
                    }
                    None => (super::fs::config_text(git.root())?, super::fs::codeowners(git.root())?),
                },
            };
            inheritance = local.inheritance(text.as_deref())?;
            let config = reads::effective_config(text.as_deref(), &inheritance).config;
            let relevance = Relevance::new(&config);
            let limit = config.limits.max_file_bytes;
            if let Some(base) = &base {
                diff = Some(git.numstat(base, req.head.as_deref(), limit)?);
            }
            let base_files = match &base_tree {
                Some(tree) => git.read(&wanted(tree, &relevance), limit)?,
                None => Files::new(),
            };
            let (head_files, head_tree) = match &req.head {
                Some(rev) => {
                    let tree = git.tree(&git.resolve(rev)?)?;
                    (git.read(&wanted(&tree, &relevance), limit)?, listing(&tree))
                }
                None => working_tree(git, &relevance, limit)?,
            };
            (config, base_files, head_files, head_tree, codeowners)
        }
    };
    local.complete(&mut inheritance, head.get(CONFIG_PATH).and_then(FileContent::text))?;
    let mut repos = RepoIndex::default();
    repos.insert(repo.as_deref().unwrap_or(LOCAL_REPO), None, Arc::new(head_tree));
    for (name, dir) in &req.repo_roots {
        repos.insert(name, None, Arc::new(folder_listing(dir)?));
    }
    let mut changes = ChangeSet {
        repo,
        base,
        head,
        repos,
        config,
        inheritance,
        history: checkout.as_ref().map(Checkout::history).transpose()?,
        codeowners,
        ..Default::default()
    };
    changes.pr.body = req.pr_body.clone();
    changes.pr.files = diff;
    load_named_revisions(&mut changes, checkout.as_ref(), &req.repo_roots)?;
    Ok(changes)
}

/// The folder the ChangeSet's paths are relative to: the checkout's root,
/// or with `all` on a folder that is not a checkout's root, that folder.
/// The name of what the change is compared with (`--base`, or the default
/// branch), for messages; `None` with `--all` or outside a git checkout.
pub(crate) fn base_name(req: &Request) -> Option<String> {
    if req.all {
        return None;
    }
    req.base.clone().or_else(|| Checkout::find(&req.dir).ok().flatten()?.default_branch())
}

pub(crate) fn root(req: &Request) -> Result<PathBuf> {
    let dir = req.dir.canonicalize().with_context(|| format!("cannot read {}", req.dir.display()))?;
    Ok(match Checkout::find(&req.dir)?.filter(|c| !req.all || c.root() == dir.as_path()) {
        Some(git) => git.root().to_path_buf(),
        None => dir,
    })
}

fn wanted<'a>(tree: &'a [Entry], relevance: &Relevance) -> Vec<&'a Entry> {
    tree.iter().filter(|e| relevance.wants(&e.path)).collect()
}

/// The text of the config in `tree`, when it has one that is text.
fn config_at(git: &Checkout, tree: &[Entry]) -> Result<Option<String>> {
    let Some(entry) = tree.iter().find(|e| e.path == CONFIG_PATH) else { return Ok(None) };
    let files = git.read(&[entry], Config::default().limits.max_file_bytes)?;
    Ok(files.get(CONFIG_PATH).and_then(FileContent::text).map(str::to_string))
}

/// The CODEOWNERS file GitHub would read in `tree`: the first of its
/// locations there.
fn codeowners_at(git: &Checkout, tree: &[Entry]) -> Result<Option<crate::owners::BaseFile>> {
    for location in crate::owners::LOCATIONS {
        let Some(entry) = tree.iter().find(|e| e.path == location) else { continue };
        let files = git.read(&[entry], Config::default().limits.max_file_bytes)?;
        let text = files.get(location).and_then(FileContent::text).unwrap_or_default();
        return Ok(Some(crate::owners::BaseFile { path: location.to_string(), text: text.to_string() }));
    }
    Ok(None)
}

fn working_tree(git: &Checkout, relevance: &Relevance, limit: u64) -> Result<(Files, RepoTree)> {
    let paths = git.working_files()?;
    let mut files = Files::new();
    for path in paths.iter().filter(|p| relevance.wants(p)) {
        files.insert(path.clone(), super::fs::read(git.root(), path, limit)?);
    }
    Ok((files, RepoTree::new(paths)))
}

/// A checkout's working files when it is a git repository, else every file.
fn folder_listing(dir: &Path) -> Result<RepoTree> {
    if !dir.is_dir() {
        bail!("--repo-root: {} is not a folder", dir.display());
    }
    match Checkout::find(dir)? {
        Some(git) if git.root() == dir.canonicalize()?.as_path() => Ok(RepoTree::new(git.working_files()?)),
        _ => Ok(RepoTree::new(super::fs::list(dir)?)),
    }
}

/// Loads the trees of `owner/repo@rev:path` revisions from the checkouts at hand.
fn load_named_revisions(changes: &mut ChangeSet, own: Option<&Checkout>, roots: &[(String, PathBuf)]) -> Result<()> {
    for (repo, rev) in revisions(changes) {
        let checkout = match roots.iter().find(|(name, _)| name.eq_ignore_ascii_case(&repo)) {
            Some((_, dir)) => Checkout::find(dir)?,
            None if changes.repo.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(&repo)) => own.cloned(),
            None => None,
        };
        let Some(git) = checkout else { continue };
        if let Ok(commit) = git.resolve(&rev) {
            let tree = git.tree(&commit).with_context(|| format!("cannot list {repo}@{rev}"))?;
            changes.repos.insert(&repo, Some(&rev), Arc::new(listing(&tree)));
        }
    }
    Ok(())
}
