//! The workspace the server checks: the checkout on disk, read once as
//! `gatehouse check` reads it, with the editor's open buffers laid over it.
//!
//! In a git checkout the base is the merge base with the default branch,
//! as `gatehouse check` compares; elsewhere (or where git has no default
//! branch) each open document is checked whole, as `gatehouse check --all`
//! checks every one. Both sides lie over one shared map of the files on
//! disk, so an evaluation touches only what differs from the base.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use crate::model::{ChangeSet, FileContent, Files, Report};
use crate::source::Relevance;
use crate::source::git::Checkout;
use crate::source::local::{self, Request};

/// An open document: what the editor holds, classified as a source
/// classifies a file (too large, binary and not-UTF-8 buffers included).
pub(crate) struct Open {
    pub content: FileContent,
    pub version: i32,
}

pub struct Workspace {
    /// The folder the ChangeSet's paths are relative to.
    root: PathBuf,
    /// Whether the base is git's merge base (else open documents are new).
    compared: bool,
    /// What was said about the choice of base, for the client's log.
    pub notes: Vec<String>,
    /// The files on disk (head) and the base, both over one shared map.
    disk: ChangeSet,
    relevance: Relevance,
    /// Open documents by repository path.
    open: BTreeMap<String, Open>,
}

impl Workspace {
    /// Reads the workspace at `dir`.
    pub fn load(dir: &Path) -> Result<Workspace> {
        let mut notes = Vec::new();
        let in_git = Checkout::find(dir)?.is_some();
        let org_config = local::org_config_from_env();
        let compared_request = Request { dir: dir.to_path_buf(), org_config, ..Request::default() };
        let whole_request = Request { all: true, ..compared_request.clone() };
        let (request, changes) = match in_git.then(|| local::changeset(&compared_request)) {
            Some(Ok(changes)) => (compared_request, changes),
            Some(Err(e)) => {
                notes.push(format!("open documents are checked whole, as `check --all` does: {e:#}"));
                let changes = local::changeset(&whole_request)?;
                (whole_request, changes)
            }
            None => (whole_request.clone(), local::changeset(&whole_request)?),
        };
        let compared = !request.all;
        let root = local::root(&request)?;
        let relevance = Relevance::new(&changes.config);
        let disk = share(changes, compared);
        Ok(Workspace { root, compared, notes, disk, relevance, open: BTreeMap::new() })
    }

    /// Reads the workspace again (the config changed, or files beyond
    /// counting did), keeping the open buffers.
    pub(crate) fn reload(&mut self) -> Result<()> {
        let open = std::mem::take(&mut self.open);
        *self = Workspace::load(&self.root)?;
        self.open = open;
        Ok(())
    }

    /// Reads the file at `path` from disk again (gone when it is gone).
    /// Without git its base is what is on disk too: a file is no change.
    pub(crate) fn refresh(&mut self, path: &str) {
        if !self.relevance.wants(path) {
            return;
        }
        let file = self.root.join(path);
        let content = match std::fs::symlink_metadata(&file) {
            Ok(_) => crate::source::fs::read(&self.root, path, self.disk.config.limits.max_file_bytes).ok(),
            Err(_) => None,
        };
        for side in [Some(&mut self.disk.head), (!self.compared).then_some(&mut self.disk.base)].into_iter().flatten() {
            match &content {
                Some(content) => side.insert(path.to_string(), content.clone()),
                None => side.remove(path),
            }
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    pub fn compared(&self) -> bool {
        self.compared
    }

    /// The repository path of `file`, when it lies in the workspace.
    pub(crate) fn relative(&self, file: &Path) -> Option<String> {
        let rel = file.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
        let path = parts?.join("/");
        (!path.is_empty()).then_some(path)
    }

    pub fn open(&mut self, path: String, text: &str, version: i32) {
        let content = FileContent::from_bytes(text.as_bytes(), self.disk.config.limits.max_file_bytes);
        self.open.insert(path, Open { content, version });
    }

    pub(crate) fn close(&mut self, path: &str) {
        self.open.remove(path);
    }

    pub(crate) fn open_paths(&self) -> impl Iterator<Item = (&String, &Open)> {
        self.open.iter()
    }

    /// The text the rules read at `path`: the open buffer, else the file on disk.
    pub(crate) fn text(&self, path: &str) -> Option<Arc<str>> {
        let content = self.open.get(path).map(|o| &o.content).or_else(|| self.disk.head.get(path))?;
        match content {
            FileContent::Text(text) => Some(text.clone()),
            _ => None,
        }
    }

    /// The head the rules see: the disk with the open buffers over it.
    pub(crate) fn head(&self) -> Files {
        let mut head = self.disk.head.clone();
        for (path, open) in &self.open {
            if self.relevance.wants(path) {
                head.insert(path.clone(), open.content.clone());
            }
        }
        head
    }

    /// The repository's own `owner/name`, when the checkout names it.
    pub(crate) fn repository(&self) -> Option<&str> {
        self.disk.repo.as_deref().filter(|name| *name != crate::model::LOCAL_REPO)
    }

    /// The repository's file listing (for paths that exist).
    pub(crate) fn files(&self) -> Vec<String> {
        let name = self.disk.repo.as_deref().unwrap_or(crate::model::LOCAL_REPO);
        self.disk.repos.tree(name, None).map(|t| t.files().to_vec()).unwrap_or_default()
    }

    pub(crate) fn config(&self) -> &crate::config::Config {
        &self.disk.config
    }

    /// Runs the rules over the disk with the open buffers laid over it:
    /// the report `gatehouse check` would give were the buffers saved (each
    /// open document new, without git). Also returns the head it read.
    pub fn evaluate(&mut self) -> (Report, Files) {
        self.evaluate_with(!self.compared)
    }

    /// The open documents checked whole, as `gatehouse check --all` checks
    /// them: every finding each holds, what the change earned or not.
    /// `None` without a base, where [`Workspace::evaluate`] is whole already.
    pub fn evaluate_whole(&mut self) -> Option<Report> {
        self.compared.then(|| self.evaluate_with(true).0)
    }

    /// Evaluates the disk with the open buffers over it; `whole`: each open
    /// document as new.
    fn evaluate_with(&mut self, whole: bool) -> (Report, Files) {
        let (disk_head, disk_base) = (self.disk.head.clone(), self.disk.base.clone());
        self.disk.head = self.head();
        if whole {
            for path in self.open.keys() {
                self.disk.base.remove(path);
            }
        }
        let report = crate::rules::evaluate(&self.disk);
        let head = std::mem::replace(&mut self.disk.head, disk_head);
        self.disk.base = disk_base;
        (report, head)
    }
}

/// `changes` with its head as one shared map and its base laid over it
/// (with `compared`; else the base is the head itself), so what differs
/// is found from the overlays alone.
fn share(mut changes: ChangeSet, compared: bool) -> ChangeSet {
    let shared: Arc<BTreeMap<String, FileContent>> =
        Arc::new(changes.head.iter().map(|(p, c)| (p.clone(), c.clone())).collect());
    let head = Files::over(shared.clone());
    let mut base = Files::over(shared);
    if compared {
        let mut gone: BTreeSet<&String> = changes.head.keys().collect();
        for (path, content) in changes.base.iter() {
            gone.remove(path);
            if head.get(path) != Some(content) {
                base.insert(path.clone(), content.clone());
            }
        }
        for path in gone {
            base.remove(path);
        }
    }
    changes.head = head;
    changes.base = base;
    changes
}
