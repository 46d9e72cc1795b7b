//! The webhook payloads gatehouse acts on: one struct per event, shaped like
//! GitHub's ("Webhook events and payloads",
//! docs.github.com/en/webhooks/webhook-events-and-payloads), with GitHub's
//! field names and nesting. Each names only the fields gatehouse reads;
//! `installation` is optional as in GitHub's schema (present on deliveries
//! to an App), and so is `sender` (the simulated GitHub leaves it out of
//! some events).

use serde::Deserialize;
use serde::de::IgnoredAny;

/// `installation`: the App installation the delivery is for.
#[derive(Debug, Deserialize)]
pub(crate) struct Installation {
    pub id: u64,
}

/// `repository` (`repository` in GitHub's schema).
#[derive(Debug, Deserialize)]
pub(crate) struct Repository {
    pub full_name: String,
    /// Present on the events' `repository`, absent on an install's list.
    pub default_branch: Option<String>,
}

/// `sender` (`simple-user`): who caused the event. An App's own actions
/// are its bot's, `<slug>[bot]`.
#[derive(Debug, Deserialize)]
pub(crate) struct Sender {
    pub login: String,
}

/// `pull_request` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request): opened,
/// synchronize, reopened, ready_for_review, edited, and the rest.
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequestEvent {
    pub action: PullRequestAction,
    pub number: Option<u64>,
    pub pull_request: PullRequest,
    /// `edited`: which fields changed.
    pub changes: Option<Changes>,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PullRequestAction {
    Opened,
    Synchronize,
    Reopened,
    ReadyForReview,
    Edited,
    Closed,
    #[serde(other)]
    Other,
}

/// The `pull-request` object (the fields gatehouse reads).
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequest {
    pub number: u64,
    pub head: Option<Head>,
    /// `closed`: whether it merged (GitHub: "If the action is closed and
    /// the merged key is true, the pull request was merged").
    #[serde(default)]
    pub merged: Option<bool>,
    /// The commit the merge made, once merged.
    #[serde(default)]
    pub merge_commit_sha: Option<String>,
}

/// `pull_request.head`.
#[derive(Debug, Deserialize)]
pub(crate) struct Head {
    pub sha: String,
}

/// `changes` of `pull_request.edited`: which fields changed (their old
/// values are not read).
#[derive(Debug, Deserialize)]
pub(crate) struct Changes {
    pub body: Option<IgnoredAny>,
    pub base: Option<IgnoredAny>,
}

/// `pull_request_review` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request_review):
/// submitted, edited, dismissed.
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequestReviewEvent {
    pub action: PullRequestReviewAction,
    #[allow(dead_code, reason = "required as GitHub sends it; the worker reads reviews from the API")]
    pub review: Review,
    pub pull_request: PullRequest,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PullRequestReviewAction {
    Submitted,
    Edited,
    Dismissed,
    #[serde(other)]
    Other,
}

/// `review`: the worker reads the reviews from the API, so none of its
/// fields are read here.
#[derive(Debug, Deserialize)]
pub(crate) struct Review {}

/// `check_suite` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#check_suite): requested
/// (a push), rerequested (Re-run all checks), completed.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckSuiteEvent {
    pub action: CheckSuiteAction,
    pub check_suite: CheckSuite,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckSuiteAction {
    Requested,
    Rerequested,
    #[serde(other)]
    Other,
}

/// The `check_suite` object.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckSuite {
    pub head_sha: String,
    /// Null for a fork's suite (its branch is not this repository's).
    pub head_branch: Option<String>,
    /// Empty for a fork's suite and a branch no PR has.
    #[serde(default)]
    pub pull_requests: Vec<PullRequestRef>,
}

/// An entry of `pull_requests` on a check suite or run.
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequestRef {
    pub number: u64,
}

/// `check_run` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#check_run): rerequested
/// (Re-run on one check), requested_action (a button of the run), created,
/// completed.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckRunEvent {
    pub action: CheckRunAction,
    pub check_run: CheckRun,
    /// `requested_action`: the button pressed.
    pub requested_action: Option<RequestedAction>,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckRunAction {
    Rerequested,
    RequestedAction,
    #[serde(other)]
    Other,
}

/// The `check_run` object.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckRun {
    pub head_sha: String,
    pub name: Option<String>,
    #[serde(default)]
    pub pull_requests: Vec<PullRequestRef>,
}

/// `requested_action` of `check_run.requested_action`.
#[derive(Debug, Deserialize)]
pub(crate) struct RequestedAction {
    pub identifier: String,
}

/// `merge_group` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#merge_group):
/// checks_requested, destroyed.
#[derive(Debug, Deserialize)]
pub(crate) struct MergeGroupEvent {
    pub action: MergeGroupAction,
    pub merge_group: MergeGroup,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MergeGroupAction {
    ChecksRequested,
    Destroyed,
    #[serde(other)]
    Other,
}

/// The `merge_group` object (the fields gatehouse reads).
#[derive(Debug, Deserialize)]
pub(crate) struct MergeGroup {
    pub head_sha: String,
    pub head_ref: String,
    pub base_sha: String,
    pub base_ref: String,
}

/// `push` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#push): the full ref pushed
/// (`refs/heads/main`), its tip after the push, and whether the push
/// deleted it.
#[derive(Debug, Deserialize)]
pub(crate) struct PushEvent {
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub after: String,
    #[serde(default)]
    pub deleted: bool,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

/// `installation` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#installation): created,
/// deleted, suspend, and the rest.
#[derive(Debug, Deserialize)]
pub(crate) struct InstallationEvent {
    pub action: InstallationAction,
    pub installation: Installation,
    /// `created`: the repositories the App was installed on.
    pub repositories: Option<Vec<Repository>>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InstallationAction {
    Created,
    #[serde(other)]
    Other,
}

/// `installation_repositories` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#installation_repositories):
/// added, removed.
#[derive(Debug, Deserialize)]
pub(crate) struct InstallationRepositoriesEvent {
    pub action: InstallationRepositoriesAction,
    pub installation: Installation,
    pub repositories_added: Vec<Repository>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InstallationRepositoriesAction {
    Added,
    #[serde(other)]
    Other,
}

/// `issue_comment` ("Webhook events and payloads",
/// docs.github.com/en/webhooks/webhook-events-and-payloads#issue_comment):
/// created, edited, deleted, on an issue or a pull request's conversation
/// (a pull request is an issue with `issue.pull_request` set).
#[derive(Debug, Deserialize)]
pub(crate) struct IssueCommentEvent {
    pub action: IssueCommentAction,
    pub issue: Issue,
    pub comment: Comment,
    pub repository: Repository,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IssueCommentAction {
    Created,
    #[serde(other)]
    Other,
}

/// The `issue` of an `issue_comment` (the fields gatehouse reads).
#[derive(Debug, Deserialize)]
pub(crate) struct Issue {
    pub number: u64,
    /// Who opened it: a pull request's author.
    pub user: Option<User>,
    /// Present (with the pull request's URLs) when the issue is a pull request.
    pub pull_request: Option<IgnoredAny>,
}

/// `comment` (`issue-comment`).
#[derive(Debug, Deserialize)]
pub(crate) struct Comment {
    pub id: u64,
    #[serde(default)]
    pub body: String,
    pub user: Option<User>,
}

/// A `simple-user` with its `type`: `User`, `Bot` (an App's), `Organization`.
#[derive(Debug, Deserialize)]
pub(crate) struct User {
    pub login: String,
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// `membership` ("Webhook events and payloads", membership: added, removed;
/// the organisation's Members permission): a member joined or left `team`.
#[derive(Debug, Deserialize)]
pub(crate) struct MembershipEvent {
    pub team: TeamPayload,
    pub organization: Organization,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

/// `team` ("Webhook events and payloads", team: created, deleted, edited,
/// added_to_repository, removed_from_repository).
#[derive(Debug, Deserialize)]
pub(crate) struct TeamEvent {
    pub team: TeamPayload,
    pub organization: Organization,
    pub installation: Option<Installation>,
    pub sender: Option<Sender>,
}

/// `team` of those payloads (the slug is all that is read).
#[derive(Debug, Deserialize)]
pub(crate) struct TeamPayload {
    pub slug: String,
}

/// `organization` (`organization-simple`).
#[derive(Debug, Deserialize)]
pub(crate) struct Organization {
    pub login: String,
}
