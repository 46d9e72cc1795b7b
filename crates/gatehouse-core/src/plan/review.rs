//! The review: one per evaluated head, event `COMMENT`, inline comments only
//! on lines inside the PR diff (other findings go to the review body). Every
//! comment carries a hidden fingerprint (rule, path, stable anchor — never
//! the line), so no finding is commented twice on a PR, and threads whose
//! finding is gone are resolved. Notices are left to the check runs:
//! comments are for what an author must act on.

use std::collections::{BTreeMap, BTreeSet};

use super::limits;
use crate::diff::commentable_lines;
use crate::model::{ChangeSet, Finding, LineChange, Report, Severity};

const FINGERPRINT: &str = "<!-- gatehouse:fingerprint=";
const REVIEW_MARK: &str = "<!-- gatehouse:review=";

/// Longest message of one finding listed in a review body.
const BODY_MESSAGE_CHARS: usize = 2_000;

/// One file of the PR's diff, as far as comments go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffFile {
    pub path: String,
    /// The unified diff GitHub shows (absent for binary or huge files).
    pub patch: Option<String>,
}

/// What the PR already shows from gatehouse.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// Fingerprints already commented (inline or in a review body).
    pub commented: BTreeSet<String>,
    /// Unresolved gatehouse threads: thread id → fingerprint.
    pub open_threads: BTreeMap<String, String>,
    /// Heads that already have a gatehouse review.
    pub reviewed_heads: BTreeSet<String>,
}

impl Shown {
    /// Takes in a review's or comment's body.
    pub fn read_body(&mut self, body: &str) {
        self.commented.extend(fingerprints_in(body));
        if let Some(at) = body.find(REVIEW_MARK) {
            let rest = &body[at + REVIEW_MARK.len()..];
            self.reviewed_heads.extend(rest.find(" -->").map(|end| rest[..end].to_string()));
        }
    }

    /// Takes in a review thread by its first comment's body.
    pub fn read_thread(&mut self, id: &str, resolved: bool, first_body: &str) {
        let Some(fp) = fingerprints_in(first_body).next() else { return };
        self.commented.insert(fp.clone());
        if !resolved {
            self.open_threads.insert(id.to_string(), fp);
        }
    }
}

/// A comment on lines of the diff's `RIGHT` side: `start_line` is set when
/// it spans several lines, `line` is the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineComment {
    pub path: String,
    pub start_line: Option<u32>,
    pub line: u32,
    pub body: String,
}

/// A review to post on the head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    pub inline: Vec<InlineComment>,
    pub body: String,
    /// Findings listed in `body`.
    pub in_body: usize,
    /// The body listing every finding, posted when GitHub refuses the
    /// review (its answer does not say which comment it could not place).
    pub all_in_body: String,
}

/// What to do about the review of one head.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReviewPlan {
    /// Open threads whose finding is gone.
    pub resolve: Vec<String>,
    /// The review to post; none when the head was reviewed or nothing new
    /// was found.
    pub post: Option<Draft>,
}

fn fingerprints_in(body: &str) -> impl Iterator<Item = String> + '_ {
    body.match_indices(FINGERPRINT).filter_map(|(at, _)| {
        let rest = &body[at + FINGERPRINT.len()..];
        rest.find(" -->").map(|end| rest[..end].to_string())
    })
}

/// The suggested change of each finding with a verified fix (by
/// fingerprint): the whole lines the fix rewrites in the head.
pub fn suggestions(report: &Report, changes: &ChangeSet) -> BTreeMap<String, LineChange> {
    report
        .findings()
        .filter_map(|f| Some((f.fingerprint.clone(), f.fix.as_ref()?.line_change(&changes.head)?)))
        .collect()
}

/// Decides the review of `head`, given the findings and what the PR shows.
pub fn plan(
    head: &str,
    findings: &[&Finding],
    files: &[DiffFile],
    suggestions: &BTreeMap<String, LineChange>,
    shown: &Shown,
) -> ReviewPlan {
    let current: BTreeSet<&str> = findings.iter().map(|f| f.fingerprint.as_str()).collect();
    let resolve =
        shown.open_threads.iter().filter(|(_, fp)| !current.contains(fp.as_str())).map(|(id, _)| id.clone()).collect();
    if shown.reviewed_heads.contains(head) {
        return ReviewPlan { resolve, post: None };
    }
    let lines: BTreeMap<&str, BTreeSet<u32>> =
        files.iter().filter_map(|f| f.patch.as_deref().map(|p| (f.path.as_str(), commentable_lines(p)))).collect();
    let mut seen = BTreeSet::new();
    let mut inline: Vec<(&Finding, Option<&LineChange>)> = Vec::new();
    let mut body_findings: Vec<&Finding> = Vec::new();
    for f in findings.iter().filter(|f| f.severity != Severity::Notice) {
        if shown.commented.contains(&f.fingerprint) || !seen.insert(f.fingerprint.as_str()) {
            continue;
        }
        let in_diff = |line: u32| lines.get(f.path.as_str()).is_some_and(|l| l.contains(&line));
        let suggestion = suggestion_in_diff(suggestions, f, &in_diff);
        if in_diff(f.span.line) || suggestion.is_some() {
            inline.push((*f, suggestion));
        } else {
            body_findings.push(*f);
        }
    }
    if inline.is_empty() && body_findings.is_empty() {
        return ReviewPlan { resolve, post: None };
    }
    let total = inline.len() + body_findings.len();
    let all: Vec<&Finding> = inline.iter().map(|(f, _)| *f).chain(body_findings.iter().copied()).collect();
    let note = (!inline.is_empty())
        .then_some("GitHub could not place these comments on the diff, so they are listed here instead of inline.");
    let draft = Draft {
        inline: inline.iter().map(|(f, s)| inline_comment(f, *s)).collect(),
        body: review_body(head, total, &body_findings, None),
        in_body: body_findings.len(),
        all_in_body: review_body(head, total, &all, note),
    };
    ReviewPlan { resolve, post: Some(draft) }
}

/// The suggested change of `f`, when every line it rewrites is one the
/// diff shows (GitHub places a comment only there).
fn suggestion_in_diff<'s>(
    suggestions: &'s BTreeMap<String, LineChange>,
    f: &Finding,
    in_diff: &dyn Fn(u32) -> bool,
) -> Option<&'s LineChange> {
    suggestions.get(&f.fingerprint).filter(|change| (change.start_line..=change.end_line).all(in_diff))
}

/// A suggested change as GitHub's comment syntax writes one: a fenced
/// `suggestion` block holding the lines that replace the commented ones
/// (docs.github.com, "Incorporating feedback in your pull request"; an
/// empty block deletes them). The fence is longer than any backtick run in
/// the lines.
fn suggestion_block(change: &LineChange) -> String {
    let longest = change.text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}suggestion\n{}{fence}", change.text)
}

/// An inline comment, within GitHub's limit: the text is cut, never the
/// fingerprint at its end (a suggestion that does not fit whole is left out).
fn comment_body(f: &Finding, suggestion: Option<&LineChange>) -> String {
    let mut text = format!("**{}** `{}`: {}", f.severity.as_str(), f.rule, f.message);
    if let Some(help) = &f.help {
        text.push_str(&format!("\n\nHow to fix: {help}"));
    }
    if let (Some(change), Some(fix)) = (suggestion, &f.fix) {
        let block = format!(
            "\n\nSuggested fix, verified (gatehouse applied it and ran its rules again): {}\n\n{}",
            fix.message,
            suggestion_block(change)
        );
        if text.chars().count() + block.chars().count() + 200 < limits::COMMENT_CHARS {
            text.push_str(&block);
        }
    }
    let tail = format!("\n\n`gatehouse explain {}` says why.\n\n{FINGERPRINT}{} -->", f.rule, f.fingerprint);
    let room = limits::COMMENT_CHARS - tail.chars().count();
    format!("{}{tail}", limits::chars(&text, room))
}

/// The review body: how many new findings, those not commented inline, and
/// the head's mark (kept whatever is cut: it says this head was reviewed).
fn review_body(head: &str, total: usize, in_body: &[&Finding], note: Option<&str>) -> String {
    let mut text = format!("gatehouse found {total} new finding(s) on `{}`.", &head[..head.len().min(7)]);
    if let Some(note) = note {
        text.push_str(&format!("\n\n{note}"));
    }
    if !in_body.is_empty() {
        text.push_str("\n\nNot commented on a line of the diff:\n");
        for f in in_body {
            let message = f.message.split_whitespace().collect::<Vec<_>>().join(" ");
            text.push_str(&format!(
                "\n- `{}:{}` **{}** `{}`: {} {FINGERPRINT}{} -->",
                f.path,
                f.span.line,
                f.severity.as_str(),
                f.rule,
                limits::chars(&message, BODY_MESSAGE_CHARS),
                f.fingerprint
            ));
        }
    }
    let tail = format!("\n\n{REVIEW_MARK}{head} -->");
    let room = limits::COMMENT_CHARS - tail.chars().count();
    format!("{}{tail}", limits::chars(&text, room))
}

/// A review comment: on the finding's line, or, with a suggestion, on the
/// lines the suggestion replaces.
fn inline_comment(f: &Finding, suggestion: Option<&LineChange>) -> InlineComment {
    let body = comment_body(f, suggestion);
    let path = f.path.clone();
    match suggestion {
        Some(change) if change.start_line < change.end_line => {
            InlineComment { path, start_line: Some(change.start_line), line: change.end_line, body }
        }
        Some(change) => InlineComment { path, start_line: None, line: change.end_line, body },
        None => InlineComment { path, start_line: None, line: f.span.line, body },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Span;

    fn finding(rule: &'static str, line: u32, fingerprint: &str) -> Finding {
        Finding {
            rule,
            severity: Severity::Error,
            path: "dark-factory/briefs/SWARM-GW-gateway.md".into(),
            span: Span::at(line, 17, 1),
            message: "`lines_estimate` must be a positive integer, found a string".into(),
            help: None,
            fingerprint: fingerprint.into(),
            fix: None,
        }
    }

    #[test]
    fn a_comment_names_the_rule_says_how_to_fix_and_hides_its_fingerprint() {
        let finding = Finding {
            rule: "brief/adr-missing",
            severity: Severity::Error,
            path: "dark-factory/briefs/SWARM-GW-gateway.md".into(),
            span: Span::at(4, 27, 7),
            message: "ADR-321 is not among the repository's ADRs".into(),
            help: Some("fix the id, or add the ADR under docs/adr/**/*.md".into()),
            fingerprint: "3f2a9c0d11e4b7a8".into(),
            fix: None,
        };
        let body = comment_body(&finding, None);
        insta::assert_snapshot!(body);
        assert_eq!(fingerprints_in(&body).collect::<Vec<_>>(), vec!["3f2a9c0d11e4b7a8"]);
    }

    #[test]
    fn a_verified_fix_becomes_a_suggestion_on_the_lines_it_rewrites() {
        let mut finding = finding("brief/field-type", 9, "1f39a6a6cdd58f92");
        finding.fix = Some(crate::model::Fix::replace("write `lines_estimate: 60`", &finding.path, 0..1, "6"));
        let one = LineChange { start_line: 9, end_line: 9, text: "lines_estimate: 60\n".into() };
        let comment = inline_comment(&finding, Some(&one));
        assert_eq!((comment.line, comment.start_line), (9, None));
        assert!(comment.body.contains("\n```suggestion\nlines_estimate: 60\n```"), "{}", comment.body);
        assert_eq!(fingerprints_in(&comment.body).collect::<Vec<_>>(), vec!["1f39a6a6cdd58f92"]);
        let two = LineChange { start_line: 3, end_line: 5, text: "a\n```b```\n".into() };
        let comment = inline_comment(&finding, Some(&two));
        assert_eq!((comment.start_line, comment.line), (Some(3), 5));
        assert!(comment.body.contains("\n````suggestion\na\n```b```\n````"));
        let plain = inline_comment(&finding, None);
        assert_eq!(plain.line, 9);
        assert!(!plain.body.contains("suggestion"));
    }

    #[test]
    fn a_finding_is_commented_once_on_the_diff_or_in_the_body_and_gone_ones_are_resolved() {
        let path = "dark-factory/briefs/SWARM-GW-gateway.md";
        let files = [DiffFile { path: path.into(), patch: Some("@@ -1,2 +1,3 @@\n a\n+b\n c\n".into()) }];
        let (on_diff, off_diff, old) = (finding("r/a", 2, "aa"), finding("r/b", 40, "bb"), finding("r/c", 3, "cc"));
        let mut shown = Shown::default();
        shown.read_thread("T1", false, "x <!-- gatehouse:fingerprint=cc -->");
        shown.read_thread("T2", false, "x <!-- gatehouse:fingerprint=gone -->");
        let planned = plan("abcdef0123", &[&on_diff, &off_diff, &old], &files, &BTreeMap::new(), &shown);
        assert_eq!(planned.resolve, ["T2"]);
        let draft = planned.post.unwrap();
        assert_eq!(draft.inline.iter().map(|c| (c.path.as_str(), c.line)).collect::<Vec<_>>(), [(path, 2)]);
        assert_eq!(draft.in_body, 1);
        assert!(draft.body.contains("<!-- gatehouse:fingerprint=bb -->"), "{}", draft.body);
        assert!(draft.body.ends_with("<!-- gatehouse:review=abcdef0123 -->"), "{}", draft.body);
        assert!(draft.all_in_body.contains("fingerprint=aa") && draft.all_in_body.contains("fingerprint=bb"));
        shown.read_body(&draft.body);
        let again = plan("abcdef0123", &[&on_diff, &off_diff, &old], &files, &BTreeMap::new(), &shown);
        assert_eq!(again.post, None, "a head is reviewed once");
    }
}
