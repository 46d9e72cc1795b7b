//! The files a repository's config extends, read from disk for `gatehouse
//! check` and `gatehouse config explain`: `--org-config PATH` stands for the
//! organisation's policy (the file the repository's `extends:` names, or,
//! without one, the file it inherits), and a checkout given with
//! `--repo-root OWNER/NAME=DIR` for a file of that repository. A file found
//! in neither is recorded as unreadable, so the config's check says so.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::inherit::{Inheritance, Parent, Source};
use crate::reads;

/// Where `gatehouse check` finds extended configs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Local<'a> {
    pub(crate) org_config: Option<&'a Path>,
    pub(crate) repo_roots: &'a [(String, PathBuf)],
}

impl Local<'_> {
    /// The inheritance of a repository whose config is `text`, with the
    /// organisation's file as its policy when one is given: it stands for
    /// the file `extends:` names, or for the policy a repository without
    /// `extends:` inherits.
    pub(crate) fn inheritance(&self, text: Option<&str>) -> Result<Inheritance> {
        let org = self.org_config.map(|path| Source::file(path.display().to_string()));
        let mut inheritance = Inheritance {
            default_parent: crate::config::inherit::first(text, org.as_ref()).filter(|_| org.is_some()),
            ..Inheritance::default()
        };
        self.complete(&mut inheritance, text)?;
        Ok(inheritance)
    }

    /// Reads every file the chain of `text` needs that `inheritance` lacks.
    pub(crate) fn complete(&self, inheritance: &mut Inheritance, text: Option<&str>) -> Result<()> {
        let first = crate::config::inherit::first(text, inheritance.default_parent.as_ref());
        while let Some(source) = reads::wanted(text, inheritance) {
            let parent = match (&source.repo, self.org_config) {
                (None, _) => read(Path::new(&source.path))?,
                (Some(_), Some(org)) if first.as_ref() == Some(&source) => read(org)?,
                (Some(repo), _) => match self.repo_roots.iter().find(|(name, _)| name.eq_ignore_ascii_case(repo)) {
                    Some((_, dir)) => match std::fs::read_to_string(dir.join(&source.path)) {
                        Ok(text) => Parent::Text(text),
                        Err(e) => Parent::Unreadable(format!("{}: {e}", dir.join(&source.path).display())),
                    },
                    None => Parent::Unreadable(format!(
                        "`gatehouse check` reads it from `--org-config PATH`, or from a checkout of `{repo}` \
                         given with `--repo-root {repo}=DIR`"
                    )),
                },
            };
            inheritance.parents.insert(source, parent);
        }
        Ok(())
    }
}

/// A file named on the command line: one that cannot be read is a usage
/// error, not a finding.
fn read(path: &Path) -> Result<Parent> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read --org-config {}", path.display()))?;
    Ok(Parent::Text(text))
}
