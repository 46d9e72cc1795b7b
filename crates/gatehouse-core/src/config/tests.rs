//! Reading `.github/gatehouse.yml`: sections, defaults, and errors with
//! their line, column and width.

use super::*;

fn any_rule(_: &str) -> bool {
    true
}

#[test]
fn empty_config_is_the_defaults() {
    assert_eq!(Config::parse("", &any_rule).0, Config::default());
    assert_eq!(Config::parse("# nothing\n", &any_rule).1, vec![]);
}

#[test]
fn reads_every_section() {
    let text = "briefs: { paths: [\"briefs/*.md\"], review_threshold: { lines: 200, repos: 2 } }\n\
                review:\n  core: { reviewers: [a, b], required: 1 }\n  stale_on_push: false\n\
                limits: { max_file_bytes: 10 }\n";
    let (c, errors) = Config::parse(text, &any_rule);
    assert_eq!(errors, vec![]);
    assert_eq!(c.briefs.paths, vec!["briefs/*.md"]);
    assert_eq!(c.briefs.review_threshold, Threshold { lines: 200, repos: 2 });
    let review = c.review.expect("a review policy");
    assert_eq!(review.core_reviewers, vec!["a", "b"]);
    assert!(!review.stale_on_push);
    assert_eq!(review.describe(), "1 of a, b approve");
    assert_eq!(c.limits.max_file_bytes, 10);
}

#[test]
fn approvals_end_on_a_document_change_unless_configured() {
    assert_eq!(ReviewConfig::default().approvals_end_on, ApprovalsEnd::DocumentChange);
    let (c, errors) =
        Config::parse("review:\n  core: { reviewers: [a, b] }\n  approvals_end_on: any_push\n", &any_rule);
    assert_eq!((c.review.as_ref().expect("a policy").approvals_end_on, errors), (ApprovalsEnd::AnyPush, vec![]));
    let (c, errors) =
        Config::parse("review:\n  core: { reviewers: [a, b] }\n  approvals_end_on: sometimes\n", &any_rule);
    assert_eq!(c.review.as_ref().expect("a policy").approvals_end_on, ApprovalsEnd::DocumentChange);
    assert_eq!(errors.len(), 1);
    assert_eq!((errors[0].line, errors[0].col), (3, 21));
    assert!(errors[0].message.contains("found `sometimes`"), "{}", errors[0].message);
}

#[test]
fn no_review_key_is_no_policy_and_a_policy_that_cannot_pass_is_an_error() {
    assert_eq!(Config::default().review, None);
    let (c, errors) = Config::parse(REVIEW_EXAMPLE, &any_rule);
    assert_eq!(errors, vec![]);
    assert_eq!(c.review.expect("a policy").describe(), "2 of alice, bob, carol approve and dana reviews");
    let (_, errors) = Config::parse("review:\n  request_reviewers: false\n", &any_rule);
    assert_eq!((errors.len(), errors[0].line), (1, 2), "{errors:?}");
    assert!(errors[0].message.contains("no `core` reviewers"), "{errors:?}");
    let (_, errors) = Config::parse("review:\n  core: { reviewers: [a], required: 2 }\n", &any_rule);
    assert_eq!((errors.len(), errors[0].line, errors[0].col, errors[0].width), (1, 2, 9, 31), "{errors:?}");
    assert!(errors[0].message.contains("only 1 core reviewer is listed"), "{errors:?}");
    let (_, errors) = Config::parse("review: yes\n", &any_rule);
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn errors_carry_lines_and_keep_defaults() {
    let (c, errors) = Config::parse("briefs:\n  review_threshold:\n    lines: many\nbogus: 1\n", &any_rule);
    assert_eq!(c.briefs.review_threshold.lines, 100);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!((errors[0].line, errors[0].col, errors[0].width), (3, 12, 4), "`many`");
    assert!(errors[0].message.contains("non-negative integer"));
    assert_eq!((errors[1].line, errors[1].col, errors[1].width), (4, 1, 5), "`bogus`");
    let (_, errors) = Config::parse("briefs: [unclosed\n", &any_rule);
    assert_eq!(errors.len(), 1);
}

#[test]
fn path_filters_select_by_prefix() {
    let files: Files =
        ["a.md", "docs/adr/x.md", "docs/adr/sub/y.md", "docs/other.md", "fondue/specs/s/state", "z/docs/adr/q.md"]
            .into_iter()
            .map(|p| (p.to_string(), FileContent::Binary))
            .collect();
    let picked = |f: &PathFilter| f.select(&files).map(|(p, _)| p.as_str()).collect::<Vec<_>>();
    let adrs = PathFilter::globs(&["docs/adr/**/*.md".into(), "docs/adr/sub/*.md".into()]);
    assert_eq!(picked(&adrs), vec!["docs/adr/sub/y.md", "docs/adr/x.md"]);
    assert_eq!(picked(&PathFilter::globs(&["**/*.md".into()])).len(), 5);
    assert_eq!(picked(&PathFilter::folders(&["fondue/specs".into()])), vec!["fondue/specs/s/state"]);
}

#[test]
fn compiled_glob_sets_are_kept_by_their_patterns() {
    let briefs = vec!["kept/briefs/*.md".to_string()];
    let docs = vec!["kept/docs/**".to_string()];
    assert!(Arc::ptr_eq(&globset(&briefs), &globset(&briefs)));
    assert!(globset(&briefs).is_match("kept/briefs/a.md") && !globset(&briefs).is_match("kept/docs/a.md"));
    assert!(globset(&docs).is_match("kept/docs/x/a.md") && !globset(&docs).is_match("kept/briefs/a.md"));
}

#[test]
fn globs_match_within_folders_only() {
    let set = globset(&["dark-factory/briefs/*.md".to_string()]);
    assert!(set.is_match("dark-factory/briefs/SWARM-AR-x.md"));
    assert!(!set.is_match("dark-factory/briefs/old/SWARM-AR-x.md"));
    assert!(under("fondue/specs/a/current-state.txt", &["fondue/specs".into()]));
    assert!(!under("fondue/specsx/a", &["fondue/specs".into()]));
}
