//! The simulated GitHub's file trees: read from a folder, and the
//! content-addressed ids it gives commits and blobs.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

/// Repo-relative path → bytes.
pub type Tree = BTreeMap<String, Vec<u8>>;

/// Reads every file under `dir` into a tree, by repo-relative
/// `/`-separated path; `.git` is skipped and links are never followed into
/// a folder.
pub fn tree_from_dir(dir: &Path) -> Result<Tree> {
    let mut tree = Tree::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).with_context(|| format!("cannot read folder {}", folder.display()))?;
        for entry in entries {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                if entry.file_name() != ".git" {
                    folders.push(path);
                }
                continue;
            }
            let rel = path.strip_prefix(dir).expect("walked under dir").components();
            let rel = rel.map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            let bytes = std::fs::read(&path).with_context(|| format!("cannot read {rel}"))?;
            tree.insert(rel, bytes);
        }
    }
    Ok(tree)
}

/// The commit id the simulated GitHub gives a tree (content-addressed).
pub fn commit_sha(tree: &Tree, salt: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(salt.as_bytes());
    for (path, bytes) in tree {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hex::encode(hasher.finalize())[..40].to_string()
}

/// The object id the simulated GitHub gives a file's bytes: git's, the
/// SHA-1 of `blob <length>\0` and the bytes, as GitHub names blobs (so a
/// checkout of a simulated commit has the blob ids GitHub showed).
pub fn blob_sha(bytes: &[u8]) -> String {
    use sha1::Digest as _;
    let mut hasher = sha1::Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_named_as_git_names_them() {
        // `printf 'hello' | git hash-object --stdin`
        assert_eq!(blob_sha(b"hello"), "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0");
    }

    #[test]
    fn reads_nested_files_by_slash_path_without_git() {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["docs/adr", ".git"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        }
        std::fs::write(dir.path().join("docs/adr/ADR-001.md"), "# ADR-001").unwrap();
        std::fs::write(dir.path().join("README.md"), "hello").unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main").unwrap();
        let tree = tree_from_dir(dir.path()).unwrap();
        assert_eq!(tree.keys().collect::<Vec<_>>(), ["README.md", "docs/adr/ADR-001.md"]);
        assert_eq!(tree["docs/adr/ADR-001.md"], b"# ADR-001");
        assert!(tree_from_dir(&dir.path().join("missing")).is_err());
    }
}
