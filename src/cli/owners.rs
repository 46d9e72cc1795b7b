//! `gatehouse owners PATH...`: who must approve a change of those paths,
//! and why, as the repository's CODEOWNERS and `.github/gatehouse.yml` say.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::TextOrJson;
use crate::owners::explain;
use crate::source::git::Checkout;
use crate::source::local::{self, Request};

#[derive(clap::Args, Debug)]
pub(super) struct OwnersArgs {
    /// Paths relative to the repository's root, e.g. infra/db/main.tf.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// The repository. At a git checkout's root, CODEOWNERS (the first of
    /// `.github/CODEOWNERS`, `CODEOWNERS`, `docs/CODEOWNERS`) and the config are
    /// read at the base, as `gatehouse check` reads them; in any other folder,
    /// its files.
    #[arg(long, value_name = "DIR", default_value = ".")]
    repo: PathBuf,
    /// The base revision a checkout's files are read at [default: the merge-base of HEAD and
    /// the default branch].
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
}

pub(super) fn run(args: OwnersArgs) -> Result<ExitCode> {
    let dir = args.repo.canonicalize().unwrap_or_else(|_| args.repo.clone());
    let checkout = Checkout::find(&args.repo)?.is_some_and(|c| c.root() == dir.as_path());
    let request = Request { dir: args.repo, all: !checkout, base: args.base, ..Default::default() };
    let changes = local::changeset(&request)?;
    let paths: Vec<&str> = args.paths.iter().map(|p| p.trim_start_matches("./")).collect();
    let found = explain::who_must_approve(&changes, &paths);
    match args.format {
        TextOrJson::Text => {
            let mut out = String::new();
            if let Some(file) = &changes.codeowners {
                for error in file.parse().errors {
                    out.push_str(&format!(
                        "{}:{}:{}: {}: {} (GitHub skips this line)\n",
                        file.path, error.line, error.column, error.kind, error.message
                    ));
                }
            } else {
                out.push_str("no CODEOWNERS file (.github/CODEOWNERS, CODEOWNERS or docs/CODEOWNERS)\n");
            }
            out.push_str(&explain::text(&found));
            super::emit(&out)?;
        }
        TextOrJson::Json => super::emit(&(serde_json::to_string_pretty(&found).expect("plain data") + "\n"))?,
    }
    Ok(ExitCode::SUCCESS)
}
