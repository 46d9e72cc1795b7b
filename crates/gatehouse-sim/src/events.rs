//! The webhook payloads the simulated GitHub hands tests to deliver, shaped
//! like GitHub's ("Webhook events and payloads"): a pull request's events,
//! its check suite, a branch's check suite, the App's own review, an install,
//! repositories added to an install.

use serde_json::{Value, json};

use super::{Sim, routes};

impl Sim {
    /// The `pull_request_review.submitted` payload GitHub sends for the
    /// App's own latest review of the PR: its sender is the App's bot
    /// (`gatehouse[bot]`, type `Bot`), as for every action taken with an
    /// installation token.
    pub fn own_review_event(&self, repo: &str, number: u64) -> Value {
        let state = self.lock();
        let review = state.reviews.iter().rev().find(|r| r.repo.eq_ignore_ascii_case(repo) && r.pr == number);
        let (id, head) = review.map(|r| (r.id, r.commit_id.clone())).unwrap_or_default();
        json!({
            "action": "submitted",
            "review": { "id": id, "user": { "login": "gatehouse[bot]" }, "state": "commented", "commit_id": head },
            "pull_request": { "number": number, "head": { "sha": head } },
            "repository": { "full_name": repo },
            "installation": { "id": state.installation },
            "sender": { "login": "gatehouse[bot]", "type": "Bot" },
        })
    }

    /// An `installation.created` payload naming `repos` ("installation"
    /// webhook event: `repositories` lists what the App was installed on).
    pub fn installation_event(&self, repos: &[&str]) -> Value {
        let listed: Vec<Value> = repos.iter().map(|r| json!({ "full_name": r, "private": false })).collect();
        json!({
            "action": "created",
            "installation": { "id": self.lock().installation },
            "repositories": listed,
            "sender": { "login": "octo-admin", "type": "User" },
        })
    }

    /// An `installation_repositories.added` payload: repositories added to
    /// an installation that has chosen repositories ("installation_repositories"
    /// webhook event: `repositories_added`, `repositories_removed`,
    /// `repository_selection: selected`).
    pub fn repositories_added_event(&self, repos: &[&str]) -> Value {
        let added: Vec<Value> =
            repos.iter().map(|r| json!({ "full_name": r, "name": r.split('/').nth(1), "private": false })).collect();
        json!({
            "action": "added",
            "installation": { "id": self.lock().installation },
            "repository_selection": "selected",
            "repositories_added": added,
            "repositories_removed": [],
            "requester": null,
            "sender": { "login": "octo-admin", "type": "User" },
        })
    }

    /// A `pull_request` webhook payload for the PR as it is now, shaped like
    /// GitHub's; a merged PR's `closed` carries `merged: true` and its
    /// `merge_commit_sha` ("If the action is closed and the merged key is
    /// true, the pull request was merged",
    /// https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request).
    pub fn pull_request_event(&self, repo: &str, number: u64, action: &str) -> Value {
        let state = self.lock();
        let installation = state.installation;
        let pull = state.repos.get(&repo.to_ascii_lowercase()).and_then(|r| r.pulls.get(&number));
        json!({
            "action": action,
            "number": number,
            "pull_request": pull.map(|p| routes::pull_json(repo, p)),
            "repository": { "full_name": repo, "name": repo.split('/').nth(1), "owner": { "login": repo.split('/').next() } },
            "installation": { "id": installation },
            "sender": { "login": "author", "type": "User" }
        })
    }

    /// A `check_suite.requested` payload for the PR's head, listing the PR
    /// unless it comes from a fork: "Pushes to a branch in a forked
    /// repository are not detected and return an empty pull_requests array
    /// and a null value for head_branch" (REST reference, check suites).
    pub fn check_suite_event(&self, repo: &str, number: u64) -> Value {
        let state = self.lock();
        let pull = state.repos.get(&repo.to_ascii_lowercase()).and_then(|r| r.pulls.get(&number));
        let head = pull.map(|p| p.head_sha.clone()).unwrap_or_default();
        let own = pull.filter(|p| !p.from_fork);
        let prs: Vec<Value> = own.map(|p| json!({ "number": p.number })).into_iter().collect();
        let branch = own.map(|p| format!("change-{}", p.number));
        json!({
            "action": "requested",
            "check_suite": { "head_sha": head, "head_branch": branch, "pull_requests": prs },
            "repository": { "full_name": repo },
            "installation": { "id": state.installation },
        })
    }

    /// A `check_suite.requested` payload for a push to a named branch that
    /// no pull request has (GitHub creates a check suite for every push:
    /// "About status checks"; `pull_requests` is empty, `head_branch` names
    /// the branch).
    pub fn branch_check_suite_event(&self, repo: &str, branch: &str, head_sha: &str) -> Value {
        json!({
            "action": "requested",
            "check_suite": { "head_sha": head_sha, "head_branch": branch, "pull_requests": [] },
            "repository": { "full_name": repo },
            "installation": { "id": self.lock().installation },
        })
    }
}
