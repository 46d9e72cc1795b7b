//! Branches moving under an open pull request in the simulated GitHub: the
//! base branch advancing after the PR branched, and the merge base GitHub's
//! compare API names (`merge_base_commit`, "Compare two commits" in the REST
//! reference: the three-dot comparison's starting point).

use std::collections::HashSet;

use super::{Repo, Sim, Tree, commit_sha};

impl Sim {
    /// Records a commit's parents (a real repository's, stored with
    /// [`Sim::add_commit`]).
    pub fn set_parents(&self, repo: &str, sha: &str, parents: &[&str]) {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        entry.parents.insert(sha.to_string(), parents.iter().map(|p| p.to_string()).collect());
    }

    /// Commits `tree` onto PR `number`'s base branch (another PR merged):
    /// the PR's `base.sha` becomes the new tip, its merge base and its diff
    /// stay where the PR branched. Returns the new tip.
    pub fn advance_base(&self, repo: &str, number: u64, tree: Tree) -> String {
        let mut state = self.lock();
        let entry = state.repos.entry(repo.to_ascii_lowercase()).or_default();
        let old = entry.pulls.get(&number).map(|p| p.base_sha.clone()).unwrap_or_default();
        let sha = commit_sha(&tree, &format!("{repo}:base-after:{old}"));
        entry.put_commit(sha.clone(), tree);
        entry.parents.insert(sha.clone(), vec![old.clone()]);
        for tip in entry.refs.values_mut().filter(|tip| **tip == old) {
            *tip = sha.clone();
        }
        for pull in entry.pulls.values_mut().filter(|p| p.base_sha == old) {
            pull.base_sha = sha.clone();
        }
        sha
    }
}

/// The best common ancestor of `base` and `head`: a PR's recorded merge base
/// when the pair is an open PR's base tip and head, else the nearest
/// ancestor of `head` (itself included) that `base` also reaches through
/// the recorded parents. `None`: no shared history (GitHub answers 404).
pub(crate) fn merge_base(repo: &Repo, base: &str, head: &str) -> Option<String> {
    if let Some(pull) = repo.pulls.values().find(|p| p.base_sha == base && p.head_sha == head) {
        return Some(pull.merge_base.clone());
    }
    let mut reached = HashSet::new();
    let mut stack = vec![base.to_string()];
    while let Some(sha) = stack.pop() {
        if reached.insert(sha.clone()) {
            stack.extend(repo.parents.get(&sha).into_iter().flatten().cloned());
        }
    }
    let mut queue = std::collections::VecDeque::from([head.to_string()]);
    let mut seen = HashSet::new();
    while let Some(sha) = queue.pop_front() {
        if reached.contains(&sha) {
            return Some(sha);
        }
        if seen.insert(sha.clone()) {
            queue.extend(repo.parents.get(&sha).into_iter().flatten().cloned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_base_is_the_nearest_shared_ancestor() {
        let mut repo = Repo::default();
        repo.parents.insert("b2".into(), vec!["b1".into()]);
        repo.parents.insert("h1".into(), vec!["b1".into()]);
        repo.parents.insert("h2".into(), vec!["h1".into()]);
        assert_eq!(merge_base(&repo, "b2", "h2").as_deref(), Some("b1"));
        assert_eq!(merge_base(&repo, "b1", "h2").as_deref(), Some("b1"));
        assert_eq!(merge_base(&repo, "h2", "h2").as_deref(), Some("h2"));
        assert_eq!(merge_base(&repo, "b2", "elsewhere"), None);
    }
}
