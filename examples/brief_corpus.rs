//! Writes issue 18's synthetic repository to a folder, for timing and
//! memory figures of `gatehouse check --all` on the release binary:
//! N briefs citing 50 ADRs, 200 source folders, one brief in ten with an
//! untestable success criterion.
//!
//! ```text
//! cargo run --release --example brief_corpus -- 50000 /tmp/briefs-50k
//! /usr/bin/time -v target/release/gatehouse check --all --repo /tmp/briefs-50k --repo-name gyrum-labs/platform
//! ```

// Only the file-writing half of the bench corpus is used here.
#[allow(dead_code)]
#[path = "../crates/gatehouse-core/corpus/briefs.rs"]
mod briefs;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [count, dir] = args.as_slice() else { bail!("usage: brief_corpus BRIEFS DIR") };
    let count: usize = count.parse().with_context(|| format!("`{count}` is not a number of briefs"))?;
    let dir = PathBuf::from(dir);
    if dir.exists() {
        bail!("{} exists: give a folder to create", dir.display());
    }
    let shape = briefs::issue_18(count);
    for (path, text) in briefs::adrs().chain(briefs::briefs(shape)) {
        write(&dir, &path, &text)?;
    }
    for path in briefs::source_files(shape) {
        write(&dir, &path, "fn main() {}\n")?;
    }
    println!("wrote {count} briefs to {}", dir.display());
    Ok(())
}

fn write(root: &Path, rel: &str, text: &str) -> Result<()> {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("a file under the root"))?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}
