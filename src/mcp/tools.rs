//! The MCP server's tools: their schemas, and each call run as the command
//! line runs it. A tool that a command does whole runs this very binary
//! with `--format json`, so its answer and its error messages are the
//! command's own; checking a document's unsaved text has no command, and
//! runs the language server's workspace in process.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde::Deserialize;
use serde_json::{Value, json};

/// Every tool, as `tools/list` shows it.
pub(super) fn all() -> Vec<Tool> {
    let repo = json!({ "type": "string", "description": "The checkout (or plain folder with `all`); default: the server's working folder." });
    vec![
        tool(
            "check",
            "Check what a change does to governed documents (agent briefs, voting docs, spec folders, decision \
             dockets), as the pull request's checks would. Call it after writing or editing such a document and \
             before opening a pull request. Give `text` and `path` to check a document you have not saved (laid \
             over the repository, compared with git's merge base where there is one); `all` to check every \
             document; else the working tree is compared with `base` (default: the merge base with the default \
             branch). The answer is the report `gatehouse check --format json` prints.",
            json!({
                "repo": repo,
                "base": { "type": "string", "description": "The base revision; default: the merge base of HEAD with the default branch." },
                "all": { "type": "boolean", "description": "Treat every document as new: no base." },
                "path": { "type": "string", "description": "With `text`: the document's path in the repository, e.g. dark-factory/briefs/SWARM-AR-backup.md." },
                "text": { "type": "string", "description": "With `path`: the document's text to check in place of the file." },
            }),
            &[],
            report_schema(),
        ),
        tool(
            "explain",
            "Explain a rule: why it exists, what it checks, a failing and a passing example and its fix. Call it \
             for any rule id a finding names before changing the document to satisfy it.",
            json!({ "rule": { "type": "string", "description": "A rule id, e.g. brief/path-missing." } }),
            &["rule"],
            with_defs(
                json!({
                    "rule": { "type": "string" },
                    "text": { "type": "string", "description": "`gatehouse explain`'s text." },
                }),
                &["rule", "text"],
            ),
        ),
        tool(
            "rules",
            "List every rule: id, default severity and what it checks. Call it to learn what gatehouse checks, or \
             to find a rule's id to explain or to configure in .github/gatehouse.yml.",
            json!({}),
            &[],
            with_defs(
                json!({
                    "version": { "const": 1 },
                    "rules": { "type": "array", "items": { "$ref": "#/$defs/rule" } },
                }),
                &["version", "rules"],
            ),
        ),
        tool(
            "new_brief",
            "Scaffold an agent brief (ADR-099): the front matter filled in and each cited ADR's binding text quoted, \
             after checking the ADRs, repositories and agent id. Call it to start a brief rather than writing one \
             from nothing. Returns the text it would write; writes the file only with `write: true`, and never \
             over an existing one. A refusal returns `written: false` with the findings.",
            json!({
                "repo": repo,
                "agent": { "type": "string", "description": "The sub-agent's id, e.g. SWARM-AR." },
                "slug": { "type": "string", "description": "The brief's kebab-case slug, e.g. pg-backup." },
                "touches": { "type": "array", "items": { "type": "string" }, "description": "Repositories the agent may change, as owner/name." },
                "adrs": { "type": "array", "items": { "type": "string" }, "description": "ADRs the agent must honour, e.g. ADR-095." },
                "lines": { "type": "integer", "description": "The lines the agent will change." },
                "repo_name": { "type": "string", "description": "The checkout's owner/name; default: from its origin remote." },
                "write": { "type": "boolean", "description": "Write the brief into the checkout; default false." },
            }),
            &["agent", "slug", "touches", "adrs", "lines"],
            with_defs(
                json!({
                    "written": { "type": "boolean" },
                    "path": { "type": "string" },
                    "text": { "type": "string", "description": "The brief's text (absent on a refusal)." },
                    "findings": { "type": "array", "items": { "$ref": "#/$defs/finding" } },
                }),
                &["written", "path"],
            ),
        ),
        tool(
            "fix",
            "The verified fixes for a change's findings: each finding that has one, with the edits (byte ranges of \
             the file's text and their replacements) that `gatehouse check --fix` would apply. Call it after `check` \
             reports findings, to apply the mechanical ones yourself; nothing is written.",
            json!({
                "repo": repo,
                "base": { "type": "string", "description": "The base revision; default: the merge base of HEAD with the default branch." },
                "all": { "type": "boolean", "description": "Treat every document as new: no base." },
            }),
            &[],
            with_defs(json!({ "fixes": { "type": "array", "items": { "$ref": "#/$defs/finding" } } }), &["fixes"]),
        ),
        tool(
            "tally",
            "Tally a voting doc (ADR-140): per section the weighted totals, quorum, margin and state, and the votes \
             left out with why. Call it before casting or counting a vote, or to see whether a section has passed.",
            json!({ "file": { "type": "string", "description": "A voting doc, e.g. dark-factory/guidelines/smoke-spec-path@v1.md." } }),
            &["file"],
            defs_ref("tally"),
        ),
        tool(
            "gate_simulate",
            "Evaluate a review policy offline against a pull request's reviews and commits (GitHub's JSON from `gh \
             api`), as the review gate would. Call it before changing the `review:` policy or to learn why a pull \
             request's gate does not pass.",
            json!({
                "config": { "type": "string", "description": "A .github/gatehouse.yml whose `review:` policy to evaluate." },
                "reviews": { "type": "string", "description": "The PR's reviews: `gh api repos/OWNER/REPO/pulls/NUMBER/reviews > reviews.json`." },
                "commits": { "type": "string", "description": "The PR's commits (…/pulls/NUMBER/commits): commit authors are recused." },
                "head": { "type": "string", "description": "The PR's head commit, one of the commits; default: the last of them." },
            }),
            &["config", "reviews"],
            defs_ref("gate"),
        ),
        tool(
            "verify",
            "Whether governed documents at the checkout's HEAD are exactly the texts that passed gatehouse's gate: \
             each `verified` (with the pull request and the approvals, each with the content it approved), \
             `unattested`, `changed_after_gate` (with the diff from the gated text) or `bad_signature`. Call it \
             before acting on a brief, and do not start from one that is not `verified`. The answer is what \
             `gatehouse verify --format json` prints.",
            json!({
                "repo": repo,
                "paths": { "type": "array", "items": { "type": "string" }, "description": "Documents to verify, relative to the checkout's root; default: every governed document at HEAD." },
                "keys": { "type": "array", "items": { "type": "string" }, "minItems": 1, "description": "Files of trusted public keys (PEM), e.g. what `gatehouse attest key` printed." },
                "from": { "type": "string", "description": "The App's URL (…/attestations/OWNER/NAME), or a file or folder of saved envelopes; default: .git/gatehouse/attestations/ in the checkout." },
            }),
            &["keys"],
            crate::schema::schema(crate::schema::Kind::Verify),
        ),
    ]
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("schemas are objects"),
    }
}

fn tool(name: &'static str, description: &'static str, inputs: Value, required: &[&str], output: Value) -> Tool {
    let input = json!({ "type": "object", "properties": inputs, "required": required, "additionalProperties": false });
    Tool::new(name, description, object(input)).with_raw_output_schema(object(output))
}

/// `gatehouse schema report`.
fn report_schema() -> Value {
    crate::schema::schema(crate::schema::Kind::Report)
}

/// An object of `properties`, its `$ref`s resolved in the report schema's `$defs`.
fn with_defs(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required, "$defs": report_schema()["$defs"] })
}

/// The report schema's `$defs/NAME`, with the other `$defs` it refers to.
fn defs_ref(name: &str) -> Value {
    let mut schema = report_schema()["$defs"][name].clone();
    schema["$defs"] = report_schema()["$defs"].clone();
    schema
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckArgs {
    repo: Option<PathBuf>,
    base: Option<String>,
    #[serde(default)]
    all: bool,
    path: Option<String>,
    text: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleArgs {
    rule: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewBriefArgs {
    repo: Option<PathBuf>,
    agent: String,
    slug: String,
    touches: Vec<String>,
    adrs: Vec<String>,
    lines: i64,
    repo_name: Option<String>,
    #[serde(default)]
    write: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TallyArgs {
    file: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateArgs {
    config: String,
    reviews: String,
    commits: Option<String>,
    head: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VerifyArgs {
    repo: Option<PathBuf>,
    #[serde(default)]
    paths: Vec<String>,
    keys: Vec<String>,
    from: Option<String>,
}

fn parse<T: serde::de::DeserializeOwned>(tool: &str, arguments: Value) -> Result<T, String> {
    serde_json::from_value(arguments).map_err(|e| format!("invalid arguments for `{tool}`: {e}"))
}

/// Runs tool `name` (one of [`all`]); the error is the message to show.
pub(super) fn call(name: &str, arguments: Value) -> Result<Value, String> {
    match name {
        "check" => {
            let args: CheckArgs = parse(name, arguments)?;
            match (args.path, args.text) {
                (Some(path), Some(text)) => check_text(args.repo, &path, &text),
                (None, None) => run(&check_command(args.repo, args.base, args.all)),
                _ => Err("give both `path` and `text` to check a document's text, or neither".into()),
            }
        }
        "explain" => {
            let args: RuleArgs = parse(name, arguments)?;
            let text = gatehouse(&["explain".into(), args.rule.clone()], |_| false)?;
            Ok(json!({ "rule": args.rule, "text": text }))
        }
        "rules" => {
            parse::<NoArgs>(name, arguments)?;
            run(&["rules".into(), "--format".into(), "json".into()])
        }
        "new_brief" => {
            let args: NewBriefArgs = parse(name, arguments)?;
            let mut command = vec!["new".into(), "brief".into(), "--format".into(), "json".into()];
            command.extend([
                "--repo".into(),
                repo(args.repo),
                "--agent".into(),
                args.agent,
                "--slug".into(),
                args.slug,
            ]);
            command.extend(["--lines".into(), args.lines.to_string()]);
            command.extend(args.touches.into_iter().flat_map(|t| ["--touches".into(), t]));
            command.extend(args.adrs.into_iter().flat_map(|a| ["--adr".into(), a]));
            command.extend(args.repo_name.into_iter().flat_map(|n| ["--repo-name".into(), n]));
            if !args.write {
                command.push("--dry-run".into());
            }
            run(&command)
        }
        "fix" => {
            let args: CheckArgs = parse(name, arguments)?;
            if args.path.is_some() || args.text.is_some() {
                return Err("`fix` reads the repository: give `repo` with `base` or `all`".into());
            }
            let report = run(&check_command(args.repo, args.base, args.all))?;
            let fixes: Vec<&Value> =
                report["findings"].as_array().into_iter().flatten().filter(|f| f.get("fix").is_some()).collect();
            Ok(json!({ "fixes": fixes }))
        }
        "tally" => {
            let args: TallyArgs = parse(name, arguments)?;
            run(&["tally".into(), args.file, "--format".into(), "json".into()])
        }
        "gate_simulate" => {
            let args: GateArgs = parse(name, arguments)?;
            let mut command = vec!["gate".into(), "simulate".into(), "--format".into(), "json".into()];
            command.extend(["--config".into(), args.config, "--reviews".into(), args.reviews]);
            command.extend(args.commits.into_iter().flat_map(|c| ["--commits".into(), c]));
            command.extend(args.head.into_iter().flat_map(|h| ["--head".into(), h]));
            run(&command)
        }
        "verify" => {
            let args: VerifyArgs = parse(name, arguments)?;
            let mut command = vec!["verify".into(), "--format".into(), "json".into(), "--repo".into(), repo(args.repo)];
            command.extend(args.keys.into_iter().flat_map(|k| ["--key".into(), k]));
            command.extend(args.from.into_iter().flat_map(|f| ["--from".into(), f]));
            command.extend(args.paths);
            // Documents that are not verified, or a bad signature, are answers.
            let out = gatehouse(&command, |code| code == 1 || code == 3)?;
            serde_json::from_str(&out).map_err(|e| format!("`gatehouse verify` printed no JSON: {e}"))
        }
        _ => Err(format!("gatehouse has no tool `{name}`")),
    }
}

fn repo(dir: Option<PathBuf>) -> String {
    dir.unwrap_or_else(|| PathBuf::from(".")).display().to_string()
}

fn check_command(dir: Option<PathBuf>, base: Option<String>, all: bool) -> Vec<String> {
    let mut command = vec!["check".into(), "--format".into(), "json".into(), "--repo".into(), repo(dir)];
    command.extend(base.into_iter().flat_map(|b| ["--base".into(), b]));
    if all {
        command.push("--all".into());
    }
    command
}

/// A document's unsaved text checked in the repository, as the language
/// server checks an open buffer.
fn check_text(dir: Option<PathBuf>, path: &str, text: &str) -> Result<Value, String> {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    let mut workspace = crate::lsp::Workspace::load(&dir).map_err(|e| format!("{e:#}"))?;
    workspace.open(path.to_string(), text, 0);
    let (report, _) = workspace.evaluate();
    serde_json::from_str(&crate::render::json(&report)).map_err(|e| e.to_string())
}

/// Runs `gatehouse ARGS` and reads its standard output as JSON; exit
/// statuses 0 and 1 are answers (findings, a refusal, a gate that does not
/// pass), anything else is an error with the command's message.
fn run(args: &[String]) -> Result<Value, String> {
    let out = gatehouse(args, |code| code == 1)?;
    serde_json::from_str(&out).map_err(|e| format!("`gatehouse {}` printed no JSON: {e}", args.join(" ")))
}

/// `gatehouse ARGS`'s standard output when it exits 0 (or a status `answers`
/// accepts); else its standard error, the CLI's own message.
fn gatehouse(args: &[String], answers: impl Fn(i32) -> bool) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the gatehouse binary: {e}"))?;
    let out =
        Command::new(exe).args(args).stdin(Stdio::null()).output().map_err(|e| format!("cannot run gatehouse: {e}"))?;
    let code = out.status.code().unwrap_or(-1);
    if code == 0 || answers(code) {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said = said.trim();
    Err(said.strip_prefix("error: ").unwrap_or(said).to_string())
}
