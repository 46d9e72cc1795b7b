//! Reading a git checkout with the `git` command: revisions, trees and blobs
//! in a handful of processes (`ls-tree`, one `cat-file --batch`), and the
//! working tree including uncommitted edits.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::model::{ChangedFile, FileContent, Files, RepoTree};

/// A git checkout on disk.
#[derive(Clone, Debug)]
pub(crate) struct Checkout {
    root: PathBuf,
}

/// A git command that exited with an error, and git's reason.
#[derive(Debug, thiserror::Error)]
#[error("`git {command}` failed: {reason}")]
pub(crate) struct Failure {
    pub command: String,
    pub reason: String,
}

/// Why a git command failed in git's words (its standard error), or its
/// exit status when it printed nothing.
fn reason(out: &std::process::Output) -> String {
    let said = String::from_utf8_lossy(&out.stderr);
    match said.trim() {
        "" => format!("git printed no reason ({})", out.status),
        said => said.to_string(),
    }
}

/// One file of a tree: its path, blob id and size, and whether it is a
/// symbolic link (whose blob is the path it points to).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub path: String,
    pub blob: String,
    pub size: u64,
    pub link: bool,
}

impl Checkout {
    /// The checkout containing `dir`, or `None` when `dir` is not in a git repository.
    pub(crate) fn find(dir: &Path) -> Result<Option<Checkout>> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--show-toplevel"])
            .stderr(Stdio::null())
            .output()
            .context("cannot run `git`; is it installed?")?;
        if !out.status.success() {
            return Ok(None);
        }
        let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok(Some(Checkout { root: PathBuf::from(root) }))
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    fn git(&self, args: &[&str]) -> Result<Vec<u8>> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(args)
            .output()
            .with_context(|| format!("cannot run `git {}`; is it installed?", args.join(" ")))?;
        if !out.status.success() {
            return Err(Failure { command: args.join(" "), reason: reason(&out) }.into());
        }
        Ok(out.stdout)
    }

    fn git_text(&self, args: &[&str]) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.git(args)?).trim().to_string())
    }

    /// Resolves a revision to a commit id; an error ends with git's reason
    /// and what to pass instead.
    pub(crate) fn resolve(&self, rev: &str) -> Result<String> {
        let root = self.root.display();
        if rev.starts_with('-') {
            bail!("`{rev}` is not a revision: a revision does not start with `-`");
        }
        // `--` makes git read the argument as a revision only, and say why
        // it is none ("bad revision", "expected commit type").
        match self.git_text(&["rev-parse", &format!("{rev}^{{commit}}"), "--"]) {
            Ok(out) => Ok(out.lines().next().unwrap_or_default().to_string()),
            Err(e) => {
                let reason = e.downcast_ref::<Failure>().map_or_else(|| format!("{e:#}"), |f| f.reason.clone());
                bail!(
                    "`{rev}` is not a commit in {root}: git says: {reason}\n\
                     help: pass a branch, tag or commit id that `git -C {root} log --oneline --all` lists; \
                     a branch only on a remote needs `git fetch` first"
                )
            }
        }
    }

    fn exists(&self, rev: &str) -> bool {
        self.resolve(rev).is_ok()
    }

    /// The branch the default base is taken from: origin/HEAD (by the name
    /// it points to, `origin/main`), else main, else master.
    pub(crate) fn default_branch(&self) -> Option<String> {
        let branch = ["origin/HEAD", "main", "master"].into_iter().find(|r| self.exists(r))?;
        match branch {
            "origin/HEAD" => Some(self.git_text(&["rev-parse", "--abbrev-ref", branch]).unwrap_or(branch.into())),
            _ => Some(branch.to_string()),
        }
    }

    /// The default base: the merge-base of HEAD with origin/HEAD, else main,
    /// else master.
    pub(crate) fn default_base(&self) -> Result<String> {
        let Some(branch) = ["origin/HEAD", "main", "master"].into_iter().find(|r| self.exists(r)) else {
            bail!("no default branch to compare with (tried origin/HEAD, main, master); pass --base REV or --all");
        };
        self.git_text(&["merge-base", "HEAD", branch]).map_err(|e| match e.downcast_ref::<Failure>() {
            Some(f) => anyhow::anyhow!(
                "HEAD and {branch} have no common ancestor: `git {}` failed: {}\nhelp: pass --base REV",
                f.command,
                f.reason
            ),
            None => e,
        })
    }

    /// `owner/name` from the `origin` remote's URL, when it has one.
    pub(crate) fn origin_name(&self) -> Option<String> {
        let url = self.git_text(&["remote", "get-url", "origin"]).ok()?;
        repo_from_url(&url)
    }

    /// Every file of a commit's tree.
    pub(crate) fn tree(&self, rev: &str) -> Result<Vec<Entry>> {
        let raw = self.git(&["ls-tree", "-r", "-z", "--long", "--full-tree", rev])?;
        let mut entries = Vec::new();
        for record in raw.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let record = String::from_utf8_lossy(record);
            let Some((meta, path)) = record.split_once('\t') else { continue };
            let fields: Vec<&str> = meta.split_whitespace().collect();
            if fields.len() == 4 && fields[1] == "blob" {
                entries.push(Entry {
                    path: path.to_string(),
                    blob: fields[2].to_string(),
                    size: fields[3].parse().unwrap_or(0),
                    link: fields[0] == "120000",
                });
            }
        }
        Ok(entries)
    }

    /// Reads the wanted entries of a tree through one `git cat-file --batch`.
    /// Entries over `limit` bytes are never read; a link is its target text.
    pub(crate) fn read(&self, entries: &[&Entry], limit: u64) -> Result<Files> {
        let mut files = Files::new();
        let to_read: Vec<&&Entry> = entries.iter().filter(|e| e.size <= limit).collect();
        for e in entries.iter().filter(|e| e.size > limit) {
            files.insert(e.path.clone(), FileContent::TooLarge { bytes: e.size, limit });
        }
        if to_read.is_empty() {
            return Ok(files);
        }
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot run `git cat-file`")?;
        let mut stdin = child.stdin.take().expect("piped");
        let requests: String = to_read.iter().map(|e| format!("{}\n", e.blob)).collect();
        let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        for entry in to_read {
            let mut header = String::new();
            out.read_line(&mut header)?;
            let size: usize = header
                .split_whitespace()
                .nth(2)
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("unexpected `git cat-file` answer for {}: {header}", entry.path))?;
            let mut bytes = vec![0; size + 1];
            out.read_exact(&mut bytes)?;
            bytes.pop();
            let content = if entry.link {
                FileContent::link(&entry.path, &String::from_utf8_lossy(&bytes))
            } else {
                FileContent::from_bytes(&bytes, limit)
            };
            files.insert(entry.path.clone(), content);
        }
        writer.join().expect("writer thread").context("cannot feed `git cat-file`")?;
        child.wait()?;
        Ok(files)
    }

    /// The working tree's files: tracked and untracked-but-not-ignored,
    /// without the ones deleted on disk. Links count as files (git stores
    /// them so) and are not followed.
    pub(crate) fn working_files(&self) -> Result<Vec<String>> {
        let raw = self.git(&["ls-files", "-z", "--cached", "--others", "--exclude-standard"])?;
        let mut seen = BTreeSet::new();
        for path in raw.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            let path = String::from_utf8_lossy(path).into_owned();
            if std::fs::symlink_metadata(self.root.join(&path)).is_ok_and(|m| !m.is_dir()) {
                seen.insert(path);
            }
        }
        Ok(seen.into_iter().collect())
    }

    /// The diff's files with line counts, from `base` to `head` (or to the
    /// working tree, untracked files included). An untracked file's lines are
    /// counted only when it is a regular file within `limit` bytes (a link
    /// is one line, its target, as git stores it); nothing else is opened.
    pub(crate) fn numstat(&self, base: &str, head: Option<&str>, limit: u64) -> Result<Vec<ChangedFile>> {
        let mut args = vec!["diff", "--numstat", "-z", "--no-renames", base];
        args.extend(head);
        let raw = self.git(&args)?;
        let mut files = Vec::new();
        for record in raw.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let record = String::from_utf8_lossy(record);
            let mut parts = record.splitn(3, '\t');
            let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
            // Binary files report `-`: they count as changed, with no lines.
            files.push(ChangedFile {
                path: path.to_string(),
                additions: added.parse().unwrap_or(0),
                deletions: deleted.parse().unwrap_or(0),
            });
        }
        if head.is_none() {
            let untracked = self.git(&["ls-files", "-z", "--others", "--exclude-standard"])?;
            for path in untracked.split(|b| *b == 0).filter(|p| !p.is_empty()) {
                let path = String::from_utf8_lossy(path).into_owned();
                let additions = untracked_lines(&self.root.join(&path), limit);
                files.push(ChangedFile { path, additions, deletions: 0 });
            }
        }
        Ok(files)
    }

    /// The bytes of blob `id`, or `None` when the repository does not hold it.
    pub(crate) fn blob(&self, id: &str) -> Option<Vec<u8>> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.git(&["cat-file", "blob", id]).ok()
    }

    /// The last commit of HEAD's history that changed `path`: its short id
    /// and subject, when git has one.
    pub(crate) fn last_commit(&self, path: &str) -> Option<String> {
        let line = self.git_text(&["log", "-1", "--format=%h \"%s\"", "HEAD", "--", path]).ok()?;
        (!line.is_empty()).then_some(line)
    }

    /// The repository's git directory (`.git` in a plain clone).
    pub(crate) fn git_dir(&self) -> Result<PathBuf> {
        let dir = PathBuf::from(self.git_text(&["rev-parse", "--git-dir"])?);
        Ok(if dir.is_absolute() { dir } else { self.root.join(dir) })
    }

    /// Every commit id reachable from any ref.
    pub(crate) fn history(&self) -> Result<BTreeSet<String>> {
        let raw = self.git_text(&["rev-list", "--all"])?;
        Ok(raw.lines().map(str::to_string).collect())
    }
}

/// The lines of an untracked file, as `git diff` would count them once added.
fn untracked_lines(path: &Path, limit: u64) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => 1,
        Ok(meta) if meta.is_file() && meta.len() <= limit => {
            let bytes = super::fs::read_regular(path, limit).ok().flatten().unwrap_or_default();
            bytes.iter().filter(|c| **c == b'\n').count() as u64
        }
        _ => 0,
    }
}

/// The tree listing of entries.
pub(crate) fn listing(entries: &[Entry]) -> RepoTree {
    RepoTree::new(entries.iter().map(|e| e.path.clone()).collect())
}

/// `owner/name` from a GitHub-style remote URL (https, ssh or scp form).
pub(crate) fn repo_from_url(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    let path = if let Some((_, rest)) = url.split_once("://") {
        rest.split_once('/')?.1
    } else if url.starts_with(['/', '.']) {
        return None;
    } else {
        url.split_once(':')?.1
    };
    let mut parts = path.rsplit('/');
    let name = parts.next()?;
    let owner = parts.next()?;
    let repo = format!("{owner}/{name}");
    crate::docs::pathref::is_repo_name(&repo).then_some(repo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_names_from_remote_urls() {
        assert_eq!(repo_from_url("https://github.com/gyrum-labs/infra.git").as_deref(), Some("gyrum-labs/infra"));
        assert_eq!(repo_from_url("git@github.com:gyrum-labs/infra.git").as_deref(), Some("gyrum-labs/infra"));
        assert_eq!(repo_from_url("ssh://git@ghe.corp:22/o/r").as_deref(), Some("o/r"));
        assert_eq!(repo_from_url("/tmp/plain-folder"), None);
        assert_eq!(repo_from_url("../sibling"), None);
    }
}
