//! What the App answers a command: 👀 on the comment first, then one reply
//! (or, for a recheck that may be asked, the pull request's job).

use anyhow::Result;

use super::{Ask, Command, PREFIX};
use crate::app::worker::{Ctx, Outcome};
use crate::github::answers::{CheckRun, CheckRunList};
use crate::github::check_runs::DIGEST_MARK;
use crate::github::{RepoClient, comments};
use crate::plan::{GATE_REASONS, REVIEW_CHECK};
use crate::store::{Job, PrNumber};

/// Where a check's summary stops saying what it waits on: why the gate
/// applies, the note on annotations, the digest.
const SUMMARY_ENDS: [&str; 3] = [GATE_REASONS, "Every finding in a file is annotated", DIGEST_MARK];
/// At most this much of one check's summary is quoted.
const SECTION_CHARS: usize = 4000;

/// Marks the App's reply to comment `comment` (an HTML comment: GitHub
/// does not show it), so a job run again finds the reply it made.
fn mark(comment: u64) -> String {
    format!("<!-- gatehouse:answer {comment} -->")
}

/// Answers `command`, asked on pull request `number`.
pub(in crate::app) async fn answer(
    ctx: &Ctx,
    worker: &str,
    job: &Job,
    repo: &RepoClient,
    number: PrNumber,
    command: &Command,
) -> Result<Outcome> {
    comments::react(repo, command.comment, "eyes").await?;
    let reply = match &command.ask {
        Ask::Recheck if may_recheck(repo, command).await? => {
            // The pull request's own job takes this one's place, under the
            // pull request's lock, as a re-run.
            if ctx.store.resolve(job, worker, &[number]).await? {
                tracing::info!(job = job.id, pr = number.0, by = %command.by, "recheck asked");
                ctx.wake.notify_waiters();
            }
            return Ok(Outcome::Resolved);
        }
        Ask::Recheck => who_may_recheck(command),
        Ask::Why => why(repo, number, command).await?,
        Ask::Explain(rule) => explain(rule),
        Ask::Help(asked) => help(asked),
    };
    let mark = mark(command.comment);
    if job.attempts > 1 && comments::bodies(repo, number.0).await?.iter().any(|b| b.starts_with(&mark)) {
        tracing::info!(job = job.id, comment = command.comment, "the command was answered already");
        return Ok(Outcome::Evaluated);
    }
    comments::post(repo, number.0, &format!("{mark}\n@{} {reply}", command.by)).await?;
    Ok(Outcome::Evaluated)
}

/// The pull request's author, or a collaborator with at least the triage role.
async fn may_recheck(repo: &RepoClient, command: &Command) -> Result<bool> {
    if command.author.as_deref().is_some_and(|author| author.eq_ignore_ascii_case(&command.by)) {
        return Ok(true);
    }
    Ok(comments::may_triage(repo, &command.by).await?)
}

fn who_may_recheck(command: &Command) -> String {
    let author = command.author.as_deref().map(|a| format!(" (`{a}`)")).unwrap_or_default();
    format!(
        "`{PREFIX} recheck` evaluates this pull request again, which only its author{author} or a collaborator with at \
         least the triage role on this repository may ask. Anyone may ask `{PREFIX} why` and `{PREFIX} explain <rule>`."
    )
}

/// What the review gate and each failing check of the head wait on, and
/// whom, as their check runs show it.
async fn why(repo: &RepoClient, number: PrNumber, command: &Command) -> Result<String> {
    let pr = crate::source::pull_request::describe(repo, number.0).await?;
    let head = pr.head_sha.0;
    let short = &head[..head.len().min(7)];
    // The newest run of each name (GitHub's default `filter=latest`).
    let url = format!("/commits/{head}/check-runs?per_page=100&app_id={}", repo.app_id());
    let list: CheckRunList = repo.get(&url).await?;
    let mut runs: Vec<&CheckRun> = list
        .check_runs
        .iter()
        .filter(|r| r.external_id.as_deref().is_some_and(|e| e.starts_with("gatehouse:")))
        .collect();
    if runs.is_empty() {
        return Ok(format!(
            "gatehouse has not evaluated `{short}`, the head of this pull request, yet; `{PREFIX} recheck` asks for it."
        ));
    }
    runs.sort_by_key(|r| (r.name != REVIEW_CHECK, r.name.clone()));
    let mut waiting = Vec::new();
    let mut passing = Vec::new();
    for run in runs {
        let title = run.output.title.as_deref().unwrap_or("");
        match (run.status.as_str(), run.conclusion.as_deref()) {
            ("completed", Some("success" | "neutral" | "skipped")) => passing.push(format!("`{}` ({title})", run.name)),
            ("completed", _) => {
                let whom = if run.name == REVIEW_CHECK {
                    "the reviewers it names".to_string()
                } else {
                    match &command.author {
                        Some(author) => format!("the author (`{author}`) to change what it lists"),
                        None => "the author to change what it lists".to_string(),
                    }
                };
                let summary = waits_on(run.output.summary.as_deref().unwrap_or(""));
                waiting.push(format!("#### `{}`: {title}\n\nWaits on {whom}.\n\n{summary}", run.name));
            }
            _ => waiting.push(format!("#### `{}`: still being evaluated\n", run.name)),
        }
    }
    let mut reply = if waiting.is_empty() {
        format!("nothing of gatehouse's waits on anyone: every check passes on `{short}`.\n")
    } else {
        format!("on `{short}`, the head of this pull request:\n\n{}\n", waiting.join("\n\n"))
    };
    if !passing.is_empty() {
        reply.push_str(&format!("\nPassing: {}.\n", passing.join(", ")));
    }
    Ok(reply)
}

/// The part of a check's summary that says what it waits on.
fn waits_on(summary: &str) -> String {
    let end = SUMMARY_ENDS.iter().filter_map(|mark| summary.find(mark)).min().unwrap_or(summary.len());
    let text = summary[..end].trim();
    if text.chars().count() <= SECTION_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(SECTION_CHARS).collect();
    format!("{cut}\n\n…cut here: the check run lists the rest.")
}

/// A rule's explain text, as `gatehouse explain <rule>` prints it; an
/// unknown id, with the ids nearest it.
fn explain(rule: &str) -> String {
    let Some(info) = crate::rules::find(rule) else {
        let near: Vec<String> = crate::cli::explain::nearest_rules(rule).iter().map(|id| format!("`{id}`")).collect();
        let hint = if near.is_empty() { String::new() } else { format!(" Did you mean {}?", near.join(", ")) };
        return format!("gatehouse has no rule `{}`.{hint} `gatehouse rules` lists every rule id.", typed(rule));
    };
    let text = crate::cli::explain::explain(info);
    let fence = "`".repeat(longest_backtick_run(&text).max(2) + 1);
    format!("`{PREFIX} explain {rule}`:\n\n{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// What someone typed, shown as inline code: at most 100 characters and
/// no backtick, so it cannot close the code span and be read as Markdown
/// (a mention, a link).
fn typed(text: &str) -> String {
    text.chars().filter(|c| *c != '`').take(100).collect()
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn help(asked: &str) -> String {
    let asked = if asked.is_empty() {
        String::new()
    } else {
        format!("`{PREFIX} {}` is not a command gatehouse knows. ", typed(asked))
    };
    format!(
        "{asked}gatehouse answers these, on the first line of a comment on a pull request:\n\n\
         - `{PREFIX} recheck`: evaluate the head again (its author, or a collaborator with at least the triage role)\n\
         - `{PREFIX} why`: what the review gate and each failing check wait on, and whom\n\
         - `{PREFIX} explain <rule>`: why a rule exists and how to satisfy it (`gatehouse rules` lists the ids)\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn why_quotes_what_a_summary_waits_on() {
        let gate = "Review gate not passed. Still missing:\n\n- 1 more approval from gyrum-priya\n\n**Why the gate applies**\n\n- x";
        assert_eq!(waits_on(gate), "Review gate not passed. Still missing:\n\n- 1 more approval from gyrum-priya");
        let long = "a".repeat(SECTION_CHARS + 10);
        assert!(waits_on(&long).ends_with("the check run lists the rest."));
    }

    #[test]
    fn explain_fences_the_rule_text_and_names_near_ids() {
        let rule = crate::rules::all_rules()[0].id;
        let text = explain(rule);
        assert!(text.contains(&format!("{rule} (")), "{text}");
        assert!(text.contains("```"), "{text}");
        let unknown = explain("no-such-rule-at-all");
        assert!(unknown.starts_with("gatehouse has no rule `no-such-rule-at-all`."), "{unknown}");
        assert_eq!(longest_backtick_run("a ```` b ` c"), 4);
        let sneaky = explain("x` @everyone `y");
        assert!(sneaky.starts_with("gatehouse has no rule `x @everyone y`."), "{sneaky}");
        assert!(
            help("merge` [a](b)").starts_with("`/gatehouse merge [a](b)` is not a command"),
            "kept in the code span"
        );
    }
}
