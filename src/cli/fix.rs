//! `gatehouse check --fix`: applies the verified fixes to the working tree.

use std::fmt::Write as _;
use std::path::{Component, Path};

use anyhow::{Context, Result, bail};

use crate::model::{ChangeSet, FileContent, Finding};
use crate::rules::{Fixed, fix_all};

/// How many rounds of fixing run at most: each round applies every fix
/// offered, and a fix that overlapped one is offered again in the next.
pub(super) const ROUNDS: usize = 10;

/// What `--fix` did, for the caller to print.
pub(super) struct Outcome {
    /// One line per applied fix, then (with `dry_run`) the unified diff.
    pub text: String,
    pub fixed: Fixed,
}

/// Applies every verified fix to the files under `root` (the folder the
/// ChangeSet's paths are relative to), round after round; with `dry_run`
/// writes nothing and returns the diff instead. Only files the change's
/// head read whole as text are written, only inside `root`, only while
/// they still hold what was read.
pub(super) fn apply(root: &Path, changes: &ChangeSet, dry_run: bool) -> Result<Outcome> {
    let fixed = fix_all(changes, ROUNDS, &|_| true);
    let mut text = String::new();
    for finding in &fixed.applied {
        let _ = writeln!(text, "{}", applied_line(finding, dry_run));
    }
    let limit = changes.config.limits.max_file_bytes;
    let edited: Vec<(&str, &str, &str)> = fixed
        .changes
        .head
        .iter()
        .filter_map(|(path, content)| {
            let before = changes.head.get(path)?.text()?;
            let after = content.text()?;
            (before != after).then_some((path.as_str(), before, after))
        })
        .collect();
    for (path, before, after) in &edited {
        let file = inside(root, path)?;
        let bom = still_as_read(&file, path, before, limit)?;
        if dry_run {
            text.push_str(&unified_diff(path, before, after));
        } else {
            let mut bytes = Vec::with_capacity(after.len() + 3);
            if bom {
                bytes.extend_from_slice("\u{feff}".as_bytes());
            }
            bytes.extend_from_slice(after.as_bytes());
            std::fs::write(&file, bytes).with_context(|| format!("cannot write {}", file.display()))?;
        }
    }
    if fixed.unfinished {
        let _ =
            writeln!(text, "note: fixes were still offered after {ROUNDS} rounds; run `gatehouse check --fix` again");
    }
    Ok(Outcome { text, fixed })
}

fn applied_line(f: &Finding, dry_run: bool) -> String {
    let verb = if dry_run { "would fix" } else { "fixed" };
    let what = f.fix.as_ref().map_or("", |fix| fix.message.as_str());
    format!("{verb}[{}]: {what}\n  --> {}:{}", f.rule, f.path, f.span.line)
}

/// `root/path`, refused when `path` could lead out of `root` (an absolute
/// path, a `..`) or names a link.
fn inside(root: &Path, path: &str) -> Result<std::path::PathBuf> {
    let rel = Path::new(path);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        bail!("refusing to fix `{path}`: the path leads out of the repository");
    }
    let file = root.join(rel);
    let meta = std::fs::symlink_metadata(&file).with_context(|| format!("cannot read {}", file.display()))?;
    if !meta.is_file() {
        bail!("refusing to fix `{path}`: it is not a regular file");
    }
    let canonical = file.canonicalize()?;
    if !canonical.starts_with(root.canonicalize()?) {
        bail!("refusing to fix `{path}`: it lies outside the repository");
    }
    Ok(file)
}

/// Whether the file still holds `text` as read (with or without the byte
/// order mark it was read without, which the answer says); an error when
/// it changed, or cannot be read whole, since it was checked.
fn still_as_read(file: &Path, path: &str, text: &str, limit: u64) -> Result<bool> {
    let bytes = crate::source::fs::read_regular(file, limit)?
        .with_context(|| format!("refusing to fix `{path}`: it is not a regular file"))?;
    match FileContent::from_bytes(&bytes, limit) {
        FileContent::Text(now) if &*now == text => Ok(bytes.starts_with("\u{feff}".as_bytes())),
        FileContent::Text(_) => bail!("refusing to fix `{path}`: it changed while gatehouse checked it"),
        _ => bail!("refusing to fix `{path}`: it cannot be read whole as text"),
    }
}

/// A unified diff of `before` → `after` for `path`, as `git diff` prints one.
fn unified_diff(path: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}
