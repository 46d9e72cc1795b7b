//! Reading a plain folder: every file listed, the relevant ones read.
//! Only regular files are opened, their size checked first; a symbolic link
//! is read as git stores it (its target), never followed; FIFOs and devices
//! are never opened.

use std::fs::FileType;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

use super::Relevance;
use crate::config::{CONFIG_PATH, Config};
use crate::model::{FileContent, Files, RepoTree};

/// Lists every file under `root` (repo-relative, `/`-separated): regular
/// files, links (never followed, so never into a linked folder) and the
/// FIFOs or devices reading reports; `.git` is skipped.
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
            } else {
                let rel = path.strip_prefix(root).expect("walked under root");
                let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                out.push(rel.join("/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads the file at `rel` under `root`, never more than `limit` bytes of
/// it: a link's target text instead of what it points to, a FIFO or device
/// not at all.
pub fn read(root: &Path, rel: &str, limit: u64) -> Result<FileContent> {
    let path = root.join(rel);
    let meta = std::fs::symlink_metadata(&path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&path).with_context(|| format!("cannot read the link {}", path.display()))?;
        return Ok(FileContent::link(rel, &target.to_string_lossy()));
    }
    if !meta.is_file() {
        return Ok(FileContent::NotAFile { kind: kind_of(meta.file_type()) });
    }
    if meta.len() > limit {
        return Ok(FileContent::TooLarge { bytes: meta.len(), limit });
    }
    match read_regular(&path, limit)? {
        Some(bytes) => Ok(FileContent::from_bytes(&bytes, limit)),
        None => Ok(FileContent::NotAFile { kind: "a special file" }),
    }
}

/// The bytes of the regular file at `path`, at most `limit + 1` of them;
/// `None` when what opened is not a regular file (the path was swapped after
/// it was checked).
pub(crate) fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// What a file that is not a regular file is, for a finding's message.
fn kind_of(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        } else if kind.is_socket() {
            return "a socket";
        } else if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    if kind.is_dir() { "a folder" } else { "a special file" }
}

/// The text of the repo config in a folder: `None` when absent, or when it
/// is no text file (the config's check reports it as `doc/unreadable`).
pub(crate) fn config_text(root: &Path) -> Result<Option<String>> {
    if std::fs::symlink_metadata(root.join(CONFIG_PATH)).is_err() {
        return Ok(None);
    }
    Ok(match read(root, CONFIG_PATH, Config::default().limits.max_file_bytes)? {
        FileContent::Text(text) => Some(text.to_string()),
        _ => None,
    })
}

/// The CODEOWNERS file GitHub would read in a folder: the first of its
/// locations there (a file that is no text reads as empty).
pub(crate) fn codeowners(root: &Path) -> Result<Option<crate::owners::BaseFile>> {
    for location in crate::owners::LOCATIONS {
        if std::fs::symlink_metadata(root.join(location)).is_err() {
            continue;
        }
        let text = match read(root, location, Config::default().limits.max_file_bytes)? {
            FileContent::Text(text) => text.to_string(),
            _ => String::new(),
        };
        return Ok(Some(crate::owners::BaseFile { path: location.to_string(), text }));
    }
    Ok(None)
}

/// A folder as a tree listing and the relevant files' contents.
pub(crate) fn snapshot(root: &Path, relevance: &Relevance, limit: u64) -> Result<(Files, RepoTree)> {
    let listing = list(root)?;
    let mut files = Files::new();
    for rel in &listing {
        if relevance.wants(rel) {
            files.insert(rel.clone(), read(root, rel, limit)?);
        }
    }
    Ok((files, RepoTree::new(listing)))
}

/// Builds a ChangeSet from folders: `head` is the change's result, `base`
/// (when given) what it started from; without a base every document is new.
/// The config comes from the base when there is one, merged with the files
/// it extends, read from `others` (checkouts of other repositories, by
/// `owner/name`). `repo` is the folder's `owner/name` when known.
pub fn changeset(
    head: &Path,
    base: Option<&Path>,
    repo: Option<&str>,
    others: &[(String, std::path::PathBuf)],
) -> Result<crate::model::ChangeSet> {
    let local = super::inherited::Local { org_config: None, repo_roots: others };
    let text = config_text(base.unwrap_or(head))?;
    let mut inheritance = local.inheritance(text.as_deref())?;
    local.complete(&mut inheritance, config_text(head)?.as_deref())?;
    let config = crate::reads::effective_config(text.as_deref(), &inheritance).config;
    let relevance = Relevance::new(&config);
    let limit = config.limits.max_file_bytes;
    let (head_files, head_tree) = snapshot(head, &relevance, limit)?;
    let base_files = match base {
        Some(base) => snapshot(base, &relevance, limit)?.0,
        None => Files::new(),
    };
    let mut repos = crate::model::RepoIndex::default();
    repos.insert(repo.unwrap_or(crate::model::LOCAL_REPO), None, std::sync::Arc::new(head_tree));
    for (name, dir) in others {
        repos.insert(name, None, std::sync::Arc::new(RepoTree::new(list(dir)?)));
    }
    Ok(crate::model::ChangeSet {
        repo: repo.map(str::to_string),
        base: base_files,
        head: head_files,
        repos,
        config,
        inheritance,
        codeowners: codeowners(base.unwrap_or(head))?,
        ..Default::default()
    })
}
