//! `gatehouse gate simulate`: a review policy evaluated offline against
//! GitHub's own JSON, so a maintainer can test a policy before merging it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::TextOrJson;
use crate::gate;

#[derive(clap::Args, Debug)]
pub(super) struct SimulateArgs {
    /// A `.github/gatehouse.yml` whose `review:` policy to evaluate.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The PR's reviews: `gh api repos/OWNER/REPO/pulls/NUMBER/reviews > reviews.json`.
    #[arg(long, value_name = "FILE")]
    reviews: PathBuf,
    /// The PR's commits (`…/pulls/NUMBER/commits`): commit authors are recused.
    #[arg(long, value_name = "FILE")]
    commits: Option<PathBuf>,
    /// The PR's head commit, one of --commits [default: the last of them].
    #[arg(long, value_name = "SHA")]
    head: Option<String>,
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
}

fn read(path: &PathBuf, what: &str) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {what} {}", path.display()))
}

/// A `--head` must be one of the pull request's commits: reviews on any
/// other commit would all be judged stale.
fn refuse_unknown_head(head: &str, commits_json: &str, path: &Path) -> Result<()> {
    let commits: Vec<serde_json::Value> = serde_json::from_str(commits_json).unwrap_or_default();
    let shas: Vec<&str> = commits.iter().filter_map(|c| c["sha"].as_str()).collect();
    if shas.contains(&head) {
        return Ok(());
    }
    let last = shas.last().map_or_else(String::new, |sha| format!(" (the last, the usual head, is {sha})"));
    bail!("--head {head} is none of the {} commits in {}{last}; pass a full sha from it", shas.len(), path.display())
}

pub(super) fn simulate(args: SimulateArgs) -> Result<ExitCode> {
    let (config, errors) = crate::rules::read_config(&read(&args.config, "--config")?);
    if !errors.is_empty() {
        let lines: Vec<String> =
            errors.iter().map(|e| format!("{}:{}:{}: {}", args.config.display(), e.line, e.col, e.message)).collect();
        bail!("the config is invalid:\n{}", lines.join("\n"));
    }
    let Some(policy) = config.review else {
        bail!(
            "{} has no `review:` policy to simulate; add one with the team's reviewers:\n\n{}",
            args.config.display(),
            crate::config::REVIEW_EXAMPLE
        );
    };
    let reviews = crate::github::reviews::parse_reviews(&read(&args.reviews, "--reviews")?)
        .with_context(|| format!("in {}", args.reviews.display()))?;
    let (authors, last) = match &args.commits {
        Some(path) => {
            let json = read(path, "--commits")?;
            let found =
                crate::github::reviews::commit_authors(&json).with_context(|| format!("in {}", path.display()))?;
            if let Some(head) = &args.head {
                refuse_unknown_head(head, &json, path)?;
            }
            found
        }
        None => (Vec::new(), None),
    };
    let Some(head) = args.head.or(last) else {
        bail!("the head commit is unknown: pass --head SHA or --commits FILE");
    };
    let outcome = gate::evaluate(&policy, &reviews, &authors, &head);
    match args.format {
        TextOrJson::Json => {
            let mut value = serde_json::to_value(&outcome).expect("plain data");
            value["missing_text"] = serde_json::json!(outcome.missing_lines());
            super::emit(&(serde_json::to_string_pretty(&value).expect("plain data") + "\n"))?;
        }
        TextOrJson::Text => super::emit(&format!("{}\n", outcome.summary()))?,
    }
    Ok(if outcome.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
