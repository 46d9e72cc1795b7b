//! The `gatehouse` command line. `main.rs` only calls [`main`].

mod explain;
mod gate;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use crate::render::{self, Format};
use crate::source::local::{self, Request};

/// Structural merge gates for the documents AI agents run from.
#[derive(Parser, Debug)]
#[command(name = "gatehouse", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check what a change does to briefs, voting docs, spec folders and decisions.
    ///
    /// Compares the working tree (or --head) with the merge-base of HEAD and the
    /// default branch (or --base), and prints what the pull request would show.
    /// Exit status: 0 no error findings, 1 error findings, 2 usage or setup failure.
    Check(CheckArgs),
    /// List every rule: id, default severity, what it checks.
    Rules,
    /// Explain a rule: why it exists, a failing and a passing example.
    Explain {
        /// A rule id, e.g. brief/path-missing.
        rule: String,
    },
    /// The review gate.
    #[command(subcommand)]
    Gate(GateCommand),
    /// Tally a voting doc: per section the weighted totals, quorum, margin and state.
    ///
    /// Exit status: 0 when every section tallied, 2 when the document cannot be read.
    Tally {
        /// A voting doc, e.g. dark-factory/guidelines/smoke-spec-path@v1.md.
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
        format: TextOrJson,
    },
}

#[derive(Subcommand, Debug)]
enum GateCommand {
    /// Evaluate a review policy offline against a PR's reviews and commits.
    ///
    /// Exit status: 0 when the gate passes, 1 when it does not, 2 on bad input.
    Simulate(gate::SimulateArgs),
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// The checkout to check (a plain folder works with --all).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The base revision [default: merge-base of HEAD with origin/HEAD, main or master].
    #[arg(long, conflicts_with = "all")]
    base: Option<String>,
    /// The head revision [default: the working tree, uncommitted edits included].
    #[arg(long)]
    head: Option<String>,
    /// Treat every document as new: no base.
    #[arg(long)]
    all: bool,
    /// A file holding the pull request's body, for rules that read it.
    #[arg(long, value_name = "FILE")]
    pr_body: Option<PathBuf>,
    /// Another repository's checkout for path checks, as owner/name=DIR (repeatable).
    #[arg(long = "repo-root", value_name = "OWNER/NAME=DIR", value_parser = parse_repo_root)]
    repo_roots: Vec<(String, PathBuf)>,
    /// The checkout's owner/name [default: from the origin remote].
    #[arg(long, value_name = "OWNER/NAME")]
    repo_name: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// `--format` for commands that print a human report or JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TextOrJson {
    Text,
    Json,
}

fn parse_repo_root(s: &str) -> Result<(String, PathBuf), String> {
    let (name, dir) = s.split_once('=').ok_or("expected OWNER/NAME=DIR")?;
    if !crate::docs::pathref::is_repo_name(name) {
        return Err(format!("`{name}` is not an owner/name repository name"));
    }
    Ok((name.to_string(), PathBuf::from(dir)))
}

/// Runs the command line; usage and setup failures exit 2.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check(args),
        Command::Gate(GateCommand::Simulate(args)) => gate::simulate(args),
        Command::Tally { file, format } => tally(&file, format),
        Command::Rules => {
            print!("{}", explain::rules());
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { rule } => {
            let Some(info) = crate::rules::find(&rule) else {
                bail!("no rule `{rule}`; `gatehouse rules` lists them all");
            };
            print!("{}", explain::explain(info));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn tally(file: &std::path::Path, format: TextOrJson) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let path = file.to_string_lossy();
    let report = crate::rules::voting::tally_document(&path, &text).map_err(|e| anyhow::anyhow!("{e}"))?;
    match format {
        TextOrJson::Text => print!("{}", crate::rules::voting::render_text(&report)),
        TextOrJson::Json => println!("{}", serde_json::to_string_pretty(&report).expect("plain data")),
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs) -> Result<ExitCode> {
    if let Some(name) = &args.repo_name
        && !crate::docs::pathref::is_repo_name(name)
    {
        bail!("--repo-name `{name}` is not an owner/name repository name");
    }
    let pr_body = args
        .pr_body
        .as_ref()
        .map(|p| std::fs::read_to_string(p).with_context(|| format!("cannot read --pr-body {}", p.display())))
        .transpose()?;
    let request = Request {
        dir: args.repo,
        base: args.base,
        head: args.head,
        all: args.all,
        pr_body,
        repo_name: args.repo_name,
        repo_roots: args.repo_roots,
    };
    let changes = local::changeset(&request)?;
    let report = crate::rules::evaluate(&changes);
    let output = match args.format {
        Format::Text => render::text(&report, &changes),
        Format::Json => render::json(&report) + "\n",
        Format::Sarif => render::sarif(&report) + "\n",
        Format::Github => render::github(&report),
    };
    print!("{output}");
    Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
