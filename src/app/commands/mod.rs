//! Commands in pull request comments: a comment whose first line is
//! `/gatehouse recheck`, `/gatehouse why` or `/gatehouse explain <rule>`.
//! The first line is read as CommonMark renders it (pulldown-cmark): a
//! command inside a quote, a code block or inline code is quoted, not asked.
//! The handler (`handlers::issue_comment`) stores the command as a job; the
//! worker answers it (`answer`).

mod answer;

pub(super) use answer::answer;
use pulldown_cmark::{Event, Parser, Tag};
use serde::{Deserialize, Serialize};

/// The word every command starts with.
pub(crate) const PREFIX: &str = "/gatehouse";

/// What a comment asks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// Evaluate the pull request's head again.
    Recheck,
    /// What the review gate and each failing check wait on, and whom.
    Why,
    /// A rule's explain text.
    Explain(String),
    /// `/gatehouse` followed by nothing gatehouse knows (what followed):
    /// answered with the commands there are.
    Help(String),
}

impl Ask {
    /// The job's reason, for the logs and the job's urgency.
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            Ask::Recheck => RECHECK_REASON,
            Ask::Why => "issue_comment.why",
            Ask::Explain(_) => "issue_comment.explain",
            Ask::Help(_) => "issue_comment.help",
        }
    }
}

/// The reason of a recheck's job, and of the pull request's job it makes.
pub(crate) const RECHECK_REASON: &str = "issue_comment.recheck";

/// A command as its job stores it: the comment, who wrote it, the pull
/// request's author (who may ask for a recheck without a role), and what
/// it asks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Command {
    pub comment: u64,
    pub by: String,
    pub author: Option<String>,
    pub ask: Ask,
}

/// The command a comment's body asks, if its first line is one.
pub(crate) fn parse(body: &str) -> Option<Ask> {
    let line = first_line(body)?;
    let rest = line.trim().strip_prefix(PREFIX)?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(match words.as_slice() {
        ["recheck"] => Ask::Recheck,
        ["why"] => Ask::Why,
        ["explain", rule] => Ask::Explain(rule.to_string()),
        _ => Ask::Help(words.join(" ")),
    })
}

/// The plain text of the body's first line, when the body opens with a
/// paragraph whose first line is plain text: `None` for a quote, a code
/// block, a heading, HTML, and a first line with inline code, emphasis or
/// a link (a command is typed, not formatted).
fn first_line(body: &str) -> Option<String> {
    let mut events = Parser::new(body);
    if !matches!(events.next()?, Event::Start(Tag::Paragraph)) {
        return None;
    }
    let mut line = String::new();
    for event in events {
        match event {
            Event::Text(text) => line.push_str(&text),
            Event::SoftBreak | Event::HardBreak | Event::End(_) => break,
            _ => return None,
        }
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_names_the_command() {
        assert_eq!(parse("/gatehouse recheck"), Some(Ask::Recheck));
        assert_eq!(parse("/gatehouse why\n\nThe gate looks stuck."), Some(Ask::Why));
        assert_eq!(
            parse("  /gatehouse   explain   brief/adr-missing  \r\n"),
            Some(Ask::Explain("brief/adr-missing".into()))
        );
        assert_eq!(parse("/gatehouse"), Some(Ask::Help(String::new())));
        assert_eq!(parse("/gatehouse rebase now"), Some(Ask::Help("rebase now".into())));
        assert_eq!(parse("/gatehouse explain"), Some(Ask::Help("explain".into())));
    }

    #[test]
    fn quoted_coded_or_later_commands_are_not_commands() {
        for body in [
            "> /gatehouse recheck",
            "```\n/gatehouse why\n```",
            "    /gatehouse why",
            "`/gatehouse why`",
            "Try `/gatehouse why`",
            "Thanks!\n/gatehouse recheck",
            "Thanks!\n\n/gatehouse recheck",
            "# /gatehouse why",
            "*/gatehouse why*",
            "/gatehousewhy",
            "<!-- /gatehouse why -->",
            "",
        ] {
            assert_eq!(parse(body), None, "{body:?}");
        }
    }

    #[test]
    fn a_stored_command_reads_back() {
        let command =
            Command { comment: 9, by: "lin".into(), author: Some("ana".into()), ask: Ask::Explain("x/y".into()) };
        let json = serde_json::to_string(&command).unwrap();
        assert_eq!(json, r#"{"comment":9,"by":"lin","author":"ana","ask":{"explain":"x/y"}}"#);
        assert_eq!(serde_json::from_str::<Command>(&json).unwrap(), command);
        let recheck = Command { ask: Ask::Recheck, ..command };
        assert_eq!(serde_json::from_str::<Command>(&serde_json::to_string(&recheck).unwrap()).unwrap(), recheck);
    }
}
