//! `issue_comment`: a comment created on a pull request whose first line is
//! a `/gatehouse` command (`app::commands`) asks for that command's job.
//! Comments on issues, edited and deleted comments, and comments by Apps
//! (the App's own replies among them) ask for nothing.

use super::{Origin, Work};
use crate::app::commands::{self, Command};
use crate::store::{PrNumber, Scope, Target};
use crate::webhook::payloads::{IssueCommentAction, IssueCommentEvent};

pub(super) fn handle(event: &IssueCommentEvent) -> Work {
    if event.action != IssueCommentAction::Created || event.issue.pull_request.is_none() {
        return Work::default();
    }
    let Some(user) = &event.comment.user else { return Work::default() };
    if user.kind.as_deref() == Some("Bot") {
        return Work::default();
    }
    let Some(ask) = commands::parse(&event.comment.body) else { return Work::default() };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), ask.reason()) else {
        return Work::default();
    };
    let command = Command {
        comment: event.comment.id,
        by: user.login.clone(),
        author: event.issue.user.as_ref().map(|u| u.login.clone()),
        ask,
    };
    let target = Target::Command { number: PrNumber(event.issue.number), command: Box::new(command) };
    Work::of(vec![origin.job(target, Scope::All, false)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::commands::Ask;
    use crate::webhook::envelope::parse;

    /// An `issue_comment` payload as "Webhook events and payloads" shapes
    /// it: the issue (a pull request: `issue.pull_request` holds its URLs),
    /// the comment with its author, the repository, installation and sender.
    fn comment(action: &str, body: &str, user_type: &str, on_pr: bool) -> String {
        let pull_request = if on_pr {
            r#","pull_request":{"url":"https://api.github.com/repos/acme/docs/pulls/7","html_url":"https://github.com/acme/docs/pull/7","merged_at":null}"#
        } else {
            ""
        };
        let body = serde_json::to_string(body).unwrap();
        format!(
            r#"{{"action":"{action}","issue":{{"number":7,"title":"Backups","state":"open","user":{{"login":"ana","type":"User"}}{pull_request}}},
            "comment":{{"id":501,"node_id":"IC_1","body":{body},"user":{{"login":"lin","type":"{user_type}"}},
              "author_association":"MEMBER","created_at":"2026-12-07T01:00:00Z","updated_at":"2026-12-07T01:00:00Z","performed_via_github_app":null}},
            "repository":{{"full_name":"acme/docs","default_branch":"main"}},"installation":{{"id":5}},"sender":{{"login":"lin","type":"{user_type}"}}}}"#
        )
    }

    #[test]
    fn a_command_on_a_pull_request_is_a_job_of_its_own() {
        let work =
            parse("issue_comment", comment("created", "/gatehouse explain brief/adr-missing", "User", true).as_bytes())
                .unwrap();
        assert_eq!(work.jobs.len(), 1);
        let job = &work.jobs[0];
        let expected = Command {
            comment: 501,
            by: "lin".into(),
            author: Some("ana".into()),
            ask: Ask::Explain("brief/adr-missing".into()),
        };
        assert_eq!(job.target, Target::Command { number: PrNumber(7), command: Box::new(expected) });
        assert_eq!((job.reason.as_str(), job.installation, job.once_per_head), ("issue_comment.explain", 5, false));
    }

    #[test]
    fn edits_issues_bots_and_plain_comments_ask_for_nothing() {
        for (action, body, user_type, on_pr) in [
            ("edited", "/gatehouse recheck", "User", true),
            ("deleted", "/gatehouse recheck", "User", true),
            ("created", "/gatehouse recheck", "Bot", true),
            ("created", "/gatehouse recheck", "User", false),
            ("created", "> /gatehouse recheck", "User", true),
            ("created", "Looks good to me.", "User", true),
        ] {
            let work = parse("issue_comment", comment(action, body, user_type, on_pr).as_bytes()).unwrap();
            assert!(work.jobs.is_empty(), "{action} {body} {user_type} {on_pr}");
        }
    }
}
