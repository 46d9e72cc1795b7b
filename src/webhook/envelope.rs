//! What a verified delivery asks for. Parsed only after the signature
//! verified; the payload types name just the fields gatehouse reads.

use serde::Deserialize;

use crate::publish::checks::RERUN_ACTION;
use crate::store::{MergeGroupRecord, NewJob};

#[derive(Deserialize)]
struct Payload {
    action: Option<String>,
    installation: Option<Installation>,
    repository: Option<Repository>,
    number: Option<u64>,
    pull_request: Option<PullRequest>,
    changes: Option<Changes>,
    check_suite: Option<CheckSuite>,
    check_run: Option<CheckRun>,
    requested_action: Option<RequestedAction>,
    review: Option<serde::de::IgnoredAny>,
    merge_group: Option<MergeGroup>,
    sender: Option<Sender>,
    /// `installation.created`: the repositories it was installed on.
    repositories: Option<Vec<Repository>>,
    /// `installation_repositories.added`.
    repositories_added: Option<Vec<Repository>>,
    /// `push`: the full ref pushed (`refs/heads/main`), its tip after the
    /// push, and whether the push deleted it ("Webhook events and payloads",
    /// push).
    #[serde(rename = "ref")]
    pushed_ref: Option<String>,
    after: Option<String>,
    #[serde(default)]
    deleted: bool,
}

/// Who caused the event (`simple-user`: an App's own actions are its bot's,
/// `<slug>[bot]`).
#[derive(Deserialize)]
struct Sender {
    login: String,
}

/// GitHub's `merge_group` object (the fields gatehouse reads).
#[derive(Deserialize)]
struct MergeGroup {
    head_sha: String,
    head_ref: String,
    base_sha: String,
    base_ref: String,
}

#[derive(Deserialize)]
struct Installation {
    id: u64,
}

#[derive(Deserialize)]
struct Repository {
    full_name: String,
    /// Present on the events' `repository` (absent on an install's list).
    default_branch: Option<String>,
}

#[derive(Deserialize)]
struct PullRequest {
    number: u64,
    head: Option<Head>,
}

#[derive(Deserialize)]
struct Head {
    sha: String,
}

/// `changes` of `pull_request.edited`: which fields changed (their old
/// values are not read).
#[derive(Deserialize)]
struct Changes {
    body: Option<serde::de::IgnoredAny>,
    base: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct CheckSuite {
    head_sha: String,
    /// Null for a fork's suite (its branch is not this repository's).
    head_branch: Option<String>,
    #[serde(default)]
    pull_requests: Vec<PrRef>,
}

#[derive(Deserialize)]
struct CheckRun {
    head_sha: String,
    name: Option<String>,
    #[serde(default)]
    pull_requests: Vec<PrRef>,
}

#[derive(Deserialize)]
struct PrRef {
    number: u64,
}

#[derive(Deserialize)]
struct RequestedAction {
    identifier: String,
}

/// The events the App subscribes to (app-manifest.yml) or GitHub sends every
/// App: the only `X-GitHub-Event` values `/metrics` labels by name.
pub const KNOWN_EVENTS: [&str; 9] = [
    "check_run",
    "check_suite",
    "installation",
    "installation_repositories",
    "merge_group",
    "ping",
    "pull_request",
    "pull_request_review",
    "push",
];

/// The reason of the job a push to the default branch makes.
pub const PUSH_REASON: &str = "push";

/// What to do with a delivery.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub jobs: Vec<NewJob>,
    /// The sender's login, to tell the App's own events from others'.
    pub sender: Option<String>,
    /// A merge group to record before its job is stored.
    pub merge_group: Option<MergeGroupRecord>,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("the body is not a JSON webhook payload: {0}")]
    NotJson(String),
}

/// Reads a verified delivery of `event`. Unknown events and actions are work
/// for nobody (GitHub expects a 2xx); a body that is not JSON is an error.
pub fn parse(event: &str, body: &[u8]) -> Result<Work, EnvelopeError> {
    let payload: Payload = serde_json::from_slice(body).map_err(|e| EnvelopeError::NotJson(e.to_string()))?;
    let action = payload.action.as_deref().unwrap_or("");
    let repo = payload.repository.as_ref().map(|r| r.full_name.clone());
    let installation = payload.installation.as_ref().map(|i| i.id);
    let sender = payload.sender.as_ref().map(|s| s.login.clone());
    if let (Some(installation), Some(added)) = (installation, installed(event, action, &payload)) {
        // An install: each repository's open PRs (PR 0 without a head asks
        // the worker to list them).
        let jobs = added
            .iter()
            .take(MAX_INSTALLED_REPOS)
            .map(|r| NewJob {
                repo: r.full_name.clone(),
                pr: 0,
                installation,
                head_sha: None,
                reason: format!("{event}.{action}"),
                check: None,
            })
            .collect();
        return Ok(Work { jobs, sender, merge_group: None });
    }
    let (Some(repo), Some(installation)) = (repo, installation) else {
        return Ok(Work::default());
    };
    if event == "push" {
        return Ok(Work {
            jobs: pushed(&payload, &repo, installation).into_iter().collect(),
            sender,
            merge_group: None,
        });
    }
    let reason = format!("{event}.{action}");
    let job = |pr: u64, head_sha: Option<String>, check: Option<&str>| NewJob {
        repo: repo.clone(),
        pr,
        installation,
        head_sha,
        reason: reason.clone(),
        check: check.map(str::to_string),
    };
    let mut work = Work { sender, ..Work::default() };
    match (event, action) {
        ("pull_request", "opened" | "synchronize" | "reopened" | "ready_for_review" | "edited") => {
            let edited_what_matters = payload.changes.as_ref().is_some_and(|c| c.body.is_some() || c.base.is_some());
            if action == "edited" && !edited_what_matters {
                return Ok(work);
            }
            if let Some(pr) = &payload.pull_request {
                let number = payload.number.unwrap_or(pr.number);
                work.jobs.push(job(number, pr.head.as_ref().map(|h| h.sha.clone()), None));
            }
        }
        ("check_suite", "requested" | "rerequested") => {
            // A suite of a named branch with no PR (a push to `main`) has
            // nothing to check; a fork's (`head_branch: null`) is found by head.
            if let Some(suite) =
                payload.check_suite.as_ref().filter(|s| !s.pull_requests.is_empty() || s.head_branch.is_none())
            {
                work.jobs.extend(for_prs(&suite.pull_requests, &suite.head_sha, |pr, sha| job(pr, sha, None)));
            }
        }
        ("check_run", "rerequested" | "requested_action") => {
            let rerun = action == "rerequested"
                || payload.requested_action.as_ref().is_some_and(|a| a.identifier == RERUN_ACTION);
            if let (true, Some(run)) = (rerun, &payload.check_run) {
                // GitHub's Re-run on one check re-runs that check; the
                // run's own Re-run button evaluates the whole PR again.
                let names = crate::publish::check_names();
                let one = run.name.as_deref().filter(|n| action == "rerequested" && names.iter().any(|c| c == n));
                work.jobs.extend(for_prs(&run.pull_requests, &run.head_sha, |pr, sha| job(pr, sha, one)));
            }
        }
        ("pull_request_review", "submitted" | "edited" | "dismissed") => {
            if let (Some(pr), Some(_)) = (&payload.pull_request, &payload.review) {
                // The review gate is evaluated again (only it: the documents did not change).
                let gate = Some(crate::publish::summary::REVIEW_CHECK);
                work.jobs.push(job(pr.number, pr.head.as_ref().map(|h| h.sha.clone()), gate));
            }
        }
        ("merge_group", "checks_requested" | "destroyed") => {
            if let Some(group) = &payload.merge_group {
                // Keyed by the group's head: PR number 0 with the head, as a
                // merge group has no PR of its own.
                work.jobs.push(job(0, Some(group.head_sha.clone()), None));
                work.merge_group = Some(MergeGroupRecord {
                    repo: repo.clone(),
                    head_sha: group.head_sha.clone(),
                    base_sha: group.base_sha.clone(),
                    base_ref: group.base_ref.clone(),
                    head_ref: group.head_ref.clone(),
                });
            }
        }
        _ => {}
    }
    Ok(work)
}

/// A push to the repository's default branch: one job (PR number 0, keyed
/// by the new tip) that re-evaluates the open pull requests whose documents
/// depend on what changed. Pushes to other branches, tags and a deleted
/// branch ask for nothing: a pull request's own pushes come as
/// `pull_request.synchronize`.
fn pushed(payload: &Payload, repo: &str, installation: u64) -> Option<NewJob> {
    let default = payload.repository.as_ref()?.default_branch.as_deref()?;
    let branch = payload.pushed_ref.as_deref()?.strip_prefix("refs/heads/")?;
    if branch != default || payload.deleted {
        return None;
    }
    Some(NewJob {
        repo: repo.to_string(),
        pr: 0,
        installation,
        head_sha: Some(payload.after.clone()?),
        reason: PUSH_REASON.to_string(),
        check: None,
    })
}

/// At most this many repositories of one install are evaluated.
const MAX_INSTALLED_REPOS: usize = 100;

/// The repositories an install event added.
fn installed<'p>(event: &str, action: &str, payload: &'p Payload) -> Option<&'p Vec<Repository>> {
    match (event, action) {
        ("installation", "created") => payload.repositories.as_ref(),
        ("installation_repositories", "added") => payload.repositories_added.as_ref(),
        _ => None,
    }
}

/// One job per listed PR; none listed (a fork's PR: GitHub leaves the list
/// empty) means "the open PRs whose head is `sha`", which PR number 0 asks the
/// worker to find.
fn for_prs(prs: &[PrRef], sha: &str, job: impl Fn(u64, Option<String>) -> NewJob) -> Vec<NewJob> {
    if prs.is_empty() {
        return vec![job(0, Some(sha.to_string()))];
    }
    prs.iter().map(|p| job(p.number, Some(sha.to_string()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PR_OPENED: &str = r#"{"action":"opened","number":7,"pull_request":{"number":7,"head":{"sha":"abc"}},
        "repository":{"full_name":"acme/docs"},"installation":{"id":42}}"#;

    #[test]
    fn pull_request_events_make_one_job() {
        let work = parse("pull_request", PR_OPENED.as_bytes()).unwrap();
        assert_eq!(work.jobs.len(), 1);
        assert_eq!(work.jobs[0].pr, 7);
        assert_eq!(work.jobs[0].installation, 42);
        assert_eq!(work.jobs[0].head_sha.as_deref(), Some("abc"));
        assert_eq!(work.jobs[0].reason, "pull_request.opened");
    }

    #[test]
    fn title_edits_are_ignored_and_body_edits_are_not() {
        let title = PR_OPENED.replace("\"opened\"", "\"edited\",\"changes\":{\"title\":{\"from\":\"x\"}}");
        assert!(parse("pull_request", title.as_bytes()).unwrap().jobs.is_empty());
        let body = PR_OPENED.replace("\"opened\"", "\"edited\",\"changes\":{\"body\":{\"from\":\"x\"}}");
        assert_eq!(parse("pull_request", body.as_bytes()).unwrap().jobs.len(), 1);
    }

    #[test]
    fn a_fork_check_suite_asks_for_the_prs_of_its_head() {
        let body = r#"{"action":"requested","check_suite":{"head_sha":"f00","pull_requests":[]},
            "repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        let work = parse("check_suite", body.as_bytes()).unwrap();
        assert_eq!(work.jobs[0].pr, 0);
        assert_eq!(work.jobs[0].head_sha.as_deref(), Some("f00"));
    }

    #[test]
    fn a_branch_suite_without_prs_makes_no_job() {
        let body = r#"{"action":"requested","check_suite":{"head_sha":"f00","head_branch":"main","pull_requests":[]},
            "repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        assert!(parse("check_suite", body.as_bytes()).unwrap().jobs.is_empty());
    }

    #[test]
    fn an_install_asks_for_each_repositorys_open_prs() {
        let created = r#"{"action":"created","installation":{"id":9},"sender":{"login":"octo"},
            "repositories":[{"full_name":"acme/docs"},{"full_name":"acme/site"}]}"#;
        let work = parse("installation", created.as_bytes()).unwrap();
        let repos: Vec<(&str, u64, Option<&str>)> =
            work.jobs.iter().map(|j| (j.repo.as_str(), j.pr, j.head_sha.as_deref())).collect();
        assert_eq!(repos, [("acme/docs", 0, None), ("acme/site", 0, None)]);
        let added = r#"{"action":"added","installation":{"id":9},"repositories_added":[{"full_name":"acme/ops"}],
            "repositories_removed":[]}"#;
        let work = parse("installation_repositories", added.as_bytes()).unwrap();
        assert_eq!((work.jobs.len(), work.jobs[0].reason.as_str()), (1, "installation_repositories.added"));
        let deleted = created.replace("\"created\"", "\"deleted\"");
        assert!(parse("installation", deleted.as_bytes()).unwrap().jobs.is_empty());
    }

    #[test]
    fn only_the_rerun_button_reruns() {
        let body = |identifier: &str| {
            format!(
                r#"{{"action":"requested_action","requested_action":{{"identifier":"{identifier}"}},
                "check_run":{{"head_sha":"abc","pull_requests":[{{"number":3}}]}},
                "repository":{{"full_name":"acme/docs"}},"installation":{{"id":1}}}}"#
            )
        };
        let rerun = parse("check_run", body(RERUN_ACTION).as_bytes()).unwrap();
        assert_eq!((rerun.jobs.len(), rerun.jobs[0].pr), (1, 3));
        assert!(parse("check_run", body("lgtm").as_bytes()).unwrap().jobs.is_empty());
    }

    #[test]
    fn a_rerequested_check_asks_for_that_check_only() {
        let body = |name: &str| {
            format!(
                r#"{{"action":"rerequested","check_run":{{"name":"{name}","head_sha":"abc","pull_requests":[{{"number":3}}]}},
                "repository":{{"full_name":"acme/docs"}},"installation":{{"id":1}}}}"#
            )
        };
        let briefs = parse("check_run", body("gatehouse/briefs").as_bytes()).unwrap();
        assert_eq!(briefs.jobs[0].check.as_deref(), Some("gatehouse/briefs"));
        let gate = parse("check_run", body("gatehouse/review").as_bytes()).unwrap();
        assert_eq!(gate.jobs[0].check.as_deref(), Some("gatehouse/review"));
        let unknown = parse("check_run", body("someone/else").as_bytes()).unwrap();
        assert_eq!(unknown.jobs[0].check, None, "a check gatehouse does not know: everything");
    }

    #[test]
    fn a_review_re_gates_the_pr() {
        let body = r#"{"action":"submitted","review":{"id":9,"user":{"login":"gyrum-lin"},"state":"APPROVED","commit_id":"abc"},
            "pull_request":{"number":4,"head":{"sha":"abc"}},"repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        let work = parse("pull_request_review", body.as_bytes()).unwrap();
        assert_eq!(work.jobs[0].pr, 4);
        assert_eq!(work.jobs[0].reason, "pull_request_review.submitted");
        assert_eq!(work.jobs[0].check.as_deref(), Some("gatehouse/review"), "only the gate");
    }

    #[test]
    fn a_merge_group_is_recorded_and_keyed_by_its_head() {
        let body = r#"{"action":"checks_requested","merge_group":{"head_sha":"ff01","head_ref":"refs/heads/gh-readonly-queue/main/pr-2-ee02",
            "base_sha":"ee02","base_ref":"refs/heads/main","head_commit":{"id":"ff01","tree_id":"aa","message":"Merge pull request #2",
            "timestamp":"2026-11-30T10:00:00Z","author":{"name":"a","email":"a@example.com"},"committer":{"name":"GitHub","email":"noreply@github.com"}}},
            "repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        let work = parse("merge_group", body.as_bytes()).unwrap();
        assert_eq!((work.jobs[0].pr, work.jobs[0].head_sha.as_deref()), (0, Some("ff01")));
        assert_eq!(work.jobs[0].reason, "merge_group.checks_requested");
        let group = work.merge_group.unwrap();
        assert_eq!((group.base_sha.as_str(), group.base_ref.as_str()), ("ee02", "refs/heads/main"));
        let destroyed = body.replace("checks_requested", "destroyed\",\"reason\":\"dequeued");
        assert_eq!(parse("merge_group", destroyed.as_bytes()).unwrap().jobs[0].reason, "merge_group.destroyed");
    }

    /// A push payload in the shape "Webhook events and payloads" gives
    /// (`ref`, `before`, `after`, `created`, `deleted`, `forced`, `commits`
    /// with `added`/`removed`/`modified`, `head_commit`, `pusher`).
    fn push(git_ref: &str, deleted: bool) -> String {
        format!(
            r#"{{"ref":"{git_ref}","before":"aa01","after":"bb02","created":false,"deleted":{deleted},"forced":false,
            "base_ref":null,"compare":"https://github.com/acme/docs/compare/aa01...bb02",
            "commits":[{{"id":"bb02","tree_id":"cc03","distinct":true,"message":"Supersede ADR-095",
              "timestamp":"2026-12-01T10:00:00Z","url":"https://github.com/acme/docs/commit/bb02",
              "author":{{"name":"Lin","email":"lin@example.com","username":"gyrum-lin"}},
              "committer":{{"name":"GitHub","email":"noreply@github.com","username":"web-flow"}},
              "added":[],"removed":[],"modified":["docs/adr/ADR-095-backups.md"]}}],
            "head_commit":null,"pusher":{{"name":"gyrum-lin","email":"lin@example.com"}},
            "repository":{{"full_name":"acme/docs","default_branch":"main"}},"installation":{{"id":5}},
            "sender":{{"login":"gyrum-lin"}}}}"#
        )
    }

    #[test]
    fn a_push_to_the_default_branch_asks_for_a_recheck() {
        let work = parse("push", push("refs/heads/main", false).as_bytes()).unwrap();
        assert_eq!(work.jobs.len(), 1);
        let job = &work.jobs[0];
        assert_eq!((job.pr, job.head_sha.as_deref(), job.reason.as_str()), (0, Some("bb02"), PUSH_REASON));
        assert_eq!((job.repo.as_str(), job.installation, job.check.as_deref()), ("acme/docs", 5, None));
        for (git_ref, deleted) in [("refs/heads/feature", false), ("refs/tags/v1", false), ("refs/heads/main", true)] {
            assert!(parse("push", push(git_ref, deleted).as_bytes()).unwrap().jobs.is_empty(), "{git_ref} {deleted}");
        }
    }

    #[test]
    fn unknown_events_and_garbage() {
        assert_eq!(parse("star", br#"{"action":"created"}"#).unwrap(), Work::default());
        assert!(parse("pull_request", b"not json").is_err());
        assert_eq!(parse("pull_request", b"{}").unwrap(), Work::default());
    }
}
