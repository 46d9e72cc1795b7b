//! The default branch moving in the simulated GitHub: a push to it (another
//! pull request merged) and the `push` webhook payload GitHub sends for it,
//! and a pull request merging its base branch in.

use serde_json::{Value, json};

use super::{Sim, Tree, commit_sha};

/// The paths `after` adds, removes and modifies relative to `before`.
fn changed(before: &Tree, after: &Tree) -> (Vec<String>, Vec<String>, Vec<String>) {
    let added = after.keys().filter(|p| !before.contains_key(*p)).cloned().collect();
    let removed = before.keys().filter(|p| !after.contains_key(*p)).cloned().collect();
    let modified = after.iter().filter(|(p, b)| before.get(*p).is_some_and(|old| old != *b)).map(|(p, _)| p.clone());
    (added, removed, modified.collect())
}

impl Sim {
    /// The files of a stored commit.
    pub fn commit_tree(&self, repo: &str, sha: &str) -> Option<Tree> {
        self.lock().repos.get(&repo.to_ascii_lowercase())?.commits.get(sha).map(|t| (**t).clone())
    }

    /// Commits `tree` onto the default branch under PR `number` (and every
    /// open PR on the same tip; see [`Sim::advance_base`]) and returns the
    /// `push` payload GitHub sends for it ("Webhook events and payloads",
    /// push: `ref`, `before`, `after`, `created`, `deleted`, `forced`,
    /// `base_ref`, `compare`, `commits` of at most 2048 with their `added`,
    /// `removed` and `modified` paths, `head_commit`, `pusher`, and the
    /// `repository` with its `default_branch`).
    pub fn push_to_default_branch(&self, repo: &str, number: u64, tree: Tree, message: &str) -> Value {
        let before = {
            let state = self.lock();
            let entry = state.repos.get(&repo.to_ascii_lowercase());
            let sha = entry.and_then(|r| r.pulls.get(&number)).map(|p| p.base_sha.clone()).unwrap_or_default();
            (entry.and_then(|r| r.commits.get(&sha)).map(|t| (**t).clone()).unwrap_or_default(), sha)
        };
        let (old_tree, old) = before;
        let after = self.advance_base(repo, number, tree.clone());
        self.push_payload(repo, (&old, &old_tree), (&after, &tree), message)
    }

    /// Commits `tree` onto `main` of a repository no pull request is
    /// merging into (an organisation's `.github` repository holding its
    /// shared config) and returns the `push` payload GitHub sends for it,
    /// as [`Sim::push_to_default_branch`] does.
    pub fn push_to_main(&self, repo: &str, tree: Tree, message: &str) -> Value {
        let (old, old_tree, after) = {
            let mut state = self.lock();
            let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
            entry.full_name = repo.to_string();
            let old = entry.refs.get("main").cloned().unwrap_or_default();
            let old_tree = entry.commits.get(&old).map(|t| (**t).clone()).unwrap_or_default();
            let sha = commit_sha(&tree, &format!("{repo}:main-after:{old}"));
            entry.put_commit(sha.clone(), tree.clone());
            entry.parents.insert(sha.clone(), vec![old.clone()]);
            entry.refs.insert("main".into(), sha.clone());
            (old, old_tree, sha)
        };
        self.push_payload(repo, (&old, &old_tree), (&after, &tree), message)
    }

    /// The `push` payload of a commit `after` on `main` following `before`
    /// ("Webhook events and payloads", push).
    fn push_payload(&self, repo: &str, before: (&str, &Tree), after: (&str, &Tree), message: &str) -> Value {
        let ((old, old_tree), (after, tree)) = (before, after);
        let (added, removed, modified) = changed(old_tree, tree);
        let installation = self.lock().installation;
        let commit = json!({
            "id": after,
            "tree_id": commit_sha(&Tree::new(), after),
            "distinct": true,
            "message": message,
            "timestamp": "2026-12-01T10:00:00Z",
            "url": format!("https://github.com/{repo}/commit/{after}"),
            "author": { "name": "Lin", "email": "lin@example.com", "username": "gyrum-lin" },
            "committer": { "name": "GitHub", "email": "noreply@github.com", "username": "web-flow" },
            "added": added,
            "removed": removed,
            "modified": modified,
        });
        json!({
            "ref": "refs/heads/main",
            "before": old,
            "after": after,
            "created": false,
            "deleted": false,
            "forced": false,
            "base_ref": null,
            "compare": format!("https://github.com/{repo}/compare/{}...{}", &old[..old.len().min(12)], &after[..12]),
            "commits": [commit.clone()],
            "head_commit": commit,
            "pusher": { "name": "gyrum-lin", "email": "lin@example.com" },
            "repository": { "full_name": repo, "name": repo.split('/').nth(1), "default_branch": "main",
                            "owner": { "login": repo.split('/').next() } },
            "installation": { "id": installation },
            "sender": { "login": "gyrum-lin", "type": "User" },
        })
    }

    /// Merges the base branch into PR `number` (GitHub's "Update branch"): a
    /// new head commit with the base tip's side of every file the base
    /// changed since the PR branched, whose merge base is the base tip.
    /// Returns the new head.
    pub fn merge_base_into(&self, repo: &str, number: u64) -> String {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        let Some(pull) = entry.pulls.get(&number) else { return String::new() };
        let (base, merge_base, head) = (pull.base_sha.clone(), pull.merge_base.clone(), pull.head_sha.clone());
        let tree = |sha: &str| entry.commits.get(sha).map(|t| (**t).clone()).unwrap_or_default();
        let (base_tree, branched, mut merged) = (tree(&base), tree(&merge_base), tree(&head));
        let (added, removed, modified) = changed(&branched, &base_tree);
        for path in added.iter().chain(&modified) {
            merged.insert(path.clone(), base_tree[path].clone());
        }
        for path in &removed {
            merged.remove(path);
        }
        let sha = commit_sha(&merged, &format!("{repo}#{number}:merge:{base}"));
        entry.put_commit(sha.clone(), merged);
        entry.parents.insert(sha.clone(), vec![head, base.clone()]);
        if let Some(pull) = entry.pulls.get_mut(&number) {
            pull.head_sha = sha.clone();
            pull.merge_base = base;
        }
        sha
    }
}
