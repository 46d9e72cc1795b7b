//! GitHub's answers as gatehouse reads them: the fields it uses of each
//! REST schema and GraphQL selection, shaped like GitHub's published
//! description (a nullable field is an `Option`, a required one is not), so
//! an answer missing a field it must carry is an error, never a zero.

use serde::Deserialize;

/// `POST /app/installations/{id}/access_tokens` (`installation-token`).
#[derive(Debug, Deserialize)]
pub(crate) struct InstallationToken {
    pub token: String,
    pub expires_at: String,
}

/// `GET /app` (`integration`): the App's slug names its bot.
#[derive(Debug, Deserialize)]
pub(crate) struct App {
    pub slug: String,
}

/// The body of an error answer (`basic-error`).
#[derive(Debug, Deserialize)]
pub(crate) struct ErrorBody {
    pub message: Option<String>,
}

/// A commit a pull request starts or ends at (`pull-request.base`, `.head`).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct BranchTip {
    pub sha: String,
}

/// `GET /repos/{o}/{r}/pulls/{n}` (`pull-request`).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct PullRequest {
    /// The author (`null` for a deleted account).
    #[serde(default)]
    pub user: Option<super::reviews::User>,
    #[serde(default)]
    pub assignees: Vec<super::reviews::User>,
    pub body: Option<String>,
    /// A draft asks for no reviews yet (absent on servers without drafts).
    #[serde(default)]
    pub draft: bool,
    pub base: BaseTip,
    pub head: BranchTip,
    pub changed_files: u64,
}

/// `pull-request.base`: the branch it merges into and that branch's tip.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct BaseTip {
    pub sha: String,
    #[serde(rename = "ref")]
    pub branch: String,
}

/// An element of `GET /repos/{o}/{r}/pulls` (`pull-request-simple`: no
/// `changed_files`).
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequestSimple {
    pub number: u64,
    pub head: BranchTip,
    pub base: BaseBranch,
    #[serde(default)]
    pub draft: bool,
}

/// `pull-request-simple.base`: the branch a pull request merges into.
#[derive(Debug, Deserialize)]
pub(crate) struct BaseBranch {
    #[serde(rename = "ref")]
    pub branch: String,
    pub repo: BaseRepository,
}

/// `pull-request-simple.base.repo` (`repository`).
#[derive(Debug, Deserialize)]
pub(crate) struct BaseRepository {
    pub default_branch: String,
}

/// `diff-entry.status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FileStatus {
    Added,
    Removed,
    Modified,
    Renamed,
    Copied,
    Changed,
    Unchanged,
}

/// An element of `GET /repos/{o}/{r}/pulls/{n}/files` (`diff-entry`).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct DiffEntry {
    pub filename: String,
    pub status: FileStatus,
    /// Only on renamed and copied files.
    pub previous_filename: Option<String>,
    /// The unified diff GitHub shows (absent for binary or huge files).
    pub patch: Option<String>,
    pub additions: u64,
    pub deletions: u64,
}

/// `GET /repos/{o}/{r}/git/trees/{sha}?recursive=1` (`git-tree`).
#[derive(Debug, Deserialize)]
pub(crate) struct GitTree {
    pub sha: String,
    /// GitHub stopped listing (over 100,000 entries or 7 MB).
    pub truncated: bool,
    pub tree: Vec<GitTreeEntry>,
}

/// `git-tree.tree[]`: `type` is `blob`, `tree` or `commit` (a submodule).
#[derive(Debug, Deserialize)]
pub(crate) struct GitTreeEntry {
    pub path: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub sha: String,
}

/// A check run (`check-run`).
#[derive(Debug, Deserialize)]
pub(crate) struct CheckRun {
    pub id: u64,
    pub name: String,
    /// `queued`, `in_progress`, `completed`, `waiting`, `requested`, `pending`.
    pub status: String,
    /// Set once the run is `completed`.
    pub conclusion: Option<String>,
    pub external_id: Option<String>,
    /// Nullable in GitHub's schema.
    #[serde(default)]
    pub started_at: Option<String>,
    pub output: CheckRunOutput,
}

/// `check-run.output`.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckRunOutput {
    pub annotations_count: u64,
    /// Nullable in GitHub's schema.
    #[serde(default)]
    pub title: Option<String>,
    /// Nullable in GitHub's schema.
    #[serde(default)]
    pub summary: Option<String>,
}

/// `GET /repos/{o}/{r}/commits/{sha}/check-runs`.
#[derive(Debug, Deserialize)]
pub(crate) struct CheckRunList {
    pub check_runs: Vec<CheckRun>,
}

/// `GET /repos/{o}/{r}/compare/{base}...{head}` (`commit-comparison`): the
/// commits page by page, the files on the first page only, and the commit
/// both sides share (`merge_base_commit`, required in GitHub's schema).
#[derive(Debug, Deserialize)]
pub(crate) struct Comparison {
    pub merge_base_commit: CommitSha,
    pub commits: Vec<CommitSha>,
    pub files: Option<Vec<DiffEntry>>,
}

/// A commit of a comparison (`commit`), by its id.
#[derive(Debug, Deserialize)]
pub(crate) struct CommitSha {
    pub sha: String,
}

/// A GraphQL answer: `data` is null when the whole operation failed.
#[derive(Debug, Deserialize)]
pub(crate) struct GraphQlAnswer<T> {
    pub data: Option<T>,
    #[serde(default)]
    pub errors: Vec<GraphQlError>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct GraphQlError {
    pub message: String,
    /// `RATE_LIMITED` when the installation's points are spent ("Rate
    /// limits and node limits for the GraphQL API": answered with HTTP 200).
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// A GraphQL connection's `nodes` (a nullable list of nullable nodes).
#[derive(Debug, Deserialize)]
pub(crate) struct Nodes<T> {
    pub nodes: Option<Vec<Option<T>>>,
}

impl<T> Nodes<T> {
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.nodes.iter().flatten().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pull_request_without_changed_files_is_refused() {
        let whole = r#"{"number": 5, "body": null, "base": {"sha": "b", "ref": "main"}, "head": {"sha": "h"}, "changed_files": 2}"#;
        let pr: PullRequest = serde_json::from_str(whole).unwrap();
        assert_eq!((pr.changed_files, pr.body), (2, None));
        let missing = r#"{"number": 5, "body": null, "base": {"sha": "b", "ref": "main"}, "head": {"sha": "h"}}"#;
        let err = serde_json::from_str::<PullRequest>(missing).unwrap_err().to_string();
        assert!(err.contains("changed_files"), "{err}");
    }

    #[test]
    fn a_file_status_outside_the_schema_is_refused() {
        let entry =
            r#"{"filename": "a.md", "status": "renamed", "previous_filename": "b.md", "additions": 0, "deletions": 0}"#;
        assert_eq!(serde_json::from_str::<DiffEntry>(entry).unwrap().status, FileStatus::Renamed);
        let odd = r#"{"filename": "a.md", "status": "moved", "additions": 0, "deletions": 0}"#;
        assert!(serde_json::from_str::<DiffEntry>(odd).is_err());
    }
}
