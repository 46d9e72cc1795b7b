//! `gatehouse new brief`: ADR-099's top tier. Scaffolds a brief with its
//! frontmatter filled in and each cited ADR's binding text quoted, after
//! running the brief rules on it in memory: an error finding (an unknown ADR,
//! a taken agent id) or a superseded ADR refuses the brief with the findings
//! `gatehouse check` would print.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::prompt::{Prompter, words};
use super::{TextOrJson, outln};
use crate::config::{PathFilter, Threshold};
use crate::docs::adr::{Adr, parse_id};
use crate::docs::brief::{Brief, is_agent_id, parse_file_name};
use crate::model::{ChangeSet, Check, FileContent, Finding, Severity};
use crate::source::local::{self, Request};

#[derive(clap::Args, Debug)]
pub(super) struct NewBriefArgs {
    /// The sub-agent's id, e.g. SWARM-AR.
    #[arg(long)]
    agent: Option<String>,
    /// The brief's kebab-case slug, e.g. pg-backup.
    #[arg(long)]
    slug: Option<String>,
    /// A repository the agent may change, as owner/name (repeatable): the brief's `repos_touched`.
    #[arg(long = "touches", value_name = "OWNER/NAME")]
    repos: Vec<String>,
    /// An ADR the agent must honour, e.g. ADR-095 (repeatable).
    #[arg(long = "adr", value_name = "ADR-NNN")]
    adrs: Vec<String>,
    /// The lines the agent will change.
    #[arg(long, allow_negative_numbers = true)]
    lines: Option<i64>,
    /// Another repository's checkout, as owner/name=DIR (repeatable).
    #[arg(long = "repo-root", value_name = "OWNER/NAME=DIR", value_parser = super::parse_repo_root)]
    repo_roots: Vec<(String, PathBuf)>,
    /// The checkout's owner/name [default: from the origin remote].
    #[arg(long, value_name = "OWNER/NAME")]
    repo_name: Option<String>,
    /// The checkout the brief is written into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    repo: PathBuf,
    /// Output format: json prints what was written (or the findings), for agents.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
    /// Check the brief and print the text it would write; write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The frontmatter lines that stand in for what the author writes; the
/// brief rules report them until they are filled.
pub(super) const SUCCESS_PLACEHOLDER: &str = "success_criteria: []  # fill in: one testable assertion per entry";
pub(super) const SCOPE_PLACEHOLDER: &str = "out_of_scope: []  # fill in: what the agent must not do";

/// What the brief says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fields {
    pub agent: String,
    pub slug: String,
    pub repos: Vec<String>,
    pub adrs: Vec<String>,
    pub lines: i64,
}

pub(super) fn run(mut args: NewBriefArgs) -> Result<ExitCode> {
    let terminal = std::io::stdin().is_terminal();
    if args.repo_name.is_none() && terminal && local::origin_name(&args.repo).is_none() {
        args.repo_name = Some(Prompter::terminal().ask(
            "this checkout's repository, as owner/name (there is no origin remote to read it from)",
            "e.g. acme/platform",
            repo_form,
        )?);
    }
    let request = Request {
        dir: args.repo.clone(),
        all: true,
        repo_name: args.repo_name.clone(),
        repo_roots: args.repo_roots.clone(),
        ..Request::default()
    };
    let mut changes = local::changeset(&request)?;
    // Every document already there is unchanged: only the new brief is checked.
    changes.base = changes.head.clone();
    let adrs = adr_texts(&changes);
    if terminal {
        ask_missing(&mut args, &adrs, &mut Prompter::terminal())?;
    }
    let fields = fields(&args, &adrs)?;
    let folder = briefs_folder(&changes.config.briefs.paths)?;
    let path = format!("{folder}/{}-{}.md", fields.agent, fields.slug);
    let text = scaffold(&fields, &adrs);
    changes.head.insert(path.clone(), FileContent::Text(Arc::from(text.as_str())));
    let findings = refusals(&changes, &path);
    let target = args.repo.join(&path);
    let exists = target.exists();
    if exists || !findings.is_empty() {
        let why = exists.then(|| format!("{path} exists; gatehouse new never overwrites a file"));
        match args.format {
            TextOrJson::Text => {
                super::emit(&crate::render::text_findings(&findings, &changes))?;
                let reason =
                    why.unwrap_or_else(|| format!("{} on the brief", crate::render::plural(findings.len(), "finding")));
                eprintln!("refused: {reason}; nothing written");
            }
            TextOrJson::Json => {
                let findings: Vec<_> = findings.iter().map(|f| crate::render::finding_json(f, Check::Briefs)).collect();
                let out = serde_json::json!({ "written": false, "path": path, "exists": exists, "findings": findings });
                outln!("{}", serde_json::to_string_pretty(&out).expect("plain data"));
            }
        }
        return Ok(ExitCode::from(1));
    }
    if args.dry_run {
        match args.format {
            TextOrJson::Text => super::emit(&text)?,
            TextOrJson::Json => {
                let out = serde_json::json!({ "written": false, "path": path, "exists": false, "findings": [], "text": text });
                outln!("{}", serde_json::to_string_pretty(&out).expect("plain data"));
            }
        }
        return Ok(ExitCode::SUCCESS);
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
            for repo in unverifiable(&changes, &fields.repos) {
                outln!(
                    "note: no checkout of `{repo}`: paths in it are `brief/path-unverifiable` notices until you pass --repo-root {repo}=DIR"
                );
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
                "unverifiable_repos": unverifiable(&changes, &fields.repos),
                "placeholders": ["success_criteria", "out_of_scope"],
                "text": text,
            });
            outln!("{}", serde_json::to_string_pretty(&out).expect("plain data"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// An agent id as ADR-099 names them.
fn agent_form(a: &str) -> std::result::Result<String, String> {
    match is_agent_id(a) {
        true => Ok(a.to_string()),
        false => Err(format!("`{a}` is not an agent id: `SWARM-` and 1 to 6 of A-Z and 0-9, e.g. SWARM-AR")),
    }
}

/// A kebab-case slug, as a brief's file name takes it.
fn slug_form(a: &str) -> std::result::Result<String, String> {
    match parse_file_name(&format!("SWARM-X-{a}.md")) {
        Ok(_) => Ok(a.to_string()),
        Err(_) => Err(format!("`{a}` is not kebab-case (lower-case words joined by `-`, e.g. pg-backup)")),
    }
}

/// An ADR of this repository that is in force.
fn adr_form(id: &str, adrs: &BTreeMap<u32, (Adr, String)>) -> std::result::Result<String, String> {
    match parse_id(id).map(|n| adrs.get(&n)) {
        None => Err(format!("`{id}` is not an ADR id like ADR-095")),
        Some(None) => Err(format!("{id} is not among the repository's ADRs ({})", offered(adrs))),
        Some(Some((adr, _))) if adr.is_retired() => match adr.superseded_by {
            Some(next) => Err(format!("{id} is superseded by ADR-{next:03}; cite ADR-{next:03} instead")),
            None => Err(format!("{id} is retired; cite what replaced it")),
        },
        Some(Some(_)) => Ok(id.to_string()),
    }
}

/// A positive line count.
fn lines_form(a: &str) -> std::result::Result<i64, String> {
    a.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| format!("`{a}` is not a positive number"))
}

/// Asks for each field the flags left out, checking each answer as it is
/// typed (on stderr: stdout carries only the result).
fn ask_missing<R: std::io::BufRead, W: Write>(
    args: &mut NewBriefArgs,
    adrs: &BTreeMap<u32, (Adr, String)>,
    p: &mut Prompter<R, W>,
) -> Result<()> {
    if args.agent.is_none() {
        args.agent = Some(p.ask("agent id", "e.g. SWARM-AR", agent_form)?);
    }
    if args.slug.is_none() {
        args.slug = Some(p.ask("slug", "kebab-case, e.g. pg-backup", slug_form)?);
    }
    if args.repos.is_empty() {
        args.repos = p.ask("repositories the agent may change", "owner/name, space-separated, e.g. acme/api", |a| {
            let repos = words(a);
            if repos.is_empty() {
                return Err("name at least one repository".into());
            }
            repos.iter().map(|r| repo_form(r)).collect()
        })?;
    }
    if args.adrs.is_empty() {
        p.say(&format!("ADRs in this repository: {}", offered(adrs)))?;
        args.adrs = p.ask("ADRs to honour", "space-separated, e.g. ADR-095; Enter for none", |a| {
            words(a).into_iter().map(|id| adr_form(&id, adrs)).collect()
        })?;
    }
    if args.lines.is_none() {
        args.lines = Some(p.ask("lines estimate", "the lines the agent will change, e.g. 40", lines_form)?);
    }
    Ok(())
}

/// `owner/name`, as GitHub names a repository.
fn repo_form(answer: &str) -> std::result::Result<String, String> {
    match crate::docs::pathref::is_repo_name(answer) {
        true => Ok(answer.to_string()),
        false => Err(format!("`{answer}` is not owner/name")),
    }
}

/// The brief's fields, all given, each flag checked as a prompt checks its
/// answer: every flag in error is named at once.
fn fields(args: &NewBriefArgs, adrs: &BTreeMap<u32, (Adr, String)>) -> Result<Fields> {
    let (Some(agent), Some(slug), Some(lines)) = (args.agent.clone(), args.slug.clone(), args.lines) else {
        bail!("--agent, --slug, --touches and --lines are required (or run on a terminal to be asked)");
    };
    let mut wrong = Vec::new();
    let mut check = |flag: &str, checked: std::result::Result<(), String>| {
        if let Err(why) = checked {
            wrong.push(format!("  --{flag}: {why}"));
        }
    };
    check("agent", agent_form(&agent).map(drop));
    check("slug", slug_form(&slug).map(drop));
    if args.repos.is_empty() {
        check("touches", Err("name each repository the agent may change as owner/name".into()));
    }
    for repo in &args.repos {
        check("touches", repo_form(repo).map(drop));
    }
    for id in args.adrs.iter().filter(|id| parse_id(id).is_none()) {
        check("adr", adr_form(id, adrs).map(drop));
    }
    check("lines", lines_form(&lines.to_string()).map(drop));
    if !wrong.is_empty() {
        bail!("the brief cannot be written from these flags:\n{}", wrong.join("\n"));
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
pub(super) fn scaffold(fields: &Fields, adrs: &BTreeMap<u32, (Adr, String)>) -> String {
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
/// its placeholders) and a superseded ADR whatever its configured severity
/// (the scaffold builds only on ADRs in force).
fn refusals(changes: &ChangeSet, path: &str) -> Vec<Finding> {
    let text = changes.head.get(path).and_then(FileContent::text).unwrap_or_default();
    let placeholder = text.lines().position(|l| l == SUCCESS_PLACEHOLDER).map_or(0, |at| at as u32 + 1);
    let report = crate::rules::evaluate(changes);
    let refusing: Vec<Finding> = report
        .findings()
        .filter(|f| f.path == path && f.span.line != placeholder)
        .filter(|f| f.severity == Severity::Error || f.rule == "brief/adr-superseded")
        .cloned()
        .collect();
    // An ADR the scaffold could not quote because it is missing or
    // superseded is refused for that, once: not also as name-dropped.
    let adr_causes: Vec<_> = refusing
        .iter()
        .filter(|f| matches!(f.rule, "brief/adr-superseded" | "brief/adr-missing"))
        .map(|f| (f.span.line, f.span.col))
        .collect();
    refusing
        .into_iter()
        .filter(|f| f.rule != "brief/adr-not-honoured" || !adr_causes.contains(&(f.span.line, f.span.col)))
        .collect()
}

/// The repositories the brief touches that gatehouse has no checkout of.
fn unverifiable<'r>(changes: &ChangeSet, repos: &'r [String]) -> Vec<&'r str> {
    repos
        .iter()
        .filter(|repo| {
            !changes.repo.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(repo))
                && changes.repos.tree(repo, None).is_none()
        })
        .map(String::as_str)
        .collect()
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

    #[test]
    fn each_answer_is_checked_as_typed_and_asked_again() {
        let adr = "# ADR-095: Backups\n\nStatus: Accepted\n\nDumps go off-host.\n";
        let adrs = BTreeMap::from([(95, (Adr::parse("docs/adr/ADR-095.md", adr).unwrap(), adr.to_string()))]);
        let mut args = NewBriefArgs {
            agent: None,
            slug: None,
            repos: vec![],
            adrs: vec![],
            lines: None,
            repo_roots: vec![],
            repo_name: None,
            repo: PathBuf::from("."),
            format: TextOrJson::Text,
            dry_run: false,
        };
        let input = "\nSWARM-XY\nBad Slug!\npg-restore\nacme\nacme/api\nADR-777\nADR-095\nmany\n40\n";
        let mut shown = Vec::new();
        ask_missing(&mut args, &adrs, &mut Prompter::new(input.as_bytes(), &mut shown)).unwrap();
        let fields = fields(&args, &adrs).unwrap();
        assert_eq!(
            fields,
            Fields {
                agent: "SWARM-XY".into(),
                slug: "pg-restore".into(),
                repos: vec!["acme/api".into()],
                adrs: vec!["ADR-095".into()],
                lines: 40
            }
        );
        let shown = String::from_utf8(shown).unwrap();
        for complaint in [
            "`` is not an agent id",
            "`Bad Slug!` is not kebab-case",
            "`acme` is not owner/name",
            "ADR-777 is not among the repository's ADRs",
            "`many` is not a positive number",
        ] {
            assert!(shown.contains(complaint), "{complaint}: {shown}");
        }
        assert!(shown.contains("agent id (e.g. SWARM-AR): "), "an example, not a default: {shown}");
    }
}
