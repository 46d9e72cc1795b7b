//! `gatehouse init`: a starter `.github/gatehouse.yml` with the paths of the
//! documents found in the repository and the team's review policy (asked on
//! a terminal, or given as flags), validated before it is written.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::outln;
use super::prompt::{Prompter, words};
use crate::config::{CONFIG_PATH, Config, REVIEW_EXAMPLE};
use crate::source::git::Checkout;

#[derive(clap::Args, Debug)]
pub(super) struct InitArgs {
    /// The checkout (or plain folder) to configure.
    #[arg(long, value_name = "DIR", default_value = ".")]
    repo: PathBuf,
    /// A core reviewer's GitHub login (repeatable): the review gate needs their approvals.
    #[arg(long = "reviewer", value_name = "LOGIN")]
    reviewers: Vec<String>,
    /// How many core reviewers must approve [default: 2, or 1 with one reviewer].
    #[arg(long, value_name = "N")]
    required: Option<u64>,
    /// An advisory reviewer's GitHub login (repeatable): the gate needs their review, not their approval.
    #[arg(long = "advisory", value_name = "LOGIN")]
    advisory: Vec<String>,
    /// Write no review policy: the review gate then requires no approval.
    #[arg(long, conflicts_with_all = ["reviewers", "required", "advisory"])]
    no_review: bool,
}

/// The review policy the config gets.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Policy {
    reviewers: Vec<String>,
    required: u64,
    advisory: Vec<String>,
}

/// The governed documents found in a repository's listing, as config paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Found {
    pub briefs: BTreeSet<String>,
    pub adrs: BTreeSet<String>,
    pub voting: BTreeSet<String>,
    pub specs: BTreeSet<String>,
    pub decisions: BTreeSet<String>,
}

pub(super) fn run(args: InitArgs) -> Result<ExitCode> {
    if !args.repo.is_dir() {
        bail!("--repo {} is not a folder", args.repo.display());
    }
    let target = args.repo.join(CONFIG_PATH);
    if target.exists() {
        bail!("{} exists; gatehouse init never overwrites it (`gatehouse check --all` validates it)", target.display());
    }
    let found = discover(&listing(&args.repo)?);
    let policy = policy(&args)?;
    let text = render(&found, policy.as_ref());
    let (_, errors) = crate::rules::read_config(&text);
    if let Some(first) = errors.first() {
        bail!("the config gatehouse init would write is invalid: {first}");
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&target, &text).with_context(|| format!("cannot write {}", target.display()))?;
    outln!("wrote {CONFIG_PATH}; it validates");
    for (family, paths) in found.families() {
        match paths.is_empty() {
            true => outln!("  {family}: none found, the default paths"),
            false => outln!("  {family}: {}", paths.iter().cloned().collect::<Vec<_>>().join(", ")),
        }
    }
    match &policy {
        Some(p) => outln!("  review: {}", describe(p)),
        None => outln!("  review: none; the gatehouse/review gate requires no approval until `review:` is set"),
    }
    outln!("next: commit it to the default branch; the App reads the config from the base branch of each pull request");
    Ok(ExitCode::SUCCESS)
}

fn describe(p: &Policy) -> String {
    crate::config::ReviewConfig {
        core_reviewers: p.reviewers.clone(),
        core_required: p.required,
        advisory: p.advisory.clone(),
        ..Default::default()
    }
    .describe()
}

/// The review policy from the flags, or asked on a terminal; none off a
/// terminal without flags, or with `--no-review`.
fn policy(args: &InitArgs) -> Result<Option<Policy>> {
    if args.no_review {
        return Ok(None);
    }
    for login in args.reviewers.iter().chain(&args.advisory) {
        check_login(login).map_err(anyhow::Error::msg)?;
    }
    if !args.reviewers.is_empty() {
        let required = args.required.unwrap_or(default_required(args.reviewers.len()));
        check_required(required, args.reviewers.len()).map_err(anyhow::Error::msg)?;
        return Ok(Some(Policy { reviewers: args.reviewers.clone(), required, advisory: args.advisory.clone() }));
    }
    if args.required.is_some() || !args.advisory.is_empty() {
        bail!("--required and --advisory need the core reviewers: pass --reviewer LOGIN for each");
    }
    if !std::io::stdin().is_terminal() {
        return Ok(None);
    }
    ask_policy(&mut Prompter::terminal())
}

fn ask_policy<R: std::io::BufRead, W: std::io::Write>(p: &mut Prompter<R, W>) -> Result<Option<Policy>> {
    p.say("The review gate holds briefs over the review threshold until the team's core reviewers approve.")?;
    let reviewers = p.ask("core reviewers' GitHub logins", "e.g. alice bob carol; Enter for no review gate", |a| {
        let logins = words(a);
        logins.iter().try_for_each(|l| check_login(l))?;
        Ok(logins)
    })?;
    if reviewers.is_empty() {
        return Ok(None);
    }
    let fallback = default_required(reviewers.len());
    let required = p.ask("approvals required", &format!("Enter for {fallback}"), |a| {
        let n = if a.is_empty() { fallback } else { a.parse().map_err(|_| format!("`{a}` is not a number"))? };
        check_required(n, reviewers.len()).map(|()| n)
    })?;
    let advisory = p.ask("advisory reviewers, who must review but need not approve", "Enter for none", |a| {
        let logins = words(a);
        logins.iter().try_for_each(|l| check_login(l))?;
        Ok(logins)
    })?;
    Ok(Some(Policy { reviewers, required, advisory }))
}

/// ADR-099's 2-of-3, or every reviewer when there are fewer than two.
fn default_required(reviewers: usize) -> u64 {
    (reviewers as u64).min(2)
}

fn check_required(required: u64, reviewers: usize) -> std::result::Result<(), String> {
    match required {
        0 => Err("at least 1 approval must be required".into()),
        n if n > reviewers as u64 => Err(format!(
            "{n} approvals cannot come from {reviewers} core {}",
            if reviewers == 1 { "reviewer" } else { "reviewers" }
        )),
        _ => Ok(()),
    }
}

/// GitHub's login form: letters, digits and single inner hyphens, at most
/// 39 characters (a `[bot]` suffix allowed for Apps).
fn check_login(login: &str) -> std::result::Result<(), String> {
    let name = login.strip_prefix('@').unwrap_or(login);
    let name = name.strip_suffix("[bot]").unwrap_or(name);
    let valid = !name.is_empty()
        && name.len() <= 39
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if valid { Ok(()) } else { Err(format!("`{login}` is not a GitHub login (letters, digits and hyphens)")) }
}

/// The repository's files: git's working files in a checkout (ignored
/// files such as build output left out), else every file of the folder.
fn listing(dir: &Path) -> Result<Vec<String>> {
    match Checkout::find(dir)? {
        Some(git) if git.root() == dir.canonicalize()?.as_path() => git.working_files(),
        _ => crate::source::fs::list(dir),
    }
}

/// A family of governed documents, as `init` finds them by their files' forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Family {
    Briefs,
    Adrs,
    Voting,
    Specs,
    Decisions,
}

/// Recognises a family's documents by their paths' forms.
pub(super) struct Classifier {
    defaults: Config,
    adr_globs: std::sync::Arc<globset::GlobSet>,
}

impl Classifier {
    pub(super) fn new() -> Classifier {
        let defaults = Config::default();
        let adr_globs = crate::config::globset(&defaults.adrs.paths);
        Classifier { defaults, adr_globs }
    }

    /// The family `path` looks like a document of, with the config path
    /// that would cover it (a glob, or a folder for specs and decisions).
    pub(super) fn classify(&self, path: &str) -> Option<(Family, String)> {
        let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
        let glob = |pattern: &str| if folder.is_empty() { pattern.to_string() } else { format!("{folder}/{pattern}") };
        if name.starts_with("SWARM-") && name.ends_with(".md") {
            return Some((Family::Briefs, glob("*.md")));
        }
        if name.ends_with(".md") && self.adr_globs.is_match(path) {
            let default =
                self.defaults.adrs.paths.iter().find(|p| crate::config::globset(&[p.to_string()]).is_match(path))?;
            return Some((Family::Adrs, default.clone()));
        }
        if name.ends_with(".md") && is_versioned(name) {
            return Some((Family::Voting, glob("*")));
        }
        if name == "current-state.txt" {
            let spec_root = folder.rsplit_once('/').map_or("", |(root, _)| root);
            let spec_root = spec_root.strip_suffix("/archive").unwrap_or(spec_root);
            return (!spec_root.is_empty()).then(|| (Family::Specs, spec_root.to_string()));
        }
        if name.ends_with(".json") && (folder.ends_with("decisions") || folder.ends_with("decisions/archive")) {
            return Some((Family::Decisions, folder.strip_suffix("/archive").unwrap_or(folder).to_string()));
        }
        None
    }
}

/// Where each family's documents are in `paths`, by their file names' forms.
pub(super) fn discover(paths: &[String]) -> Found {
    let classifier = Classifier::new();
    let mut found = Found::default();
    for (family, path) in paths.iter().filter_map(|path| classifier.classify(path)) {
        match family {
            Family::Briefs => found.briefs.insert(path),
            Family::Adrs => found.adrs.insert(path),
            Family::Voting => found.voting.insert(path),
            Family::Specs => found.specs.insert(path),
            Family::Decisions => found.decisions.insert(path),
        };
    }
    found
}

/// `name@v3.md` or `name.md@v3`.
fn is_versioned(name: &str) -> bool {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    stem.rsplit_once("@v")
        .is_some_and(|(doc, n)| !doc.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

impl Found {
    fn families(&self) -> [(&'static str, &BTreeSet<String>); 5] {
        [
            ("briefs", &self.briefs),
            ("adrs", &self.adrs),
            ("voting", &self.voting),
            ("specs", &self.specs),
            ("decisions", &self.decisions),
        ]
    }
}

/// The config's text: each family's paths (the defaults, commented, where
/// nothing was found) and the review policy.
fn render(found: &Found, policy: Option<&Policy>) -> String {
    let defaults = Config::default();
    let default_paths = [
        &defaults.briefs.paths,
        &defaults.adrs.paths,
        &defaults.voting.paths,
        &defaults.specs.paths,
        &defaults.decisions.paths,
    ];
    let quoted = |paths: &mut dyn Iterator<Item = &String>| {
        paths.map(|p| serde_json::to_string(p).expect("a string")).collect::<Vec<_>>().join(", ")
    };
    let mut out = String::from(
        "# gatehouse: which documents are governed, and who reviews them.\n\
         # Every key is optional; `gatehouse schema config` prints the JSON Schema of this file.\n",
    );
    for ((family, paths), default) in found.families().into_iter().zip(default_paths) {
        if paths.is_empty() {
            out.push_str(&format!(
                "# {family}: none found; the default paths apply:\n# {family}:\n#   paths: [{}]\n",
                quoted(&mut default.iter())
            ));
        } else {
            out.push_str(&format!("{family}:\n  paths: [{}]\n", quoted(&mut paths.iter())));
        }
    }
    match policy {
        Some(p) => {
            out.push_str(&format!(
                "review:\n  core: {{ reviewers: [{}], required: {} }}\n",
                p.reviewers.join(", "),
                p.required
            ));
            if !p.advisory.is_empty() {
                out.push_str(&format!("  advisory: [{}]\n", p.advisory.join(", ")));
            }
        }
        None => {
            out.push_str("# No review policy: the gatehouse/review gate requires no approval. To require one:\n");
            out.push_str(&REVIEW_EXAMPLE.lines().map(|l| format!("# {l}\n")).collect::<String>());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn documents_are_found_by_their_forms() {
        let found = discover(&paths(&[
            "README.md",
            "agents/briefs/SWARM-AR-pg.md",
            "doc/adr/0001-record.md",
            "standards/api-errors@v2.md",
            "work/specs/csv-export/current-state.txt",
            "work/specs/archive/old/current-state.txt",
            ".harnery/decisions/q-2026-07-10-7d21.json",
            ".harnery/decisions/archive/r-2026-07-01-0a0a.json",
        ]));
        assert_eq!(found.briefs, BTreeSet::from(["agents/briefs/*.md".to_string()]));
        assert_eq!(found.adrs, BTreeSet::from(["doc/adr/**/*.md".to_string()]));
        assert_eq!(found.voting, BTreeSet::from(["standards/*".to_string()]));
        assert_eq!(found.specs, BTreeSet::from(["work/specs".to_string()]));
        assert_eq!(found.decisions, BTreeSet::from([".harnery/decisions".to_string()]));
        assert_eq!(discover(&paths(&["src/main.rs"])), Found::default());
    }

    #[test]
    fn the_written_config_validates_and_reads_back_as_written() {
        let found = discover(&paths(&["agents/briefs/SWARM-AR-pg.md", "docs/adr/ADR-001-x.md"]));
        let policy = Policy { reviewers: paths(&["alice", "bob"]), required: 2, advisory: paths(&["dana"]) };
        let (config, errors) = crate::rules::read_config(&render(&found, Some(&policy)));
        assert_eq!(errors, vec![]);
        assert_eq!(config.briefs.paths, ["agents/briefs/*.md"]);
        assert_eq!(config.voting, Config::default().voting, "nothing found: the default");
        assert_eq!(config.review.expect("a policy").describe(), "2 of alice, bob approve and dana reviews");
        let (config, errors) = crate::rules::read_config(&render(&found, None));
        assert_eq!((errors, config.review), (vec![], None));
    }

    #[test]
    fn answers_are_checked_as_typed() {
        let mut shown = Vec::new();
        let input = &b"alice b@d\nalice bob\n3\n\n\n"[..];
        let policy = ask_policy(&mut Prompter::new(input, &mut shown)).unwrap();
        assert_eq!(policy, Some(Policy { reviewers: paths(&["alice", "bob"]), required: 2, advisory: vec![] }));
        let shown = String::from_utf8(shown).unwrap();
        assert!(shown.contains("`b@d` is not a GitHub login"), "{shown}");
        assert!(shown.contains("3 approvals cannot come from 2 core reviewers"), "{shown}");
        assert_eq!(ask_policy(&mut Prompter::new(&b"\n"[..], Vec::new())).unwrap(), None);
        assert!(check_login("dependabot[bot]").is_ok() && check_login("-x").is_err());
    }
}
