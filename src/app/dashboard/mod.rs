//! The dashboard issue (opt-in: `dashboard: { enabled: true }` in
//! `.github/gatehouse.yml`): one issue per repository, brought up to date
//! in one edit by a job queued after evaluations (`Store::note_dashboard`
//! coalesces them). It lists the open pull requests of this repository and
//! what gatehouse's check runs on each head show they wait on, and, from
//! the documents of the default branch, the voting sections within reach
//! of quorum or lock, the open decisions by tier and the specs by stage
//! (`documents`): nothing a collaborator of the repository cannot already
//! read on each pull request and on its default branch. Closing the issue
//! turns the dashboard off; reopening it, or the config turning the
//! dashboard off and on, turns it back on.

mod documents;

use anyhow::Result;

use crate::gate::STILL_MISSING;
use crate::github::answers::CheckRun;
use crate::github::{RepoClient, issues};
use crate::model::ChangeSet;
use crate::plan::REVIEW_CHECK;
use crate::source::default_branch;
use crate::store::{BypassedMerge, DashboardIssue, Job};

use super::worker::Ctx;

/// How the App's dashboard issue is known: the first line of its body (an
/// HTML comment: GitHub does not show it).
const MARK: &str = "<!-- gatehouse:dashboard -->";
const TITLE: &str = "gatehouse dashboard";
/// GitHub's limit on an issue's body, in characters, less room for the note
/// that the list was cut.
const BODY_CHARS: usize = 65_000;
/// The merges past the gate listed, newest first.
const MAX_BYPASSES: u32 = 10;

/// Brings the repository's dashboard issue up to date.
pub(in crate::app) async fn refresh(ctx: &Ctx, job: &Job, repo: &RepoClient) -> Result<()> {
    let name = repo.repo.full();
    let mut shown = None;
    if let Some(stored) = ctx.store.dashboard(&name).await? {
        match issues::issue(repo, stored.number).await? {
            Some(issue) if issue.state == "closed" => {
                if !stored.closed {
                    tracing::info!(repo = %name, issue = stored.number, "the dashboard issue was closed: off");
                    ctx.store.record_dashboard(&name, DashboardIssue { closed: true, ..stored }).await?;
                }
                return Ok(());
            }
            Some(issue) => {
                if stored.closed {
                    ctx.store.record_dashboard(&name, DashboardIssue { closed: false, ..stored }).await?;
                }
                shown = Some((issue.number, issue.body.unwrap_or_default()));
            }
            // Deleted or transferred: a new one is opened.
            None => {}
        }
    }
    let mut pulls = Vec::new();
    for pull in issues::open_pulls(repo).await? {
        let runs = issues::runs(repo, &pull.head.sha).await?;
        pulls.push(Pull { number: pull.number, title: pull.title, draft: pull.draft, runs });
    }
    // The default branch's documents, read only when the config there
    // enables the dashboard too, and only the families it lists.
    let tip = default_branch::tip(repo, &ctx.reads).await?;
    let documents = match &tip {
        Some(tip) if tip.config.dashboard.enabled => {
            Some(default_branch::documents(repo, tip, documents::NEEDS, &ctx.reads).await?)
        }
        _ => None,
    };
    let bypassed = ctx.store.bypassed_merges(&name, MAX_BYPASSES).await?;
    let mut body = render(&name, &pulls, &bypassed, documents.as_ref());
    if let Some(tip) = tip.as_ref().filter(|tip| !tip.inheritance.parents.is_empty()) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let previous = shown.as_ref().map(|(_, body)| body.as_str());
        body.push_str(&config_section(tip, previous, &crate::docs::timestamp::format_utc(now)));
    }
    let number = match shown {
        Some((number, current)) if current == body => number,
        Some((number, _)) => {
            issues::edit_body(repo, number, &body).await?;
            number
        }
        None => {
            // A retry after an unconfirmed create finds the issue it made.
            let found = if job.attempts > 1 { issues::find_open(repo, MARK).await? } else { None };
            match found {
                Some(number) => {
                    issues::edit_body(repo, number, &body).await?;
                    number
                }
                None => issues::create(repo, TITLE, &body).await?,
            }
        }
    };
    ctx.store.record_dashboard(&name, DashboardIssue { number, closed: false }).await?;
    Ok(())
}

/// What marks the effective config's digest and since when it holds, in the
/// body (an HTML comment: GitHub does not show it).
const CONFIG_MARK: &str = "<!-- gatehouse:config ";

/// The section on a config that extends others: which files make it, and
/// when the effective config last changed, as the body shown before
/// (`previous`) recorded it; `now` when it changed since, or is first shown.
/// The body stays the same while the config does, so no edit is made for it.
fn config_section(tip: &default_branch::Tip, previous: Option<&str>, now: &str) -> String {
    let digest = crate::source::dependencies::digest(&crate::model::FileContent::Text(
        format!("{:?}", tip.config).as_str().into(),
    ));
    let recorded = previous.and_then(|body| {
        let rest = &body[body.find(CONFIG_MARK)? + CONFIG_MARK.len()..];
        let (digest, rest) = rest.split_once(' ')?;
        Some((digest.to_string(), rest.split_once(' ')?.0.to_string()))
    });
    let (verb, since) = match recorded {
        Some((was, since)) if was == digest => ("unchanged since", since),
        Some(_) => ("changed at", now.to_string()),
        None => ("first read at", now.to_string()),
    };
    let files: Vec<String> = tip.inheritance.parents.keys().map(|source| code(&source.to_string())).collect();
    format!(
        "\n## Config\n\nThe effective config of the default branch merges `.github/gatehouse.yml` with {}: {verb} \
         {since}.\n{CONFIG_MARK}{digest} {since} -->\n",
        files.join(", ")
    )
}

/// An open pull request and this App's runs on its head.
pub(crate) struct Pull {
    pub number: u64,
    pub title: String,
    pub draft: bool,
    pub runs: Vec<CheckRun>,
}

impl Pull {
    /// The newest run of each name, the review gate first.
    fn latest(&self) -> Vec<&CheckRun> {
        let mut latest: Vec<&CheckRun> = Vec::new();
        for run in &self.runs {
            match latest.iter_mut().find(|r| r.name == run.name) {
                Some(kept) if kept.id < run.id => *kept = run,
                Some(_) => {}
                None => latest.push(run),
            }
        }
        latest.sort_by_key(|r| (r.name != REVIEW_CHECK, r.name.clone()));
        latest
    }

    /// When the first run of `name` on this head started.
    fn since(&self, name: &str) -> Option<&str> {
        self.runs.iter().filter(|r| r.name == name).min_by_key(|r| r.id).and_then(|r| r.started_at.as_deref())
    }
}

fn passes(run: &CheckRun) -> bool {
    run.status == "completed" && matches!(run.conclusion.as_deref(), Some("success" | "neutral" | "skipped"))
}

/// The lines of a review gate's summary under "Still missing:".
fn missing(summary: &str) -> Vec<&str> {
    let Some(at) = summary.find(STILL_MISSING) else { return Vec::new() };
    summary[at..]
        .lines()
        .skip(1)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("- "))
        .map(|l| l.trim_start_matches("- "))
        .collect()
}

/// Text from a pull request or a document as the body shows it: on one
/// line, no `@` that would mention someone, and no `<` that would open an
/// HTML tag or comment hiding the rest.
fn plain(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('@', "@\u{200b}").replace('<', "&lt;")
}

/// A name or path as a code span: on one line, a backtick inside turned
/// into `'` so that the span cannot end early. GitHub mentions no one from
/// inside code, so an `@` there (`smoke-spec-path@v1.md`) stays as written.
fn code(text: &str) -> String {
    format!("`{}`", text.split_whitespace().collect::<Vec<_>>().join(" ").replace('`', "'"))
}

/// The dashboard's body: the open pull requests, and the sections on the
/// default branch's documents when they were read.
pub(crate) fn render(repo: &str, pulls: &[Pull], bypassed: &[BypassedMerge], documents: Option<&ChangeSet>) -> String {
    let mut waiting = Vec::new();
    let mut passing = Vec::new();
    let mut unseen = Vec::new();
    for pull in pulls {
        let draft = if pull.draft { " (draft)" } else { "" };
        let head = format!("#{} {}{draft}", pull.number, plain(&pull.title));
        let latest = pull.latest();
        if latest.is_empty() {
            unseen.push(format!("- {head}"));
            continue;
        }
        if latest.iter().all(|r| passes(r)) {
            passing.push(format!("- {head}"));
            continue;
        }
        let mut item = format!("### {head}\n\n");
        for run in latest.iter().filter(|r| !passes(r)) {
            let run_title = run.output.title.as_deref().unwrap_or("");
            if run.status != "completed" {
                item.push_str(&format!("- `{}`: being evaluated\n", run.name));
            } else if run.name == REVIEW_CHECK {
                let since = pull.since(&run.name).map(|s| format!(", waiting since {s}")).unwrap_or_default();
                item.push_str(&format!("- **Review gate**: {run_title}{since}\n"));
                for line in missing(run.output.summary.as_deref().unwrap_or("")) {
                    item.push_str(&format!("  - {line}\n"));
                }
            } else {
                item.push_str(&format!("- `{}` fails: {run_title} (waits on the author)\n", run.name));
            }
        }
        waiting.push(item);
    }
    let also = if documents.is_some() {
        ", and where the voting docs, decisions and specs of its default branch stand"
    } else {
        ""
    };
    let mut body = format!(
        "{MARK}\nWhat each open pull request of `{repo}` waits on, as gatehouse's checks on its head show it{also}; \
         the gatehouse App keeps this issue current after each evaluation. Close it to turn the dashboard off; \
         reopen it, or turn `dashboard.enabled` off and on in `.github/gatehouse.yml`, to turn it back on.\n"
    );
    let sections =
        [("Waiting", waiting.join("\n")), ("Passing", passing.join("\n")), ("Not evaluated yet", unseen.join("\n"))];
    for (heading, text) in sections {
        if !text.is_empty() {
            body.push_str(&format!("\n## {heading}\n\n{}\n", text.trim_end()));
        }
    }
    if pulls.is_empty() {
        body.push_str("\nNo pull request is open.\n");
    }
    if pulls.len() >= issues::MAX_LISTED {
        body.push_str(&format!("\nThe first {} open pull requests are listed.\n", issues::MAX_LISTED));
    }
    if !bypassed.is_empty() {
        body.push_str(
            "\n## Merged past the gate\n\nThese pull requests merged while a gatehouse check was not green on their \
             head: their documents have no gate attestation.\n\n",
        );
        for merge in bypassed {
            let sha = &merge.merge_sha[..merge.merge_sha.len().min(7)];
            body.push_str(&format!("- #{} merged as `{sha}` past {}\n", merge.pr, merge.red));
        }
    }
    if let Some(changes) = documents {
        body.push_str(&documents::sections(changes));
    }
    if body.chars().count() > BODY_CHARS {
        body = body.chars().take(BODY_CHARS).collect();
        body.push_str("\n\n…cut here to fit GitHub's limit on an issue's body.\n");
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::answers::CheckRunOutput;

    fn run(id: u64, name: &str, conclusion: &str, title: &str, summary: &str) -> CheckRun {
        CheckRun {
            id,
            name: name.into(),
            status: "completed".into(),
            conclusion: Some(conclusion.into()),
            external_id: Some(format!("gatehouse:1:{name}")),
            started_at: Some(format!("2026-12-07T01:0{id}:00Z")),
            output: CheckRunOutput { annotations_count: 0, title: Some(title.into()), summary: Some(summary.into()) },
        }
    }

    #[test]
    fn the_config_section_says_when_the_effective_config_changed() {
        use crate::config::inherit::{Inheritance, Parent, Source};
        let policy = Source::parse("acme/.github").expect("a source");
        let inheritance = Inheritance {
            parents: [(policy, Parent::Text("dashboard: { enabled: true }\n".into()))].into(),
            ..Inheritance::default()
        };
        let mut tip = default_branch::Tip { sha: "abc".into(), config: crate::config::Config::default(), inheritance };
        let first = config_section(&tip, None, "2026-12-07T10:00:00Z");
        assert!(first.contains("with `acme/.github:gatehouse.yml`: first read at 2026-12-07T10:00:00Z."), "{first}");
        let same = config_section(&tip, Some(&first), "2026-12-07T11:00:00Z");
        assert!(same.contains("unchanged since 2026-12-07T10:00:00Z."), "{same}");
        assert_eq!(config_section(&tip, Some(&same), "2026-12-07T12:00:00Z"), same, "no edit while it holds");
        tip.config.dashboard.enabled = true;
        let changed = config_section(&tip, Some(&same), "2026-12-07T13:00:00Z");
        assert!(changed.contains(": changed at 2026-12-07T13:00:00Z."), "{changed}");
    }

    #[test]
    fn waiting_pull_requests_say_on_what_and_whom() {
        let gate = "Review gate not passed. Still missing:\n\n- 1 more approval from gyrum-priya or gyrum-lin on abc1234\n- gyrum-dana has not reviewed\n\nApprovals:\n\n- x";
        let pulls = [
            Pull {
                number: 4,
                title: "Backups\nby @lin".into(),
                draft: true,
                runs: vec![
                    run(1, REVIEW_CHECK, "failure", "Review gate: 2 items still missing", gate),
                    run(3, REVIEW_CHECK, "failure", "Review gate: 2 items still missing", gate),
                    run(2, "gatehouse/briefs", "failure", "1 error blocks the merge", ""),
                ],
            },
            Pull {
                number: 5,
                title: "Docs".into(),
                draft: false,
                runs: vec![run(4, "gatehouse/briefs", "success", "ok", "")],
            },
            Pull { number: 6, title: "New".into(), draft: false, runs: Vec::new() },
        ];
        let bypassed =
            [BypassedMerge { pr: 3, merge_sha: "0123456789ab".into(), red: "`gatehouse/briefs` (failure)".into() }];
        let body = render("acme/docs", &pulls, &bypassed, None);
        assert!(body.contains("## Merged past the gate"), "{body}");
        assert!(body.contains("- #3 merged as `0123456` past `gatehouse/briefs` (failure)\n"), "{body}");
        assert!(body.starts_with(MARK), "{body}");
        assert!(body.contains("### #4 Backups by @\u{200b}lin (draft)\n"), "{body}");
        assert!(
            body.contains("- **Review gate**: Review gate: 2 items still missing, waiting since 2026-12-07T01:01:00Z\n  - 1 more approval from gyrum-priya or gyrum-lin on abc1234\n  - gyrum-dana has not reviewed\n"),
            "{body}"
        );
        assert!(body.contains("- `gatehouse/briefs` fails: 1 error blocks the merge (waits on the author)"), "{body}");
        assert!(body.contains("## Passing\n\n- #5 Docs\n"), "{body}");
        assert!(body.contains("## Not evaluated yet\n\n- #6 New\n"), "{body}");
        assert_eq!(missing("no list"), Vec::<&str>::new());
    }
}
