//! A stateful simulated GitHub on loopback, for the integration tests and
//! `gatehouse demo` (the production path never uses it): repositories built
//! from file trees (a base and a head tree per PR), the REST and GraphQL
//! routes gatehouse calls, RS256 verification of the App JWT, installation
//! tokens (of a settable life), stored check runs, reviews, threads and PR
//! comments with GitHub's length limits, webhook deliveries to the App with
//! their history and redelivery, a request log, switches that
//! inject 500s, any status (401, 404, 422...), secondary rate limits, slow
//! responses, answers missing a field and review lines GitHub cannot place,
//! a stall that stands for the client dying after a write, and the App manifest
//! flow (`gatehouse register`).

#![warn(unreachable_pub)]

mod branches;
mod comments;
mod deliveries;
pub mod diff;
mod events;
mod faults;
mod graphql;
mod issues;
mod manifests;
mod merges;
mod push;
mod queue;
mod routes;
mod rules;
mod secondary;
mod teams;
mod tree;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};

pub use comments::Reaction;
pub use deliveries::{HISTORY_S, HookDelivery};
pub use issues::Issue;
pub use manifests::{CODE_LIFE_S, ManifestApp};
pub use queue::MergeGroupRefs;
pub use secondary::SecondaryLimits;
pub use tree::{Tree, blob_sha, commit_sha, tree_from_dir};

/// A check run as the simulated GitHub stores it.
#[derive(Clone, Debug)]
pub struct CheckRun {
    pub id: u64,
    pub repo: String,
    pub name: String,
    pub head_sha: String,
    pub external_id: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub title: String,
    pub summary: String,
    pub text: String,
    pub annotations: Vec<Value>,
    /// How often it was created or updated.
    pub writes: u32,
}

#[derive(Clone, Debug)]
pub struct ReviewComment {
    pub path: String,
    /// The first line of a multi-line comment.
    pub start_line: Option<u32>,
    pub line: u32,
    pub body: String,
}

#[derive(Clone, Debug)]
pub struct Review {
    pub id: u64,
    pub repo: String,
    pub pr: u64,
    /// Who reviewed: the App's reviews are by `gatehouse[bot]`.
    pub user: String,
    /// `COMMENTED`, `APPROVED`, `CHANGES_REQUESTED`, `DISMISSED`.
    pub state: String,
    pub commit_id: String,
    pub event: String,
    pub body: String,
    pub comments: Vec<ReviewComment>,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub id: String,
    pub repo: String,
    pub pr: u64,
    pub path: String,
    pub line: u32,
    pub resolved: bool,
    pub body: String,
}

/// One request the simulated GitHub answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logged {
    pub method: String,
    /// The path without its query.
    pub path: String,
    pub status: u16,
}

/// Fault switches. Counters count down per matching request.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// Answer the next N matching requests with 500 (nothing applied).
    pub fail_next: u32,
    /// Answer the next N matching requests with a secondary rate limit
    /// ("Rate limits for the REST API": 403 or 429, `rate_limit_status`,
    /// 0 for 403), with `retry-after: retry_after_s` unless that is 0.
    pub rate_limit_next: u32,
    pub retry_after_s: u64,
    pub rate_limit_status: u16,
    /// Answer the next N matching requests as over the primary rate limit
    /// (403, `x-ratelimit-remaining: 0`, `x-ratelimit-reset` `reset_after_s`
    /// ahead, 0 for one second).
    pub exhaust_next: u32,
    pub reset_after_s: u64,
    /// Answer the next N matching GraphQL requests as over GraphQL's limit
    /// ("Rate limits and node limits for the GraphQL API": HTTP 200, an
    /// error of type `RATE_LIMITED`, `x-ratelimit-remaining: 0` and
    /// `x-ratelimit-reset` `reset_after_s` ahead).
    pub graphql_rate_limited_next: u32,
    /// Apply the next N matching requests, then wait `delay` before
    /// answering (a slow GitHub: the client may time out after the write).
    pub slow_next: u32,
    pub delay: Duration,
    /// Answer the next N matching requests with `status` and a GitHub-shaped
    /// error (nothing applied): 401, 404, 422...
    pub status_next: u32,
    pub status: u16,
    /// Answer the next N matching requests without `omit_field` wherever
    /// it appears in their JSON (an answer GitHub's schema does not allow).
    pub omit_next: u32,
    pub omit_field: String,
    /// Only requests whose `METHOD path` contains this (empty: all).
    pub only: String,
}

#[derive(Debug)]
pub(crate) struct Pull {
    pub number: u64,
    /// The base branch's tip (`pull_request.base.sha`).
    pub base_sha: String,
    /// Where the head branched from the base: the PR's diff starts here.
    pub merge_base: String,
    pub head_sha: String,
    pub body: String,
    pub title: String,
    pub from_fork: bool,
    /// A draft pull request ("About pull requests": drafts cannot be
    /// merged, and code owners are not asked until ready for review).
    pub draft: bool,
    /// Logins of the PR's commit authors (the last commit is the head).
    pub authors: Vec<String>,
    /// The merge commit, once merged (the PR is then closed).
    pub merged: Option<String>,
}

/// The changed files between two commits, as the files API lists them.
pub(crate) type Diff = Arc<Vec<serde_json::Value>>;

#[derive(Debug, Default)]
pub(crate) struct Repo {
    pub full_name: String,
    pub commits: HashMap<String, Arc<Tree>>,
    /// Branch and tag names → commit ids.
    pub refs: HashMap<String, String>,
    pub pulls: BTreeMap<u64, Pull>,
    /// Parents of the commits that have them (merge groups).
    pub parents: HashMap<String, Vec<String>>,
    /// PR number → logins asked for a review who have not reviewed.
    pub requested: BTreeMap<u64, Vec<String>>,
    /// Logins that are not collaborators: review requests naming them get 422.
    pub non_collaborators: Vec<String>,
    /// The changed files between two commits (base, head), once computed.
    pub diffs: std::sync::Mutex<HashMap<(String, String), Diff>>,
    /// Commit id → its recursive listing's body.
    pub listings: HashMap<String, axum::body::Bytes>,
}

impl Repo {
    /// Stores `tree` as commit `sha`, with its listing written once (GitHub
    /// serves a stored tree rather than hashing every blob per request),
    /// forgetting what was derived from an earlier tree under that id.
    pub(crate) fn put_commit(&mut self, sha: String, tree: Tree) {
        let listing = diff::listing(&sha, &tree);
        self.listings.insert(sha.clone(), listing);
        self.diffs.get_mut().unwrap_or_else(|e| e.into_inner()).retain(|(b, h), _| *b != sha && *h != sha);
        self.commits.insert(sha, Arc::new(tree));
    }

    /// The commit a revision names: a ref, a full commit id, or an
    /// unambiguous prefix of one (at least 4 hex digits), as `git rev-parse`.
    pub(crate) fn resolve(&self, rev: &str) -> Option<&str> {
        if let Some(sha) = self.refs.get(rev) {
            return Some(sha);
        }
        if let Some((sha, _)) = self.commits.get_key_value(rev) {
            return Some(sha);
        }
        if rev.len() < 4 || !rev.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut matching = self.commits.keys().filter(|sha| sha.starts_with(rev));
        let first = matching.next()?;
        matching.next().is_none().then_some(first.as_str())
    }
}

#[derive(Debug)]
pub(crate) struct State {
    pub app_id: u64,
    pub key: jsonwebtoken::DecodingKey,
    pub installation: u64,
    /// token → expiry (Unix seconds).
    pub tokens: HashMap<String, u64>,
    /// The body of every token request, in order.
    pub token_requests: Vec<Value>,
    /// token → the repository names it is scoped to (absent: all).
    pub token_scopes: HashMap<String, Vec<String>>,
    /// Names (lowercase) of the account's repositories the installation was
    /// not given: "Installing GitHub Apps" lets an owner install an App on
    /// selected repositories only.
    pub uninstalled: Vec<String>,
    pub repos: HashMap<String, Repo>,
    pub check_runs: Vec<CheckRun>,
    pub reviews: Vec<Review>,
    pub threads: Vec<Thread>,
    pub log: Vec<Logged>,
    pub faults: Faults,
    pub next_id: u64,
    /// Every JWT accepted, for tests of the claims.
    pub jwts_seen: u32,
    /// Its own address, for the URLs it hands out.
    pub base_url: String,
    pub manifests: manifests::Registry,
    /// How long a minted installation token lives (GitHub: an hour).
    pub token_life_s: u64,
    /// Lines GitHub cannot place a review comment on: (repo, PR, path, line).
    pub refused_lines: Vec<(String, u64, String, u32)>,
    pub issue_comments: Vec<IssueComment>,
    pub reactions: Vec<Reaction>,
    pub issues: Vec<Issue>,
    /// (repository, login), lowercased → the login's role on it.
    pub roles: HashMap<(String, String), String>,
    /// While a rate limit it answered lasts (Unix ms): GitHub's docs warn
    /// that requests sent meanwhile can get an integration banned, so they
    /// are answered with the limit again, and counted unless they arrived
    /// within `IN_FLIGHT_MS` of the limit's answer (sent before the client
    /// could have read it: a job's reads go out together).
    pub limited_until_ms: u64,
    pub limited_since_ms: u64,
    pub sent_while_limited: u32,
    /// When each REST write (POST, PATCH, PUT, DELETE under `/repos/`)
    /// arrived and was answered, for the pacing GitHub's best practices ask.
    pub write_spans: Vec<(std::time::Instant, std::time::Instant)>,
    /// The App's webhook and every delivery made to it.
    pub hooks: deliveries::Hooks,
    /// The secondary limits enforced, and the writes they count.
    pub secondary: SecondaryLimits,
    pub content: secondary::ContentLog,
    /// The checks rulesets and branch protection require.
    pub branch_rules: rules::BranchRules,
    /// Organisations' teams and the accounts known.
    pub teams: teams::Teams,
    /// How long every request waits before it is answered.
    pub latency: Duration,
    /// Every request as it is answered, for a watcher (`gatehouse demo`).
    pub watch: Option<tokio::sync::mpsc::UnboundedSender<Logged>>,
    /// A client's death after a write, as a crash test stages it.
    pub stall: faults::Stall,
}

/// A plain comment on a PR's conversation.
#[derive(Clone, Debug)]
pub struct IssueComment {
    pub id: u64,
    pub repo: String,
    pub pr: u64,
    /// Who wrote it: the App's comments are `gatehouse[bot]`'s.
    pub user: String,
    pub body: String,
}

impl State {
    pub(crate) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(crate) fn repo(&self, owner: &str, name: &str) -> Option<&Repo> {
        self.repos.get(&format!("{owner}/{name}").to_ascii_lowercase())
    }
}

/// A running simulated GitHub.
pub struct Sim {
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Sim {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// What a PR was created as.
#[derive(Clone, Debug)]
pub struct PrRefs {
    pub repo: String,
    pub number: u64,
    pub base_sha: String,
    pub head_sha: String,
}

impl Sim {
    /// Starts on an ephemeral loopback port; `public_key_pem` verifies the
    /// App's JWTs, `installation` is the one installation it knows.
    pub async fn start(app_id: u64, public_key_pem: &[u8], installation: u64) -> Result<Sim> {
        let key = jsonwebtoken::DecodingKey::from_rsa_pem(public_key_pem).context("the sim needs an RSA public key")?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            app_id,
            key,
            installation,
            tokens: HashMap::new(),
            token_requests: Vec::new(),
            token_scopes: HashMap::new(),
            uninstalled: Vec::new(),
            repos: HashMap::new(),
            check_runs: Vec::new(),
            reviews: Vec::new(),
            threads: Vec::new(),
            log: Vec::new(),
            faults: Faults::default(),
            next_id: 1000,
            jwts_seen: 0,
            base_url: format!("http://{addr}"),
            manifests: manifests::Registry::default(),
            token_life_s: 3600,
            refused_lines: Vec::new(),
            issue_comments: Vec::new(),
            reactions: Vec::new(),
            issues: Vec::new(),
            roles: HashMap::new(),
            limited_until_ms: 0,
            limited_since_ms: 0,
            sent_while_limited: 0,
            write_spans: Vec::new(),
            hooks: deliveries::Hooks::default(),
            secondary: SecondaryLimits::default(),
            content: secondary::ContentLog::default(),
            branch_rules: rules::BranchRules::default(),
            teams: teams::Teams::default(),
            latency: Duration::ZERO,
            watch: None,
            stall: faults::Stall::default(),
        }));
        let app = routes::router(state.clone());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Sim { state, addr, server })
    }

    /// The API base URL (`GATEHOUSE_GITHUB_API_URL`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens PR `number` on `repo` from `base` to `head`.
    pub fn open_pr(&self, repo: &str, number: u64, base: Tree, head: Tree, body: &str) -> PrRefs {
        let base_sha = commit_sha(&base, "base");
        let head_sha = commit_sha(&head, &format!("{repo}#{number}"));
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        entry.full_name = repo.to_string();
        entry.put_commit(base_sha.clone(), base);
        entry.put_commit(head_sha.clone(), head);
        entry.pulls.insert(
            number,
            Pull {
                number,
                base_sha: base_sha.clone(),
                merge_base: base_sha.clone(),
                head_sha: head_sha.clone(),
                body: body.to_string(),
                title: format!("Change #{number}"),
                from_fork: false,
                draft: false,
                authors: vec!["author".into()],
                merged: None,
            },
        );
        PrRefs { repo: repo.to_string(), number, base_sha, head_sha }
    }

    /// Stores a commit under the id given (a real repository's, to compare
    /// the App with a checkout of it).
    pub fn add_commit(&self, repo: &str, sha: &str, tree: Tree) {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        entry.full_name = repo.to_string();
        entry.put_commit(sha.to_string(), tree);
    }

    /// Points a branch or tag name at a commit.
    pub fn set_ref(&self, repo: &str, name: &str, sha: &str) {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        entry.refs.insert(name.to_string(), sha.to_string());
    }

    /// Opens PR `number` between two commits stored with [`Sim::add_commit`].
    /// The merge base is found through the parents recorded with
    /// [`Sim::set_parents`], else it is the base.
    pub fn open_pr_between(&self, repo: &str, number: u64, base_sha: &str, head_sha: &str, body: &str) -> PrRefs {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        let merge_base = branches::merge_base(entry, base_sha, head_sha).unwrap_or_else(|| base_sha.to_string());
        entry.pulls.insert(
            number,
            Pull {
                number,
                base_sha: base_sha.to_string(),
                merge_base,
                head_sha: head_sha.to_string(),
                body: body.to_string(),
                title: format!("Change #{number}"),
                from_fork: false,
                draft: false,
                authors: vec!["author".into()],
                merged: None,
            },
        );
        PrRefs { repo: repo.to_string(), number, base_sha: base_sha.to_string(), head_sha: head_sha.to_string() }
    }

    /// Marks a PR as a draft, or ready for review.
    pub fn set_draft(&self, repo: &str, number: u64, draft: bool) {
        if let Some(pull) = self.lock().repos.get_mut(&repo.to_ascii_lowercase()).and_then(|r| r.pulls.get_mut(&number))
        {
            pull.draft = draft;
        }
    }

    /// Marks a PR as coming from a fork (check suites list no PRs for it).
    pub fn set_fork(&self, repo: &str, number: u64) {
        if let Some(pull) = self.lock().repos.get_mut(&repo.to_ascii_lowercase()).and_then(|r| r.pulls.get_mut(&number))
        {
            pull.from_fork = true;
        }
    }

    /// Pushes a new head to a PR; returns its sha.
    pub fn push(&self, repo: &str, number: u64, head: Tree) -> String {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        let sha = commit_sha(&head, &format!("{repo}#{number}:{}", entry.commits.len()));
        entry.put_commit(sha.clone(), head);
        if let Some(pull) = entry.pulls.get_mut(&number) {
            pull.head_sha = sha.clone();
        }
        sha
    }

    /// Sets who authored the PR's commits (for recusal).
    pub fn set_commit_authors(&self, repo: &str, number: u64, authors: &[&str]) {
        if let Some(pull) = self.lock().repos.get_mut(&repo.to_ascii_lowercase()).and_then(|r| r.pulls.get_mut(&number))
        {
            pull.authors = authors.iter().map(|a| a.to_string()).collect();
        }
    }

    /// A human review on the PR's current head (`APPROVED`,
    /// `CHANGES_REQUESTED`, `COMMENTED`); returns the `pull_request_review`
    /// webhook payload GitHub would send.
    pub fn add_review(&self, repo: &str, number: u64, login: &str, state: &str) -> Value {
        let mut guard = self.lock();
        let id = guard.id();
        let installation = guard.installation;
        let head =
            guard.repos.get(&repo.to_ascii_lowercase()).and_then(|r| r.pulls.get(&number)).map(|p| p.head_sha.clone());
        let head = head.unwrap_or_default();
        guard.reviews.push(Review {
            id,
            repo: repo.to_string(),
            pr: number,
            user: login.to_string(),
            state: state.to_string(),
            commit_id: head.clone(),
            event: state.to_string(),
            body: String::new(),
            comments: Vec::new(),
        });
        if let Some(requested) =
            guard.repos.get_mut(&repo.to_ascii_lowercase()).and_then(|r| r.requested.get_mut(&number))
        {
            requested.retain(|r| !gatehouse_core::gate::same_login(r, login));
        }
        json!({
            "action": "submitted",
            "review": { "id": id, "user": { "login": login, "type": guard.teams.kind(login) },
                        "state": state.to_ascii_lowercase(), "commit_id": head },
            "pull_request": { "number": number, "head": { "sha": head } },
            "repository": { "full_name": repo },
            "installation": { "id": installation },
            "sender": { "login": login, "type": "User" },
        })
    }

    /// Opens the manifest flow: an App registered from a manifest gets this
    /// simulated GitHub's App id and `private_key_pem`, which must be the
    /// private half of the key the simulation verifies JWTs with.
    pub fn accept_manifests(&self, private_key_pem: &str) {
        self.lock().manifests.key_pem = Some(private_key_pem.to_string());
    }

    /// Apps registered through the manifest flow, in order.
    pub fn manifest_apps(&self) -> Vec<ManifestApp> {
        self.lock().manifests.apps.clone()
    }

    /// Ages every outstanding manifest code past its hour.
    pub fn expire_manifest_codes(&self) {
        for (_, issued) in self.lock().manifests.codes.values_mut() {
            *issued = issued.saturating_sub(CODE_LIFE_S);
        }
    }

    /// Leaves repository `name` (`owner/name`) out of the installation: it
    /// exists, but a token asked for it is refused.
    pub fn leave_out_of_installation(&self, repo: &str) {
        let name = repo.rsplit('/').next().unwrap_or(repo).to_ascii_lowercase();
        self.lock().uninstalled.push(name);
    }

    /// Installation tokens minted from now on live `secs` seconds.
    pub fn set_token_life(&self, secs: u64) {
        self.lock().token_life_s = secs;
    }

    /// Review comments on `path:line` of the PR are refused with 422, as
    /// GitHub refuses a line it cannot place in the diff.
    pub fn refuse_review_line(&self, repo: &str, number: u64, path: &str, line: u32) {
        self.lock().refused_lines.push((repo.to_ascii_lowercase(), number, path.to_string(), line));
    }

    pub fn issue_comments(&self, repo: &str, pr: u64) -> Vec<IssueComment> {
        self.lock().issue_comments.iter().filter(|c| c.repo.eq_ignore_ascii_case(repo) && c.pr == pr).cloned().collect()
    }

    pub fn set_faults(&self, faults: Faults) {
        self.lock().faults = faults;
    }

    /// Requests that arrived while a rate limit it answered still held.
    pub fn sent_while_limited(&self) -> u32 {
        self.lock().sent_while_limited
    }

    /// (arrived, answered) of every REST write, in arrival order.
    pub fn write_spans(&self) -> Vec<(std::time::Instant, std::time::Instant)> {
        self.lock().write_spans.clone()
    }

    pub fn requests(&self) -> Vec<Logged> {
        self.lock().log.clone()
    }

    pub fn clear_requests(&self) {
        self.lock().log.clear();
    }

    pub fn check_runs(&self, repo: &str, sha: &str) -> Vec<CheckRun> {
        let state = self.lock();
        state.check_runs.iter().filter(|c| c.repo.eq_ignore_ascii_case(repo) && c.head_sha == sha).cloned().collect()
    }

    pub fn all_check_runs(&self) -> Vec<CheckRun> {
        self.lock().check_runs.clone()
    }

    pub fn reviews(&self, repo: &str, pr: u64) -> Vec<Review> {
        self.lock().reviews.iter().filter(|r| r.repo.eq_ignore_ascii_case(repo) && r.pr == pr).cloned().collect()
    }

    pub fn threads(&self, repo: &str, pr: u64) -> Vec<Thread> {
        self.lock().threads.iter().filter(|t| t.repo.eq_ignore_ascii_case(repo) && t.pr == pr).cloned().collect()
    }

    /// The bodies of the installation-token requests, in order.
    pub fn token_requests(&self) -> Vec<Value> {
        self.lock().token_requests.clone()
    }

    /// How many App JWTs were verified (one per installation token minted).
    pub fn jwts_seen(&self) -> u32 {
        self.lock().jwts_seen
    }
}
