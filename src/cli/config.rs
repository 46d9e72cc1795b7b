//! `gatehouse config explain`: the effective config of a repository, each
//! value with where it came from and the lock that holds it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::{Value as Json, json};

use super::{TextOrJson, emit, parse_repo_root};
use crate::config::CONFIG_PATH;
use crate::config::explain::{Explained, From, explain as explain_values};
use crate::config::inherit::LockKind;
use crate::config::keys::Value;
use crate::model::{ChangeSet, Check, FileContent, Report};
use crate::render;
use crate::source::inherited::Local;
use crate::source::local::ORG_CONFIG_ENV;

#[derive(clap::Args, Debug)]
pub(super) struct ExplainArgs {
    /// The repository (or plain folder) whose `.github/gatehouse.yml` is explained.
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The organisation's gatehouse.yml: the file the repository's `extends:` names, or the one a
    /// repository without `extends:` inherits.
    #[arg(long, value_name = "PATH", env = ORG_CONFIG_ENV)]
    org_config: Option<PathBuf>,
    /// A checkout of a repository whose config the chain extends, as owner/name=DIR (repeatable).
    #[arg(long = "repo-root", value_name = "OWNER/NAME=DIR", value_parser = parse_repo_root)]
    repo_roots: Vec<(String, PathBuf)>,
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
}

/// Prints every effective value; exit 1 when the chain has an error (the
/// checks would not be evaluated), 2 when it cannot be read.
pub(super) fn explain(args: ExplainArgs) -> Result<ExitCode> {
    if !args.repo.is_dir() {
        bail!("--repo {} is not a folder", args.repo.display());
    }
    let text = crate::source::fs::config_text(&args.repo)?;
    let local = Local { org_config: args.org_config.as_deref(), repo_roots: &args.repo_roots };
    let inheritance = local.inheritance(text.as_deref())?;
    let effective = crate::reads::effective_config(text.as_deref(), &inheritance);
    let explained = explain_values(&effective);
    let mut changes = ChangeSet { config: effective.config.clone(), inheritance, ..ChangeSet::default() };
    if let Some(text) = &text {
        changes.head.insert(CONFIG_PATH.to_string(), FileContent::Text(text.as_str().into()));
    }
    let report: Report = crate::rules::evaluate(&changes);
    let findings: Vec<_> =
        report.checks.iter().filter(|c| c.check == Check::Config).flat_map(|c| &c.findings).collect();
    let files: Vec<Option<String>> =
        (0..effective.files.len()).map(|i| (i > 0 || text.is_some()).then(|| effective.file_name(i))).collect();
    match args.format {
        TextOrJson::Text => {
            let mut out = String::new();
            let chain: Vec<String> = files.iter().map(|f| f.clone().unwrap_or_else(|| "(no file)".into())).collect();
            out.push_str(&format!("effective config of {}: {}\n\n", args.repo.display(), chain.join(" extends ")));
            let rows: Vec<[String; 3]> = explained.iter().map(row).collect();
            let widths = [0, 1].map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0));
            for [key, from, value] in &rows {
                out.push_str(&format!("{key:<w0$}  {from:<w1$}  {value}\n", w0 = widths[0], w1 = widths[1]));
            }
            out.push_str("rules not listed: their default levels (`gatehouse rules`)\n");
            if !findings.is_empty() {
                out.push('\n');
                out.push_str(&render::text_findings(findings.iter().copied(), &changes));
            }
            emit(&out)?;
        }
        TextOrJson::Json => {
            let out = json!({
                "version": 1,
                "files": files,
                "values": explained.iter().map(value_json).collect::<Vec<_>>(),
                "findings": findings.iter().map(|f| render::finding_json(f, Check::Config)).collect::<Vec<_>>(),
            });
            emit(&(serde_json::to_string_pretty(&out).expect("plain data") + "\n"))?;
        }
    }
    Ok(if findings.iter().any(|f| f.severity == crate::model::Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A value as the table shows it: the key, where it came from (with its
/// merge rule and lock), and the value.
fn row(e: &Explained) -> [String; 3] {
    let value = e.value.as_ref().map_or_else(|| "(no review policy)".to_string(), Value::to_string);
    let mut from = match &e.from {
        From::File { file, line } => format!("{file}:{line}"),
        From::Default { seed } => format!("default: {seed}"),
    };
    if e.merge == crate::config::keys::Merge::Append {
        from.push_str(", appends");
    }
    if let Some(lock) = &e.lock {
        from.push_str(&format!(", {} by {}:{}", lock.kind, lock.file, lock.line));
    }
    [e.key.clone(), from, value]
}

fn value_json(e: &Explained) -> Json {
    let value = |v: &Value| match v {
        Value::Number(n) => json!(n),
        Value::Bool(b) => json!(b),
        Value::Word(w) => json!(w),
        Value::List(items) => json!(items),
        Value::Level(_) => json!(v.to_string()),
        Value::Rosters(rosters) => json!(
            rosters
                .iter()
                .map(|r| json!({
                    "paths": r.paths,
                    "all_of": r.all_of.iter().map(|q| json!({ "n_of": q.n_of, "from": q.from })).collect::<Vec<_>>(),
                    "advisory": r.advisory,
                    "bots": r.bots,
                    "line": r.line,
                }))
                .collect::<Vec<_>>()
        ),
    };
    let from = match &e.from {
        From::File { file, line } => json!({ "file": file, "line": line }),
        From::Default { seed } => json!({ "default": seed }),
    };
    let lock = e.lock.as_ref().map(|lock| {
        let (kind, bound) = match &lock.kind {
            LockKind::Locked => ("locked", Json::Null),
            LockKind::AtLeast(v) => ("at_least", value(v)),
            LockKind::AtMost(v) => ("at_most", value(v)),
        };
        json!({ "kind": kind, "bound": bound, "file": lock.file, "line": lock.line })
    });
    json!({
        "key": e.key,
        "value": e.value.as_ref().map_or(Json::Null, value),
        "merge": e.merge.name(),
        "from": from,
        "lock": lock,
    })
}
