//! A pull request's reviews and commit authors as the review gate reads
//! them, from the arrays `GET /repos/{o}/{r}/pulls/{n}/reviews` and
//! `…/commits` return (the App's answers, or saved JSON for `gate simulate`).

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::gate::{Review, ReviewState};

/// `simple-user` (the login, and whether GitHub marks the account `Bot`).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct User {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
}

impl User {
    /// `type: Bot`: an App's or a machine account.
    pub(crate) fn is_bot(&self) -> bool {
        self.kind.as_deref() == Some("Bot")
    }
}

/// The reviewers GitHub marks `Bot`, lowercase.
pub(crate) fn bots(raw: &[PullRequestReview]) -> Vec<String> {
    raw.iter().filter_map(|r| r.user.as_ref()).filter(|u| u.is_bot()).map(|u| u.login.to_ascii_lowercase()).collect()
}

/// `pull-request-review`.
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequestReview {
    pub user: Option<User>,
    pub state: String,
    pub commit_id: Option<String>,
    pub submitted_at: Option<String>,
}

/// `commit` as a pull request's commits list it.
#[derive(Debug, Deserialize)]
pub(crate) struct PullRequestCommit {
    pub sha: String,
    pub author: Option<User>,
}

/// Parses a reviews array. Reviews by deleted users (`user: null`) are skipped.
pub(crate) fn parse_reviews(json: &str) -> Result<Vec<Review>> {
    let raw: Vec<PullRequestReview> =
        serde_json::from_str(json).context("expected the JSON array GitHub returns for a pull request's reviews")?;
    reviews(raw)
}

/// The reviews the gate counts. Reviews by deleted users are skipped.
pub(crate) fn reviews(raw: Vec<PullRequestReview>) -> Result<Vec<Review>> {
    let mut reviews = Vec::new();
    for (i, r) in raw.into_iter().enumerate() {
        let state = match r.state.as_str() {
            "APPROVED" => ReviewState::Approved,
            "CHANGES_REQUESTED" => ReviewState::ChangesRequested,
            "COMMENTED" => ReviewState::Commented,
            "DISMISSED" => ReviewState::Dismissed,
            "PENDING" => ReviewState::Pending,
            other => bail!("review {i} has an unknown state `{other}`"),
        };
        let Some(user) = r.user else { continue };
        reviews.push(Review { login: user.login, state, commit: r.commit_id, submitted_at: r.submitted_at });
    }
    Ok(reviews)
}

/// Parses a commits array into the GitHub logins of the commit authors and
/// the last commit's sha (the PR head, as GitHub lists commits oldest first).
pub(crate) fn commit_authors(json: &str) -> Result<(Vec<String>, Option<String>)> {
    let raw: Vec<PullRequestCommit> =
        serde_json::from_str(json).context("expected the JSON array GitHub returns for a pull request's commits")?;
    Ok(authors(raw))
}

/// The commit authors' logins, sorted, and the last commit's sha.
pub(crate) fn authors(raw: Vec<PullRequestCommit>) -> (Vec<String>, Option<String>) {
    let head = raw.last().map(|c| c.sha.clone());
    let mut authors: Vec<String> = raw.into_iter().filter_map(|c| c.author.map(|a| a.login)).collect();
    authors.sort();
    authors.dedup();
    (authors, head)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "abc1234def5678";

    fn review(login: &str, state: ReviewState, commit: &str, at: &str) -> Review {
        Review { login: login.into(), state, commit: Some(commit.into()), submitted_at: Some(at.into()) }
    }

    #[test]
    fn reads_githubs_json() {
        let reviews = r#"[
          {"id": 1, "user": {"login": "gyrum-marcus", "id": 9}, "body": "", "state": "APPROVED",
           "commit_id": "abc1234def5678", "submitted_at": "2026-05-01T10:00:00Z", "author_association": "MEMBER"},
          {"id": 2, "user": null, "state": "COMMENTED", "commit_id": "abc1234def5678", "submitted_at": "2026-05-01T10:00:00Z"}
        ]"#;
        let parsed = parse_reviews(reviews).unwrap();
        assert_eq!(parsed, vec![review("gyrum-marcus", ReviewState::Approved, HEAD, "2026-05-01T10:00:00Z")]);
        assert!(parse_reviews("{}").is_err());
        assert!(
            parse_reviews(r#"[{"user": {"login": "a"}, "state": "LGTM"}]"#).unwrap_err().to_string().contains("LGTM")
        );
        let commits = r#"[
          {"sha": "111", "commit": {"author": {"name": "M"}}, "author": {"login": "gyrum-marcus"}},
          {"sha": "abc1234def5678", "commit": {"author": {"name": "X"}}, "author": null}
        ]"#;
        assert_eq!(commit_authors(commits).unwrap(), (vec!["gyrum-marcus".to_string()], Some(HEAD.to_string())));
    }
}
