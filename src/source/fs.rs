//! Reading a plain folder: every file listed, the relevant ones read.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

use super::Relevance;
use crate::config::{CONFIG_PATH, Config, ConfigError};
use crate::model::{FileContent, Files, RepoTree};

/// Lists every file under `root` (repo-relative, `/`-separated), skipping `.git`.
pub fn list(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).with_context(|| format!("cannot read folder {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
            } else if kind.is_file() {
                let rel = path.strip_prefix(root).expect("walked under root");
                let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                out.push(rel.join("/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads one file, never more than `limit` bytes of it.
pub fn read(path: &Path, limit: u64) -> Result<FileContent> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata()?.len();
    if size > limit {
        return Ok(FileContent::TooLarge { bytes: size, limit });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(FileContent::from_bytes(&bytes, limit))
}

/// Reads the repo config in a folder: defaults when absent.
pub fn config(root: &Path) -> Result<(Config, Vec<ConfigError>)> {
    let path = root.join(CONFIG_PATH);
    if !path.exists() {
        return Ok((Config::default(), Vec::new()));
    }
    match read(&path, Config::default().limits.max_file_bytes)? {
        FileContent::Text(text) => Ok(Config::parse(&text)),
        _ => Ok((
            Config::default(),
            vec![ConfigError { line: 1, col: 1, message: "the config is not UTF-8 text within 1 MB".into() }],
        )),
    }
}

/// A folder as a tree listing and the relevant files' contents.
pub fn snapshot(root: &Path, relevance: &Relevance, limit: u64) -> Result<(Files, RepoTree)> {
    let listing = list(root)?;
    let mut files = Files::new();
    for rel in &listing {
        if relevance.wants(rel) {
            files.insert(rel.clone(), read(&root.join(rel), limit)?);
        }
    }
    Ok((files, RepoTree::new(listing)))
}

/// Builds a ChangeSet from folders: `head` is the change's result, `base`
/// (when given) what it started from; without a base every document is new.
/// The config comes from the base when there is one. `repo` is the folder's
/// `owner/name` when known; `others` are checkouts of other repositories.
pub fn changeset(
    head: &Path,
    base: Option<&Path>,
    repo: Option<&str>,
    others: &[(String, std::path::PathBuf)],
) -> Result<crate::model::ChangeSet> {
    let (config, _) = config(base.unwrap_or(head))?;
    let relevance = Relevance::new(&config);
    let limit = config.limits.max_file_bytes;
    let (head_files, head_tree) = snapshot(head, &relevance, limit)?;
    let base_files = match base {
        Some(base) => snapshot(base, &relevance, limit)?.0,
        None => Files::new(),
    };
    let mut repos = crate::model::RepoIndex::default();
    repos.insert(repo.unwrap_or(crate::rules::brief::LOCAL_REPO), None, std::sync::Arc::new(head_tree));
    for (name, dir) in others {
        repos.insert(name, None, std::sync::Arc::new(RepoTree::new(list(dir)?)));
    }
    Ok(crate::model::ChangeSet {
        repo: repo.map(str::to_string),
        base: base_files,
        head: head_files,
        repos,
        config,
        ..Default::default()
    })
}
