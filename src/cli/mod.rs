//! The `gatehouse` command line. `main.rs` only calls [`main`].

mod attest;
mod config;
pub(crate) mod explain;
mod fix;
mod gate;
mod init;
mod new_brief;
mod owners;
mod prompt;
mod register;
mod searched;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use crate::render::{self, Format};
use crate::source::local::{self, ORG_CONFIG_ENV, Request};

/// Structural merge gates for the documents AI agents run from.
#[derive(Parser, Debug)]
#[command(name = "gatehouse", version, about)]
pub(crate) struct Cli {
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
    Rules {
        #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
        format: TextOrJson,
    },
    /// Explain a rule: why it exists, a failing and a passing example.
    Explain {
        /// A rule id, e.g. brief/path-missing.
        rule: String,
    },
    /// The review gate.
    #[command(subcommand)]
    Gate(GateCommand),
    /// Who must approve a change of PATHs, and why: the CODEOWNERS line deciding each path's
    /// owners, the earlier lines it overrides, and the rosters of `.github/gatehouse.yml`.
    ///
    /// Exit status: 0 explained, 2 when the repository cannot be read.
    Owners(owners::OwnersArgs),
    /// The repository's config.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Register the GitHub App through GitHub's manifest flow and save its credentials.
    ///
    /// Serves one page on loopback whose button creates the App on GitHub from
    /// app-manifest.yml; on GitHub's return the App id, private key and webhook
    /// secret are written to --out (never printed), with the `gatehouse serve`
    /// command that uses them.
    Register(register::RegisterArgs),
    /// Run the GitHub App: receive webhooks, check pull requests, post check runs.
    ///
    /// Secrets come from the environment (or --env-file) only: GATEHOUSE_PRIVATE_KEY
    /// (or a key file) and GATEHOUSE_WEBHOOK_SECRET (comma-separated to rotate).
    /// Each flag falls back to --env-file, then to its environment variable.
    Serve(Box<serve::ServeArgs>),
    /// Check that a running App is ready: exit 0 when URL answers 200 within a second.
    ///
    /// Otherwise exit 1 with the reason on one line. For container healthchecks.
    Probe {
        /// [default: /readyz on GATEHOUSE_BIND, or http://127.0.0.1:3000/readyz]
        url: Option<String>,
        /// KEY=VALUE lines, as `serve` reads them: GATEHOUSE_BIND from here wins over the environment.
        #[arg(long, value_name = "FILE")]
        env_file: Option<PathBuf>,
    },
    /// Show the App at work on a simulated GitHub: a demo pull request's check
    /// runs and review comments, as its author would see them.
    #[cfg(feature = "demo")]
    Demo,
    /// Write a starter .github/gatehouse.yml: the paths of the documents found
    /// in the repository and the team's review policy, validated.
    ///
    /// The review policy is asked on a terminal, or given with --reviewer,
    /// --required and --advisory (--no-review for none). Never overwrites.
    /// Exit status: 0 written, 2 when it cannot be.
    Init(init::InitArgs),
    /// Scaffold a governed document.
    #[command(subcommand)]
    New(NewCommand),
    /// Print the JSON Schema (draft 2020-12) of a document kind, for editors and agents.
    ///
    /// The same schemas are committed under `schemas/`.
    Schema {
        #[arg(value_enum)]
        kind: crate::schema::Kind,
    },
    /// Write a static web site of the repository's governed documents.
    ///
    /// The decision queue and review feed, the standards ledgers with their
    /// tallies, the specs' stages and reviews, and every brief, each page with
    /// the findings of `gatehouse check --all`. Self-contained HTML: no
    /// script, no external fonts or styles. Exit status: 0 when the site is
    /// written (error findings are shown in it), 2 when it cannot be.
    Site(SiteArgs),
    /// Serve the Language Server Protocol on stdio, for editors.
    ///
    /// Diagnostics from the rules `check` runs as documents are typed, the
    /// verified fixes as code actions, hover, go to definition and completion.
    /// The workspace is the client's root folder (or the current one).
    Lsp,
    /// Serve the Model Context Protocol on stdio, for agents.
    ///
    /// Tools: check, explain, rules, new_brief, fix, tally, gate_simulate and verify,
    /// each with JSON Schemas for its input and output.
    Mcp,
    /// Gate attestations: the App's signing key.
    #[command(subcommand)]
    Attest(AttestCommand),
    /// Verify that the governed documents at HEAD are the texts that passed the gate.
    ///
    /// Each document (or each PATH) is judged against the gate attestations a
    /// trusted key signed: verified, unattested, changed after the gate (with
    /// the diff from the gated text), or bad signature. Exit status: 0 every
    /// document verified, 1 one unattested or changed after the gate, 2 usage
    /// or setup failure, 3 an attestation naming one has a bad signature.
    Verify(attest::VerifyArgs),
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
enum NewCommand {
    /// Write an agent brief (ADR-099) after checking its ADRs, repositories and agent id.
    ///
    /// The frontmatter is filled in and each cited ADR's binding text quoted; the
    /// success criteria and out-of-scope placeholders are reported by `gatehouse
    /// check` until filled. Exit status: 0 written, 1 refused (with the findings
    /// `check` would print; nothing is written), 2 usage or setup failure.
    Brief(new_brief::NewBriefArgs),
}

#[derive(Subcommand, Debug)]
enum AttestCommand {
    /// Print the public key of the App's attestation key (PEM), then the other keys it trusts.
    ///
    /// Give the output to `gatehouse verify --key`.
    Key(attest::KeyArgs),
}

#[derive(Subcommand, Debug)]
enum ConfigCommand {
    /// Print every effective value of the config: where it came from (a file and line, or the
    /// default and the seed that sets it) and the lock that holds it.
    ///
    /// Merges `.github/gatehouse.yml` with the files it extends. Exit status: 0 explained, 1 when
    /// the config has an error (the checks would not be evaluated), 2 when it cannot be read.
    Explain(config::ExplainArgs),
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
    /// The organisation's gatehouse.yml: the file the repository's `extends:` names, or the one a
    /// repository without `extends:` inherits.
    #[arg(long, value_name = "PATH", env = ORG_CONFIG_ENV)]
    org_config: Option<PathBuf>,
    /// Output format: text for a terminal, json for agents, sarif for code scanning, github for
    /// workflow annotations, markdown for a file that asks for it (a job summary)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Apply the verified fixes to the working tree, round after round, then
    /// report what remains.
    #[arg(long, conflicts_with = "head")]
    fix: bool,
    /// With --fix: print each fix and a unified diff; write nothing.
    #[arg(long, requires = "fix")]
    dry_run: bool,
}

#[derive(clap::Args, Debug)]
struct SiteArgs {
    /// The checkout or plain folder whose documents are shown.
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The folder the pages are written to (created when missing).
    #[arg(long, default_value = "site")]
    out: PathBuf,
    /// The instant ages are counted to, RFC 3339 [default: now].
    #[arg(long, value_name = "TIMESTAMP")]
    as_of: Option<String>,
    /// The checkout's owner/name, as the pages name it [default: from the origin remote].
    #[arg(long, value_name = "OWNER/NAME")]
    repo_name: Option<String>,
}

/// `--format` for commands that print a human report or JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TextOrJson {
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

/// Standard output was closed (`gatehouse … | head`): the command stops.
#[derive(Debug, thiserror::Error)]
#[error("standard output is closed")]
pub(crate) struct StdoutClosed;

/// The exit status of a Unix tool stopped by a closed pipe (128 + SIGPIPE).
const CLOSED_PIPE_EXIT: u8 = 141;

/// Writes `text` to standard output, its control characters other than
/// newlines and tabs escaped (nothing a document holds reaches the terminal
/// raw). A closed pipe is [`StdoutClosed`].
pub(crate) fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let text = render::escape_controls(text, render::Keep::LinesAndTabs);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        written => Ok(written.context("cannot write to standard output")?),
    }
}

/// `println!` through [`emit`]: control characters escaped, a closed pipe
/// returned as [`StdoutClosed`] from the calling function.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::emit(&format!("{}\n", format_args!($($arg)*)))?
    };
}
pub(crate) use outln;

/// Runs the command line; usage and setup failures exit 2.
/// The App configuration `gatehouse serve ARGS` runs with (`args` after
/// `serve`): each flag, else `--env-file`, else the environment.
pub fn serve_config(args: &[&str]) -> Result<crate::app::AppConfig> {
    let args = ["gatehouse", "serve"].iter().chain(args).map(std::ffi::OsString::from).collect();
    match serve::parse(args)?.command {
        Command::Serve(serve) => serve::config(*serve),
        _ => unreachable!("parsed as `serve`"),
    }
}

pub fn main() -> ExitCode {
    let cli = match serve::parse(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(e) => match e.downcast::<clap::Error>() {
            Ok(e) => {
                let _ = e.print();
                return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
            }
            Err(e) => {
                eprintln!("error: {}", render::escape_controls(&format!("{e:#}"), render::Keep::LinesAndTabs));
                return ExitCode::from(2);
            }
        },
    };
    match run(cli) {
        Ok(code) => code,
        // Quietly, as Unix tools stop when the reader of their output is gone.
        Err(e) if e.is::<StdoutClosed>() => ExitCode::from(CLOSED_PIPE_EXIT),
        Err(e) => {
            eprintln!("error: {}", render::escape_controls(&format!("{e:#}"), render::Keep::LinesAndTabs));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check(args),
        Command::Gate(GateCommand::Simulate(args)) => gate::simulate(args),
        Command::Owners(args) => owners::run(args),
        Command::Attest(AttestCommand::Key(args)) => attest::key(args),
        Command::Verify(args) => attest::run(args),
        Command::Config(ConfigCommand::Explain(args)) => config::explain(args),
        Command::Tally { file, format } => tally(&file, format),
        Command::Mcp => {
            crate::mcp::serve()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Lsp => Ok(if crate::lsp::serve(std::io::stdin(), std::io::stdout())? {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }),
        Command::New(NewCommand::Brief(args)) => new_brief::run(args),
        Command::Init(args) => init::run(args),
        Command::Schema { kind } => {
            emit(&crate::schema::render(kind))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Register(args) => register::run(args),
        Command::Site(args) => site(args),
        Command::Serve(args) => serve::run(*args),
        Command::Probe { url, env_file } => {
            let file = env_file.map(|path| crate::app::env_file::read(&path)).transpose()?.unwrap_or_default();
            let bind = file.get("GATEHOUSE_BIND").cloned().or_else(|| std::env::var("GATEHOUSE_BIND").ok());
            Ok(probe(url, bind))
        }
        #[cfg(feature = "demo")]
        Command::Demo => {
            crate::demo::run()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Rules { format } => {
            emit(&match format {
                TextOrJson::Text => explain::rules(),
                TextOrJson::Json => explain::rules_json(),
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { rule } => {
            let Some(info) = crate::rules::find(&rule) else {
                match gatehouse_core::suggest::did_you_mean(&explain::nearest_rules(&rule)) {
                    Some(suggestion) => bail!("no rule `{rule}`; {suggestion} (`gatehouse rules` lists them all)"),
                    None => bail!("no rule `{rule}`; `gatehouse rules` lists them all"),
                }
            };
            emit(&explain::explain(info))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `gatehouse explain RULE`'s text, for the language server's hover.
pub(crate) fn explain_text(rule: &crate::rules::RuleInfo) -> String {
    explain::explain(rule)
}

/// Every failure exits 1: Docker reserves a healthcheck's exit status 2.
fn probe(url: Option<String>, bind: Option<String>) -> ExitCode {
    let outcome = url.map_or_else(|| crate::app::probe::default_url(bind.as_deref()), Ok).and_then(|url| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
        runtime.block_on(crate::app::probe::probe(&url)).map(|()| url)
    });
    match outcome {
        Ok(url) => {
            // A closed pipe after a success is still a success.
            let _ = emit(&format!("ready: {url} answered 200\n"));
            ExitCode::SUCCESS
        }
        Err(reason) => {
            eprintln!("not ready: {reason}");
            ExitCode::from(1)
        }
    }
}

fn tally(file: &std::path::Path, format: TextOrJson) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let path = file.to_string_lossy();
    let report = crate::docs::voting::tally::tally_document(&path, &text).map_err(|e| anyhow::anyhow!("{e}"))?;
    match format {
        TextOrJson::Text => emit(&crate::docs::voting::tally::render_text(&report))?,
        TextOrJson::Json => {
            let evaluated = vote_entry_findings(&path, &text);
            let findings = evaluated
                .checks
                .iter()
                .flat_map(|c| c.findings.iter().map(move |f| render::finding_json(f, c.check)))
                .collect();
            let json = TallyJson { tally: &report, findings };
            emit(&(serde_json::to_string_pretty(&json).expect("plain data") + "\n"))?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gatehouse tally --format json`: the tally, and why votes are left out
/// as findings in the one shape (`$defs/tally` of `gatehouse schema report`).
#[derive(serde::Serialize)]
struct TallyJson<'a> {
    #[serde(flatten)]
    tally: &'a crate::docs::voting::tally::TallyReport,
    /// The `voting/vote-entry` findings: each names the vote it leaves out.
    findings: Vec<render::FindingOut<'a>>,
}

/// The report on `text` read as a new voting doc at `path`, holding only its
/// `voting/vote-entry` findings.
fn vote_entry_findings(path: &str, text: &str) -> crate::model::Report {
    let mut changes = crate::model::ChangeSet::default();
    changes.head.insert(path.to_string(), crate::model::FileContent::Text(text.into()));
    changes.config.voting.paths = vec!["**".to_string()];
    let mut report = crate::rules::evaluate(&changes);
    for check in &mut report.checks {
        check.findings.retain(|f| f.rule == "voting/vote-entry");
    }
    report
}

fn site(args: SiteArgs) -> Result<ExitCode> {
    if let Some(name) = &args.repo_name
        && !crate::docs::pathref::is_repo_name(name)
    {
        bail!("--repo-name `{name}` is not an owner/name repository name");
    }
    let now = match &args.as_of {
        Some(text) => {
            crate::docs::timestamp::parse(text)
                .with_context(|| format!("--as-of `{text}` is not an RFC 3339 timestamp like 2026-07-06T09:30:00Z"))?
                .seconds
        }
        None => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64),
    };
    let request = Request { dir: args.repo.clone(), all: true, repo_name: args.repo_name, ..Request::default() };
    let changes = local::changeset(&request)?;
    let repo = changes.repo.clone().unwrap_or_else(|| args.repo.display().to_string());
    let (report, site) = crate::site::build(&changes, &crate::site::Options { now, repo });
    if searched::found_nothing(&report) {
        eprint!("No site written in {}. {}", args.repo.display(), searched::explain(&changes, None));
        return Ok(ExitCode::from(2));
    }
    crate::site::write(&site, &args.out)?;
    outln!(
        "wrote {} pages to {}; open {}",
        site.pages.len(),
        args.out.display(),
        args.out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// When no family found a document to check, says where gatehouse looked,
/// so an empty report is not mistaken for a clean one.
/// `base`: the name of what a branch's change was compared with; `None`:
/// every document was checked (`--all`).
fn nothing_found(
    report: &crate::model::Report,
    changes: &crate::model::ChangeSet,
    base: Option<&str>,
) -> Option<String> {
    if !searched::found_nothing(report) {
        return None;
    }
    Some(format!("\n{}", searched::explain(changes, base)))
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
        org_config: args.org_config,
    };
    let changes = local::changeset(&request)?;
    let base = (!args.all).then(|| local::base_name(&request).unwrap_or_else(|| "the base".into()));
    let (changes, report) = if args.fix {
        let outcome = fix::apply(&local::root(&request)?, &changes, args.dry_run)?;
        let report = outcome.fixed.report;
        if args.dry_run {
            emit(&outcome.text)?;
            return Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS });
        }
        match args.format {
            Format::Text => emit(&outcome.text)?,
            _ => eprint!("{}", render::escape_controls(&outcome.text, render::Keep::LinesAndTabs)),
        }
        (outcome.fixed.changes, report)
    } else {
        let report = crate::rules::evaluate(&changes);
        (changes, report)
    };
    let output = match args.format {
        Format::Text => {
            render::text(&report, &changes) + &nothing_found(&report, &changes, base.as_deref()).unwrap_or_default()
        }
        Format::Json => render::json(&report) + "\n",
        Format::Sarif => render::sarif(&report) + "\n",
        Format::Github => render::github(&report),
        Format::Markdown => render::markdown(&report),
    };
    emit(&output)?;
    Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
