//! `gatehouse gate simulate`: a review policy evaluated offline against
//! GitHub's own JSON, so a maintainer can test a policy before merging it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::TextOrJson;
use crate::gate;
use crate::model::{ChangeSet, ChangedFile};
use crate::owners::{BaseFile, Directory, Members, TeamRef};

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
    /// The base's CODEOWNERS file, for `review.owners: codeowners` and branch rules requiring
    /// code owners.
    #[arg(long, value_name = "FILE")]
    codeowners: Option<PathBuf>,
    /// The PR's changed files: `gh api repos/OWNER/REPO/pulls/NUMBER/files > files.json`.
    #[arg(long, value_name = "FILE")]
    files: Option<PathBuf>,
    /// A changed file (repeatable), besides --files.
    #[arg(long = "path", value_name = "PATH")]
    paths: Vec<String>,
    /// Teams' members as JSON, `{"@org/team": ["login", ...]}`.
    #[arg(long, value_name = "FILE")]
    teams: Option<PathBuf>,
    /// A team's members (repeatable): `@org/team=alice,bob`.
    #[arg(long = "team", value_name = "@ORG/TEAM=LOGINS")]
    team: Vec<String>,
    /// An account GitHub marks as a bot (repeatable); `name[bot]` logins are bots already.
    #[arg(long = "bot", value_name = "LOGIN")]
    bots: Vec<String>,
    /// The PR's author, whose approval never counts.
    #[arg(long, value_name = "LOGIN")]
    author: Option<String>,
    /// An assignee of the PR (repeatable).
    #[arg(long = "assignee", value_name = "LOGIN")]
    assignees: Vec<String>,
    /// The base branch's review rules as JSON (required approvals, code owner review, required
    /// reviewers, each with its ruleset), as `gatehouse::owners::ReviewRules` reads them.
    #[arg(long, value_name = "FILE")]
    branch_rules: Option<PathBuf>,
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

/// The change as the gate reads it: the changed files, the base's
/// CODEOWNERS and branch rules.
fn change(args: &SimulateArgs, config: crate::config::Config) -> Result<ChangeSet> {
    let mut changes = ChangeSet { config, ..Default::default() };
    let mut files: Vec<ChangedFile> = Vec::new();
    if let Some(path) = &args.files {
        let listed: Vec<serde_json::Value> = serde_json::from_str(&read(path, "--files")?)
            .with_context(|| format!("{} is not GitHub's list of a pull request's files", path.display()))?;
        for file in &listed {
            let Some(name) = file["filename"].as_str() else {
                bail!("{}: a file without `filename`; pass `gh api repos/OWNER/REPO/pulls/N/files`", path.display())
            };
            let count = |key: &str| file[key].as_u64().unwrap_or(0);
            files.push(ChangedFile {
                path: name.to_string(),
                additions: count("additions"),
                deletions: count("deletions"),
            });
        }
    }
    files.extend(args.paths.iter().map(|p| ChangedFile { path: p.clone(), additions: 0, deletions: 0 }));
    changes.pr.files = Some(files);
    if let Some(path) = &args.codeowners {
        let text = read(path, "--codeowners")?;
        let shown = path.to_string_lossy().replace('\\', "/");
        let name =
            crate::owners::LOCATIONS.iter().find(|l| shown.ends_with(**l)).map_or(shown.clone(), |l| l.to_string());
        changes.codeowners = Some(BaseFile { path: name, text });
    }
    if let Some(path) = &args.branch_rules {
        changes.branch_rules = serde_json::from_str(&read(path, "--branch-rules")?).with_context(|| {
            format!("{} is not a branch's review rules (see `gatehouse gate simulate --help`)", path.display())
        })?;
    }
    Ok(changes)
}

/// Teams, bots, the author and assignees from the flags.
fn directory(args: &SimulateArgs) -> Result<Directory> {
    let mut directory = Directory {
        author: args.author.clone().unwrap_or_default(),
        assignees: args.assignees.clone(),
        bots: args.bots.iter().map(|b| b.to_ascii_lowercase()).collect(),
        ..Default::default()
    };
    if let Some(path) = &args.teams {
        let teams: std::collections::BTreeMap<String, Vec<String>> = serde_json::from_str(&read(path, "--teams")?)
            .with_context(|| format!("{}: write `{{\"@org/team\": [\"login\", ...]}}`", path.display()))?;
        for (name, members) in teams {
            let Some(team) = TeamRef::parse(&name) else { bail!("{}: `{name}` is no `@org/team`", path.display()) };
            directory.teams.insert(team, Members::Read(members));
        }
    }
    for given in &args.team {
        let Some((name, members)) = given.split_once('=') else { bail!("--team {given}: write `@org/team=alice,bob`") };
        let Some(team) = TeamRef::parse(name) else { bail!("--team {given}: `{name}` is no `@org/team`") };
        let members = members.split(',').map(str::trim).filter(|m| !m.is_empty()).map(str::to_string).collect();
        directory.teams.insert(team, Members::Read(members));
    }
    Ok(directory)
}

pub(super) fn simulate(args: SimulateArgs) -> Result<ExitCode> {
    let (config, errors) = crate::rules::read_config(&read(&args.config, "--config")?);
    if !errors.is_empty() {
        let lines: Vec<String> =
            errors.iter().map(|e| format!("{}:{}:{}: {}", args.config.display(), e.line, e.col, e.message)).collect();
        bail!("the config is invalid:\n{}", lines.join("\n"));
    }
    let Some(policy) = config.review.clone() else {
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
    let Some(head) = args.head.clone().or(last) else {
        bail!("the head commit is unknown: pass --head SHA or --commits FILE");
    };
    let changes = change(&args, config)?;
    let directory = directory(&args)?;
    let contents = gate::Contents::default();
    let inputs = gate::Inputs {
        reviews: &reviews,
        commit_authors: &authors,
        head: &head,
        contents: &contents,
        directory: &directory,
    };
    let outcome = gate::evaluate_change(&changes, &policy, &inputs);
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
