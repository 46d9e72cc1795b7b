//! `gatehouse new brief`: ADR-099's top tier. Scaffolds a brief with its
//! frontmatter filled in and each cited ADR's binding text quoted, after
//! running the brief rules on it in memory: an unknown or superseded ADR, a
//! repository without a checkout or a taken agent id refuses the brief with
//! the findings `gatehouse check` would print.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::{TextOrJson, outln};
use crate::config::{PathFilter, Threshold};
use crate::docs::adr::{Adr, parse_id};
use crate::docs::brief::Brief;
use crate::model::{ChangeSet, FileContent, Finding, Severity};
use crate::source::local::{self, Request};

#[derive(clap::Args, Debug)]
pub struct NewBriefArgs {
    /// The sub-agent's id, e.g. SWARM-AR.
    #[arg(long)]
    agent: Option<String>,
    /// The brief's kebab-case slug, e.g. pg-backup.
    #[arg(long)]
    slug: Option<String>,
    /// A repository the agent may change, as owner/name (repeatable).
    #[arg(long = "repo", value_name = "OWNER/NAME")]
    repos: Vec<String>,
    /// An ADR the agent must honour, e.g. ADR-095 (repeatable).
    #[arg(long = "adr", value_name = "ADR-NNN")]
    adrs: Vec<String>,
    /// The lines the agent will change.
    #[arg(long)]
    lines: Option<i64>,
    /// Another repository's checkout, as owner/name=DIR (repeatable).
    #[arg(long = "repo-root", value_name = "OWNER/NAME=DIR", value_parser = super::parse_repo_root)]
    repo_roots: Vec<(String, PathBuf)>,
    /// The checkout's owner/name [default: from the origin remote].
    #[arg(long, value_name = "OWNER/NAME")]
    repo_name: Option<String>,
    /// The checkout the brief is written into.
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Output format: json prints what was written (or the findings), for agents.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
}

/// The frontmatter lines that stand in for what the author writes; the
/// brief rules report them until they are filled.
pub const SUCCESS_PLACEHOLDER: &str = "success_criteria: []  # fill in: one testable assertion per entry";
pub const SCOPE_PLACEHOLDER: &str = "out_of_scope: []  # fill in: what the agent must not do";

/// What the brief says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    pub agent: String,
    pub slug: String,
    pub repos: Vec<String>,
    pub adrs: Vec<String>,
    pub lines: i64,
}

pub fn run(mut args: NewBriefArgs) -> Result<ExitCode> {
    let request = Request {
        dir: args.dir.clone(),
        all: true,
        repo_name: args.repo_name.clone(),
        repo_roots: args.repo_roots.clone(),
        ..Request::default()
    };
    let mut changes = local::changeset(&request)?;
    // Every document already there is unchanged: only the new brief is checked.
    changes.base = changes.head.clone();
    let adrs = adr_texts(&changes);
    let fields = fields(&mut args, &adrs)?;
    let folder = briefs_folder(&changes.config.briefs.paths)?;
    let path = format!("{folder}/{}-{}.md", fields.agent, fields.slug);
    let text = scaffold(&fields, &adrs);
    changes.head.insert(path.clone(), FileContent::Text(Arc::from(text.as_str())));
    let findings = refusals(&changes, &path, &fields);
    let target = args.dir.join(&path);
    let exists = target.exists();
    if exists || !findings.is_empty() {
        let why = exists.then(|| format!("{path} exists; gatehouse new never overwrites a file"));
        match args.format {
            TextOrJson::Text => {
                super::emit(&crate::render::text_findings(&findings, &changes))?;
                let reason = why.unwrap_or_else(|| format!("{} finding(s) on the brief", findings.len()));
                eprintln!("refused: {reason}; nothing written");
            }
            TextOrJson::Json => {
                let out = serde_json::json!({ "written": false, "path": path, "exists": exists, "findings": findings });
                outln!("{}", serde_json::to_string_pretty(&out).expect("plain data"));
            }
        }
        return Ok(ExitCode::from(1));
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", target.display()))?;
    let reasons = review_reasons(&path, &text, changes.config.briefs.review_threshold);
    match args.format {
        TextOrJson::Text => {
            outln!("wrote {path}");
            if reasons.is_empty() {
                outln!(
                    "brief-PR review: not required (one repository, lines_estimate within the threshold); the operator's call"
                );
            } else {
                outln!("brief-PR review: required ({})", reasons.join("; "));
            }
            outln!("next: fill in `success_criteria` and `out_of_scope`; `gatehouse check` reports them until then");
        }
        TextOrJson::Json => {
            let out = serde_json::json!({
                "written": true,
                "path": path,
                "agent": fields.agent,
                "repos_touched": fields.repos,
                "adrs_referenced": fields.adrs,
                "lines_estimate": fields.lines,
                "review_required": !reasons.is_empty(),
                "review_reasons": reasons,
                "placeholders": ["success_criteria", "out_of_scope"],
                "text": text,
            });
            outln!("{}", serde_json::to_string_pretty(&out).expect("plain data"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The brief's fields from the flags, asking on a terminal for what is
/// missing (on stderr: stdout carries only the result).
fn fields(args: &mut NewBriefArgs, adrs: &BTreeMap<u32, (Adr, String)>) -> Result<Fields> {
    let missing = args.agent.is_none() || args.slug.is_none() || args.repos.is_empty() || args.lines.is_none();
    if missing && std::io::stdin().is_terminal() {
        let ask = |question: &str| -> Result<String> {
            eprint!("{question}: ");
            std::io::stderr().flush()?;
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line)?;
            Ok(line.trim().to_string())
        };
        if args.agent.is_none() {
            args.agent = Some(ask("agent id (SWARM-XY)")?);
        }
        if args.slug.is_none() {
            args.slug = Some(ask("slug (kebab-case)")?);
        }
        if args.repos.is_empty() {
            args.repos =
                ask("repositories (owner/name, space-separated)")?.split_whitespace().map(String::from).collect();
        }
        if args.adrs.is_empty() {
            eprintln!("ADRs in this repository: {}", offered(adrs));
            args.adrs = ask("ADRs to honour (space-separated, empty for none)")?
                .split([' ', ','])
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
        }
        if args.lines.is_none() {
            let answer = ask("lines estimate")?;
            args.lines = Some(answer.parse().with_context(|| format!("`{answer}` is not a number of lines"))?);
        }
    }
    let (Some(agent), Some(slug), Some(lines)) = (args.agent.clone(), args.slug.clone(), args.lines) else {
        bail!("--agent, --slug, --repo and --lines are required (or run on a terminal to be asked)");
    };
    if args.repos.is_empty() {
        bail!("--repo is required: name each repository the agent may change as owner/name");
    }
    Ok(Fields { agent, slug, repos: args.repos.clone(), adrs: args.adrs.clone(), lines })
}

/// The ADRs on offer, with what retired them.
fn offered(adrs: &BTreeMap<u32, (Adr, String)>) -> String {
    if adrs.is_empty() {
        return "none found under adrs.paths".into();
    }
    let list: Vec<String> = adrs
        .values()
        .map(|(adr, _)| match adr.superseded_by {
            Some(next) => format!("ADR-{:03} (superseded by ADR-{next:03})", adr.number),
            None if adr.is_retired() => {
                format!("ADR-{:03} ({})", adr.number, adr.status.as_deref().unwrap_or("retired"))
            }
            None => format!("ADR-{:03}", adr.number),
        })
        .collect();
    list.join(", ")
}

/// Every ADR under `adrs.paths`, by number, with its text.
fn adr_texts(changes: &ChangeSet) -> BTreeMap<u32, (Adr, String)> {
    let mut adrs = BTreeMap::new();
    for (path, content) in PathFilter::globs(&changes.config.adrs.paths).select(&changes.head) {
        let Some(text) = content.text() else { continue };
        if let Some(adr) = Adr::parse(path, text) {
            adrs.entry(adr.number).or_insert((adr, text.to_string()));
        }
    }
    adrs
}

/// The folder the first `briefs.paths` glob names, e.g. `dark-factory/briefs`.
fn briefs_folder(patterns: &[String]) -> Result<String> {
    let pattern = patterns.first().context("`briefs.paths` is empty in .github/gatehouse.yml")?;
    match pattern.rsplit_once('/') {
        Some((folder, _)) if !folder.contains(['*', '?', '[', '{']) => Ok(folder.to_string()),
        None => Ok(String::new()),
        _ => bail!("`briefs.paths` starts with `{pattern}`, which names no single folder to write the brief into"),
    }
}

/// The brief's text: the frontmatter filled in, the placeholders, and each
/// cited ADR's binding text as a `>` blockquote attributed to it.
pub fn scaffold(fields: &Fields, adrs: &BTreeMap<u32, (Adr, String)>) -> String {
    let list = |items: &[String]| format!("[{}]", items.join(", "));
    let mut out = format!(
        "---\nagent: {}\nrepos_touched: {}\nadrs_referenced: {}\n{SUCCESS_PLACEHOLDER}\n{SCOPE_PLACEHOLDER}\nlines_estimate: {}\n---\n",
        fields.agent,
        list(&fields.repos),
        list(&fields.adrs),
        fields.lines
    );
    out.push_str(&format!("# {}: {}\n\n", fields.agent, fields.slug.replace('-', " ")));
    out.push_str("Describe the change the agent makes, naming each path it touches in backticks.\n");
    for id in &fields.adrs {
        let Some((_, text)) = parse_id(id).and_then(|n| adrs.get(&n)) else { continue };
        let (heading, lines) = binding_text(text);
        out.push_str(&format!("\n{id} requires ({heading}):\n\n"));
        for line in lines {
            out.push_str(if line.trim().is_empty() { ">\n".to_string() } else { format!("> {line}\n") }.as_str());
        }
    }
    out
}

/// The ADR's binding text and where it comes from: the section whose heading
/// names its rules, else its Decision section, else all after its title.
fn binding_text(text: &str) -> (String, Vec<&str>) {
    let lines: Vec<&str> = text.lines().collect();
    let level = |line: &str| line.starts_with('#').then(|| line.chars().take_while(|&c| c == '#').count());
    let find = |word: &str| {
        lines.iter().position(|l| level(l).is_some_and(|n| n > 1) && l.to_ascii_lowercase().contains(word))
    };
    let (heading, body) = match find("rules").or_else(|| find("decision")) {
        Some(at) => {
            let depth = level(lines[at]).unwrap_or(2);
            let end =
                (at + 1..lines.len()).find(|&i| level(lines[i]).is_some_and(|n| n <= depth)).unwrap_or(lines.len());
            (format!("section \"{}\"", lines[at].trim_start_matches('#').trim()), &lines[at + 1..end])
        }
        None => {
            let start = lines.iter().position(|l| l.starts_with('#')).map_or(0, |at| at + 1);
            ("its text".to_string(), &lines[start..])
        }
    };
    let kept: Vec<&str> =
        body.iter().copied().filter(|l| !l.starts_with("Status:") && !l.starts_with("Superseded by:")).collect();
    let first = kept.iter().position(|l| !l.trim().is_empty()).unwrap_or(kept.len());
    let last = kept.iter().rposition(|l| !l.trim().is_empty()).map_or(first, |at| at + 1);
    (heading, kept[first..last].to_vec())
}

/// The findings that refuse the brief: the errors the rules report on it (but
/// its placeholders), a superseded ADR whatever its configured severity (the
/// scaffold builds only on ADRs in force), and each repository without a
/// checkout.
fn refusals(changes: &ChangeSet, path: &str, fields: &Fields) -> Vec<Finding> {
    let text = changes.head.get(path).and_then(FileContent::text).unwrap_or_default();
    let placeholder = text.lines().position(|l| l == SUCCESS_PLACEHOLDER).map_or(0, |at| at as u32 + 1);
    let report = crate::rules::evaluate(changes);
    let mut findings: Vec<Finding> = report
        .findings()
        .filter(|f| f.path == path && f.span.line != placeholder)
        .filter(|f| f.severity == Severity::Error || f.rule == "brief/adr-superseded")
        .cloned()
        .collect();
    // A repository the brief names but gatehouse cannot read leaves every
    // path in it unverifiable: the scaffold asks for its checkout first.
    const UNVERIFIABLE: &crate::rules::RuleInfo = &crate::rules::brief::PATH_UNVERIFIABLE;
    let brief = Brief::parse(path, text);
    for repo in &fields.repos {
        let known = changes.repo.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(repo))
            || changes.repos.tree(repo, None).is_some();
        if !known && crate::docs::pathref::is_repo_name(repo) {
            let node = brief.strings("repos_touched").into_iter().find(|(s, _)| s == repo).map(|(_, n)| n);
            let span = node.map_or(crate::model::Span::line(1), |n| {
                crate::model::Span::at(n.line(), n.col(), repo.chars().count() as u32)
            });
            findings.push(Finding {
                rule: UNVERIFIABLE.id,
                severity: UNVERIFIABLE.default_severity,
                path: path.to_string(),
                span,
                message: format!("gatehouse has no checkout of `{repo}` to verify the brief against"),
                help: Some(format!(
                    "pass --repo-root {repo}=DIR (its checkout), or --repo-name {repo} when it is this checkout"
                )),
                fingerprint: crate::model::fingerprint(UNVERIFIABLE.id, path, repo),
                fix: None,
            });
        }
    }
    findings
}

/// Why the brief needs brief-PR review: ADR-099's threshold, and more than
/// one repository whatever the configured threshold or `--lines` says.
fn review_reasons(path: &str, text: &str, configured: Threshold) -> Vec<String> {
    let threshold = Threshold { repos: configured.repos.min(1), ..configured };
    let brief = Brief::parse(path, text);
    crate::rules::brief::review_reasons(&brief, threshold).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_text_is_the_rules_section_else_the_decision() {
        let adr = "# ADR-1: X\n\nStatus: Accepted\n\n## Decision\n\nWe do X.\n\n### The rules\n\n1. Always X.\n\n## Consequences\n\nY.\n";
        assert_eq!(binding_text(adr), ("section \"The rules\"".to_string(), vec!["1. Always X."]));
        let adr = "# ADR-2: Z\n\nStatus: Accepted\n\n## Decision\n\nWe do Z.\nAnd more.\n\n## Consequences\n";
        assert_eq!(binding_text(adr), ("section \"Decision\"".to_string(), vec!["We do Z.", "And more."]));
        let adr = "# ADR-3: W\n\nStatus: Accepted\n\nPlain text.\n";
        assert_eq!(binding_text(adr), ("its text".to_string(), vec!["Plain text."]));
    }

    #[test]
    fn the_briefs_folder_comes_from_the_first_glob() {
        assert_eq!(briefs_folder(&["dark-factory/briefs/*.md".into()]).unwrap(), "dark-factory/briefs");
        assert!(briefs_folder(&["briefs/**/*.md".into()]).is_err());
        assert!(briefs_folder(&[]).is_err());
    }
}
