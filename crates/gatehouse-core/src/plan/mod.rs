//! Deciding what a job shows on GitHub: given what was read (the change,
//! the review gate's reviews, what GitHub already shows), each check's
//! conclusion, title, summary and annotations, the reviewers to ask and the
//! review to post. Pure: the App reads, calls [`pull_request`], and writes
//! the plan where it differs from what GitHub shows.

pub mod dependencies;
pub mod limits;
pub mod merge_group;
pub mod requests;
pub mod review;
pub mod summary;

use std::collections::BTreeSet;

use crate::gate::{self, Contents, Review};
use crate::model::{ChangeSet, Check, Finding, PR_BODY, Report};
use dependencies::{AtBase, Dependencies};
use requests::{GateState, Made, Requests};
use review::{DiffFile, ReviewPlan};
pub use summary::{CheckOutput, GATE_REASONS, REVIEW_CHECK};

/// The check-run names every job reports: the config's check, the check of
/// each registered family (families sharing a check share its run), then
/// the review gate. New families appear here with no App-side change.
pub fn check_names() -> Vec<String> {
    let mut checks: BTreeSet<_> = crate::rules::FAMILIES.iter().map(|f| f.check()).collect();
    checks.insert(Check::Config);
    let mut names: Vec<String> = checks.into_iter().map(|c| c.name().to_string()).collect();
    names.push(REVIEW_CHECK.to_string());
    names
}

/// One check run as planned: its output, the findings annotated on it, and
/// whether it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckPlan {
    pub output: CheckOutput,
    pub annotations: Vec<Finding>,
    pub presence: Presence,
}

/// Whether a check is written on a head. Each run written is a write of the
/// installation's budget, and one a person scrolls past: a check is written
/// where it has something to say or the base branch waits for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Written: the change touches the check's documents (or the review
    /// gate applies), it has findings, or the base branch requires it.
    Written,
    /// Left out, unless a run of it is on the head already (shown in
    /// progress, or an earlier job's), which is then brought up to date:
    /// nothing in the change concerns it and nothing requires it.
    Omitted,
}

/// Which checks the base branch requires, as its rulesets and branch
/// protection say ("About protected branches", "About rulesets").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequiredChecks {
    /// The names of the checks required (others' checks among them).
    Read(BTreeSet<String>),
    /// The rules could not be read (the reason): every check is written,
    /// as if each were required, rather than leave a required one unwritten.
    Unread(String),
}

impl RequiredChecks {
    pub fn requires(&self, name: &str) -> bool {
        match self {
            RequiredChecks::Read(names) => names.contains(name),
            RequiredChecks::Unread(_) => true,
        }
    }
}

/// Each check's output and the findings to annotate on it; `review` is the
/// review gate's, which is written where `gate_applies`. Findings about the
/// pull request body are not annotated (the body is not a file of the
/// commit): the summary lists them.
pub fn outputs(report: &Report, review: CheckOutput, gate_applies: bool, required: &RequiredChecks) -> Vec<CheckPlan> {
    let presence = |concerned: bool, name: &str| {
        if concerned || required.requires(name) { Presence::Written } else { Presence::Omitted }
    };
    let mut out: Vec<CheckPlan> = report
        .checks
        .iter()
        .map(|check| {
            let annotations = check.findings.iter().filter(|f| f.path != PR_BODY).cloned().collect();
            let concerned = check.documents > 0 || check.cites > 0 || !check.findings.is_empty();
            CheckPlan { output: summary::render(check), annotations, presence: presence(concerned, check.name) }
        })
        .collect();
    let presence = presence(gate_applies, REVIEW_CHECK);
    out.push(CheckPlan { output: review, annotations: Vec::new(), presence });
    out
}

/// The commit authors of a pull request, who are recused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Authors {
    Read(Vec<String>),
    /// GitHub lists at most this many commits and the PR has as many: who
    /// is recused cannot be decided, and the gate fails closed.
    Capped(usize),
}

/// What the review gate of a head was read: read when the gate applies and
/// the config has a policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateRead {
    pub reviews: Vec<Review>,
    pub authors: Authors,
    /// The documents' blob ids at the commits approvals were given on.
    pub contents: Contents,
    /// The logins GitHub shows requested already (read when this head is
    /// asked for reviews).
    pub pending: Vec<String>,
    /// What was asked on this head before, when it was.
    pub made: Option<Made>,
    /// Whom a job killed mid-way was about to ask on this head.
    pub asking: Option<Vec<String>>,
    /// Teams' members (those [`gate::teams_wanted`] names), bot accounts,
    /// the pull request's author and assignees.
    pub directory: crate::owners::Directory,
}

/// Everything a pull request's evaluation was read.
#[derive(Clone, Debug)]
pub struct PullRequestRead {
    pub number: u64,
    /// The base branch's tip the PR was read against.
    pub base_sha: String,
    pub head: String,
    pub draft: bool,
    pub changes: ChangeSet,
    pub files: Vec<DiffFile>,
    pub gate: Option<GateRead>,
    /// gatehouse's review comments and threads on the PR.
    pub review: review::Shown,
    /// What the evaluation read from the base branch's tip.
    pub dependencies: Vec<AtBase>,
    /// The PR's entry in the dependency index, from its last evaluation.
    pub previous: Option<Dependencies>,
    /// Which checks the base branch requires.
    pub required: RequiredChecks,
}

/// What a pull request's job writes.
#[derive(Clone, Debug)]
pub struct Plan {
    pub checks: Vec<CheckPlan>,
    /// What changed on the base since the last evaluation, added to each
    /// check's summary written (it is not part of what the check shows, so
    /// it alone does not make a check be written again).
    pub base_note: Option<String>,
    pub requests: Requests,
    pub review: ReviewPlan,
    /// The PR's new entry in the dependency index.
    pub index_entry: Dependencies,
    /// The config at the base enables the dashboard issue: the App brings
    /// it up to date after this evaluation.
    pub dashboard: bool,
    /// Every how many days the reviewers the gate waits on are reminded;
    /// `None`: no reminders (none configured, a draft, or the gate does
    /// not wait).
    pub remind_every_days: Option<u64>,
}

impl Plan {
    /// The review gate's summary says what came of asking for reviews.
    pub fn requests_made(&mut self, made: &Made) {
        if let Some(note) = requests::note(made) {
            self.add_to_review_gate(&note);
        }
    }

    fn add_to_review_gate(&mut self, note: &str) {
        for check in self.checks.iter_mut().filter(|c| c.output.name == REVIEW_CHECK) {
            check.output.summary = summary::fit(format!("{}\n\n{note}\n", check.output.summary.trim_end()));
        }
    }
}

/// Whether the review gate of `changes` is read: it applies, and the config
/// has a policy.
pub fn reads_gate(changes: &ChangeSet) -> Option<gate::Applicability> {
    let applicability = gate::applicability(changes);
    (applicability.applies && changes.config.review.is_some()).then_some(applicability)
}

/// Whether this head asks for reviews, so the logins GitHub shows
/// requested are to be read.
pub fn asks_reviewers(changes: &ChangeSet, head: &str, draft: bool, gate: &GateRead) -> bool {
    let Some(policy) = &changes.config.review else { return false };
    let outcome = outcome(changes, policy, head, gate);
    state(policy, &outcome, draft, gate).asks()
}

/// The review gate's verdict on a head, as [`gate::evaluate_change`]
/// decides it.
pub fn outcome(
    changes: &ChangeSet,
    policy: &crate::config::ReviewConfig,
    head: &str,
    gate: &GateRead,
) -> gate::Outcome {
    let authors = match &gate.authors {
        Authors::Read(authors) => authors.as_slice(),
        Authors::Capped(_) => &[],
    };
    let inputs = gate::Inputs {
        reviews: &gate.reviews,
        commit_authors: authors,
        head,
        contents: &gate.contents,
        directory: &gate.directory,
    };
    gate::evaluate_change(changes, policy, &inputs)
}

fn state<'a>(
    policy: &'a crate::config::ReviewConfig,
    outcome: &'a gate::Outcome,
    draft: bool,
    gate: &'a GateRead,
) -> GateState<'a> {
    let hold = draft || matches!(gate.authors, Authors::Capped(_));
    GateState {
        policy,
        outcome,
        reviews: &gate.reviews,
        hold,
        made: gate.made.as_ref(),
        asking: gate.asking.as_deref(),
    }
}

/// Decides a pull request's checks, review requests and review.
pub fn pull_request(read: &PullRequestRead) -> Plan {
    let changes = &read.changes;
    let report = crate::rules::evaluate(changes);
    let suggestions = review::suggestions(&report, changes);
    let applicability = gate::applicability(changes);
    let policy = changes.config.review.as_ref();
    let mut requests = Requests::None;
    let review_gate = match (policy, &read.gate) {
        (None, _) if applicability.applies => summary::review_gate_unconfigured(&applicability),
        (Some(policy), Some(gate)) if applicability.applies => {
            let outcome = outcome(changes, policy, &read.head, gate);
            requests = requests::decide(&state(policy, &outcome, read.draft, gate), &gate.pending);
            match gate.authors {
                Authors::Capped(cap) => summary::fail_closed(
                    REVIEW_CHECK,
                    &format!(
                        "This pull request has {cap} commits or more; GitHub lists at most that many, so gatehouse \
                         cannot read every commit author to decide who is recused. Squash or split the pull request."
                    ),
                ),
                Authors::Read(_) => summary::review_gate(&applicability, Some(&outcome)),
            }
        }
        _ => summary::review_gate(&applicability, None),
    };
    let findings: Vec<&Finding> = report.findings().collect();
    let review = review::plan(&read.head, &findings, &read.files, &suggestions, &read.review);
    let base_note = dependencies::base_changes(read.previous.as_ref(), &read.base_sha, &read.dependencies);
    let index_entry = dependencies::entry(read.number, &read.base_sha, &read.dependencies);
    let dashboard = changes.config.dashboard.enabled;
    let gate_waits = review_gate.conclusion == "failure" && !read.draft;
    let remind_every_days = policy.map(|p| p.remind_after_days).filter(|days| *days > 0 && gate_waits);
    let checks = outputs(&report, review_gate, applicability.applies, &read.required);
    let mut plan = Plan { checks, base_note, requests, review, index_entry, dashboard, remind_every_days };
    if let Requests::Made(made) = &plan.requests {
        let made = made.clone();
        plan.requests_made(&made);
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ReviewConfig;
    use crate::gate::ReviewState;
    use crate::model::FileContent;

    const HEAD: &str = "abc1234def5678";

    /// A PR adding a brief over the review gate's threshold, with a policy
    /// that asks for reviews.
    fn read() -> PullRequestRead {
        let mut changes = ChangeSet::default();
        let brief = "---\nagent: SWARM-AR\nrepos_touched: [a/b]\nlines_estimate: 400\n---\n";
        changes.head.insert("dark-factory/briefs/SWARM-AR-x.md".into(), FileContent::Text(brief.into()));
        changes.config.review = Some(ReviewConfig {
            core_reviewers: vec!["gyrum-marcus".into(), "gyrum-priya".into()],
            request_reviewers: true,
            ..Default::default()
        });
        let approval = Review {
            login: "gyrum-marcus".into(),
            state: ReviewState::Approved,
            commit: Some(HEAD.into()),
            submitted_at: None,
        };
        PullRequestRead {
            number: 7,
            base_sha: "base000".into(),
            head: HEAD.into(),
            draft: false,
            changes,
            files: Vec::new(),
            gate: Some(GateRead {
                reviews: vec![approval],
                authors: Authors::Read(vec!["author".into()]),
                contents: Contents::default(),
                pending: Vec::new(),
                made: None,
                asking: None,
                directory: Default::default(),
            }),
            review: review::Shown::default(),
            dependencies: Vec::new(),
            previous: None,
            required: RequiredChecks::Read(BTreeSet::new()),
        }
    }

    fn review_gate(plan: &Plan) -> &CheckOutput {
        &plan.checks.iter().find(|c| c.output.name == REVIEW_CHECK).unwrap().output
    }

    fn written(plan: &Plan) -> Vec<&str> {
        plan.checks.iter().filter(|c| c.presence == Presence::Written).map(|c| c.output.name.as_str()).collect()
    }

    #[test]
    fn a_brief_change_writes_the_briefs_and_the_gate_and_what_the_branch_requires() {
        let mut read = read();
        assert_eq!(written(&pull_request(&read)), ["gatehouse/briefs", REVIEW_CHECK], "nothing required");
        read.required = RequiredChecks::Read(["gatehouse/specs".to_string(), "ci/build".to_string()].into());
        assert_eq!(written(&pull_request(&read)), ["gatehouse/briefs", "gatehouse/specs", REVIEW_CHECK]);
        read.required = RequiredChecks::Unread("403 Resource not accessible by integration".into());
        assert_eq!(written(&pull_request(&read)), check_names(), "the rules unread: every check");

        // A change of no governed document: nothing to say, nothing written.
        read.changes.head.clear();
        read.required = RequiredChecks::Read(BTreeSet::new());
        assert!(written(&pull_request(&read)).is_empty(), "{:?}", written(&pull_request(&read)));
        // The config changed: its check says so.
        read.changes.head.insert(crate::config::CONFIG_PATH.into(), FileContent::Text("review: {}\n".into()));
        assert_eq!(written(&pull_request(&read)), ["gatehouse/config"]);
    }

    #[test]
    fn a_pull_request_the_gate_holds_asks_its_reviewers_once() {
        let read = read();
        assert!(asks_reviewers(&read.changes, HEAD, false, read.gate.as_ref().unwrap()));
        let mut plan = pull_request(&read);
        let names: Vec<&str> = plan.checks.iter().map(|c| c.output.name.as_str()).collect();
        assert_eq!(names, check_names(), "one output per check, in order");
        assert_eq!(review_gate(&plan).conclusion, "failure");
        let Requests::Ask(wanted) = &plan.requests else { panic!("{:?}", plan.requests) };
        assert_eq!(wanted, &["gyrum-priya"], "not who approved already");
        assert_eq!(plan.index_entry, Dependencies { pr: 7, base_sha: "base000".into(), documents: vec![] });
        assert_eq!(plan.base_note, None, "not evaluated before");
        plan.requests_made(&Made { requested: wanted.clone(), refused: vec![] });
        assert!(review_gate(&plan).summary.contains("requested reviews from `gyrum-priya`"));

        let mut asked = read.clone();
        asked.gate.as_mut().unwrap().made = Some(Made { requested: vec!["gyrum-priya".into()], refused: vec![] });
        let again = pull_request(&asked);
        assert!(matches!(again.requests, Requests::Made(_)), "asked once per head");
        assert!(review_gate(&again).summary.contains("requested reviews from `gyrum-priya`"));

        let mut draft = read.clone();
        draft.draft = true;
        assert_eq!(pull_request(&draft).requests, Requests::None, "a draft asks nobody");
    }

    #[test]
    fn the_plan_decides_with_codeowners_and_asks_a_missing_team_as_a_team() {
        let mut read = read();
        read.changes.codeowners =
            Some(crate::owners::BaseFile { path: "CODEOWNERS".into(), text: "/dark-factory/ @gyrum/leads\n".into() });
        if let Some(policy) = read.changes.config.review.as_mut() {
            policy.owners = crate::config::OwnersFrom::Codeowners;
        }
        assert_eq!(gate::teams_wanted(&read.changes), [crate::owners::TeamRef::new("gyrum", "leads")]);
        let gate = read.gate.as_mut().unwrap();
        gate.directory.teams.insert(
            crate::owners::TeamRef::new("gyrum", "leads"),
            crate::owners::Members::Read(vec!["gyrum-lin".into()]),
        );
        let plan = pull_request(&read);
        let Requests::Ask(wanted) = &plan.requests else { panic!("{:?}", plan.requests) };
        assert_eq!(wanted, &["gyrum-priya", "@gyrum/leads"]);
        let summary = &review_gate(&plan).summary;
        assert!(summary.contains("| 1 approval from @gyrum/leads for `dark-factory/briefs/SWARM-AR-x.md` |  | 1 more | gatehouse | `CODEOWNERS`:1 |"), "{summary}");
    }

    #[test]
    fn commit_authors_past_github_s_list_fail_the_gate_closed_and_ask_nobody() {
        let mut read = read();
        read.gate.as_mut().unwrap().authors = Authors::Capped(250);
        let plan = pull_request(&read);
        let gate = review_gate(&plan);
        assert_eq!((gate.conclusion, gate.title.as_str()), ("failure", "Cannot evaluate this pull request"));
        assert!(gate.summary.contains("250 commits or more"), "{}", gate.summary);
        assert_eq!(plan.requests, Requests::None);
    }

    #[test]
    fn without_a_policy_the_gate_is_unconfigured_and_nothing_is_read_for_it() {
        let mut read = read();
        read.changes.config.review = None;
        read.gate = None;
        assert!(reads_gate(&read.changes).is_none());
        let plan = pull_request(&read);
        assert_eq!(review_gate(&plan).title, "Review gate not configured");
        assert_eq!(plan.requests, Requests::None);
    }
}
