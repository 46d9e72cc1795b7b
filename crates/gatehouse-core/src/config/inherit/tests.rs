use super::*;

const RULES: &[&str] = &["brief/adr-missing", "brief/out-of-scope-empty"];

fn source(text: &str) -> Source {
    Source::parse(text).expect("a source")
}

fn parents(files: &[(&str, &str)]) -> Parents {
    files.iter().map(|(s, text)| (source(s), Parent::Text(text.to_string()))).collect()
}

fn shown(effective: &Effective) -> Vec<(ProblemKind, u32, u32, String)> {
    effective.problems.iter().map(|p| (p.kind, p.error.line, p.error.col, p.error.message.clone())).collect()
}

#[test]
fn sources_name_a_repository_and_a_file() {
    assert_eq!(source("acme/.github").to_string(), "acme/.github:gatehouse.yml");
    assert_eq!(source("acme/policies:teams/platform.yml").path, "teams/platform.yml");
    assert!(Source::parse("acme").unwrap_err().contains("`owner/name`"));
    assert!(Source::parse("acme/policies:../x.yml").unwrap_err().contains("relative"));
}

#[test]
fn three_files_merge_key_by_key_from_the_farthest() {
    let shared = parents(&[
        (
            "acme/.github",
            "extends: acme/base\nreview:\n  core: { reviewers: [alice, bob, carol] }\n  paths: [\"ops/**\"]\nrules:\n  brief/adr-missing: warning\n",
        ),
        (
            "acme/base",
            "briefs:\n  review_threshold: { lines: 80, repos: 2 }\nreview:\n  core: { required: 2 }\n  paths: [\"infra/**\"]\ndashboard: { enabled: true }\n",
        ),
    ]);
    let repo = "extends: acme/.github\nbriefs:\n  review_threshold:\n    lines: 120\nreview:\n  advisory: [dana]\n  paths: [\"docs/**\"]\n";
    let effective = resolve(Some(repo), None, &shared, RULES);
    assert_eq!(shown(&effective), vec![]);
    let c = &effective.config;
    assert_eq!((c.briefs.review_threshold.lines, c.briefs.review_threshold.repos), (120, 2));
    let review = c.review.as_ref().expect("a policy");
    assert_eq!(review.describe(), "2 of alice, bob, carol approve and dana reviews");
    assert_eq!(review.paths, vec!["infra/**", "ops/**", "docs/**"], "review.paths appends");
    assert!(c.dashboard.enabled);
    assert_eq!(c.rules.get("brief/adr-missing"), Some(&Level::On(Severity::Warning)));
    let origin = |key: &str| effective.origins.get(key).map(|o| (o.file, o.pos.line));
    assert_eq!(origin("briefs.review_threshold.lines"), Some((0, 4)));
    assert_eq!(origin("briefs.review_threshold.repos"), Some((2, 2)));
    assert_eq!(origin("review.core.reviewers"), Some((1, 3)));
    assert_eq!(origin("review.core.required"), Some((2, 4)));
    assert_eq!(origin("limits.max_file_bytes"), None);
    assert_eq!(effective.file_name(2), "acme/base:gatehouse.yml");
}

#[test]
fn a_value_a_lock_refuses_is_reported_at_its_line_and_the_locked_value_applies() {
    let shared = parents(&[(
        "acme/.github",
        "review:\n  core: { reviewers: [alice, bob, carol], required: 2 }\nlocks:\n  review.core.required: { at_least: 2 }\n  rules.brief/adr-missing: { at_least: error }\n  dashboard.enabled: locked\n",
    )]);
    let repo = "extends: acme/.github\nreview:\n  core: { required: 1 }\nrules:\n  brief/adr-missing: off\ndashboard:\n  enabled: true\n";
    let effective = resolve(Some(repo), None, &shared, RULES);
    let problems = shown(&effective);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert_eq!((problems[0].1, problems[0].2), (3, 21));
    assert_eq!(
        problems[0].3,
        "`review.core.required` must be at least 2 (a lock in `acme/.github:gatehouse.yml` line 4); this file asks \
         for 1"
    );
    assert_eq!((problems[1].1, problems[1].3.contains("must be at least error")), (5, true), "{problems:?}");
    assert_eq!((problems[2].1, problems[2].3.contains("is locked at false")), (7, true), "{problems:?}");
    assert!(effective.problems.iter().all(|p| p.kind == ProblemKind::Locked));
    let c = &effective.config;
    assert_eq!(c.review.as_ref().map(|r| r.core_required), Some(2));
    assert_eq!(c.rules.get("brief/adr-missing"), None, "the extended config set no level: the default holds");
    assert!(!c.dashboard.enabled);
    assert_eq!(effective.origins.get("review.core.required").map(|o| o.file), Some(1));
    let asks_more = "extends: acme/.github\nreview:\n  core: { required: 3 }\nrules:\n  brief/adr-missing: error\n";
    let effective = resolve(Some(asks_more), None, &shared, RULES);
    assert_eq!(shown(&effective), vec![]);
    assert_eq!(effective.config.review.map(|r| r.core_required), Some(3));
    assert_eq!(effective.locks.get("review.core.required").map(|l| l.origin.pos.line), Some(4));
}

#[test]
fn an_extended_file_that_cannot_be_read_is_a_problem_at_extends() {
    let mut shared = Parents::new();
    let why = "the repository `acme/.github` does not exist or the App cannot see it";
    shared.insert(source("acme/.github"), Parent::Unreadable(why.into()));
    let repo = "rules:\n  brief/out-of-scope-empty: off\nextends: acme/.github\n";
    let effective = resolve(Some(repo), None, &shared, RULES);
    assert_eq!(
        shown(&effective),
        vec![(
            ProblemKind::Extends,
            3,
            10,
            format!("the extended config `acme/.github:gatehouse.yml` cannot be read: {why}")
        )]
    );
    assert_eq!(wanted(Some(repo), None, &shared), None);
    assert_eq!(wanted(Some(repo), None, &Parents::new()), Some(source("acme/.github")));
    let unread = resolve(Some(repo), None, &Parents::new(), RULES);
    assert!(unread.problems[0].error.message.contains("was not read"), "{:?}", unread.problems);
    let yaml = parents(&[("acme/.github", "review:\n\tcore: {}\n")]);
    let effective = resolve(Some(repo), None, &yaml, RULES);
    let problems = shown(&effective);
    assert_eq!((problems.len(), problems[0].0, problems[0].1), (1, ProblemKind::Extends, 3), "{problems:?}");
    assert!(problems[0].3.starts_with("in the extended config `acme/.github:gatehouse.yml` line 2: invalid YAML"));
}

#[test]
fn a_cycle_and_a_chain_too_long_are_problems() {
    let cycle = parents(&[("acme/a", "extends: acme/b\n"), ("acme/b", "extends: acme/a\n")]);
    let effective = resolve(Some("extends: acme/a\n"), None, &cycle, RULES);
    let problems = shown(&effective);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].3.contains("form a cycle"), "{problems:?}");
    assert_eq!(wanted(Some("extends: acme/a\n"), None, &cycle), None);
    let long = parents(&[
        ("acme/a", "extends: acme/b\n"),
        ("acme/b", "extends: acme/c\n"),
        ("acme/c", "extends: acme/d\n"),
        ("acme/d", "extends: acme/e\n"),
        ("acme/e", "dashboard: { enabled: true }\n"),
    ]);
    let effective = resolve(Some("extends: acme/a\n"), None, &long, RULES);
    assert!(shown(&effective)[0].3.contains("longer than 4 files at `acme/e:gatehouse.yml`"));
    assert!(!effective.config.dashboard.enabled, "a file past the bound is not merged");
}

#[test]
fn a_default_parent_applies_to_a_repository_without_a_config_or_extends() {
    let policy = Source::file("policy.yml");
    let shared: Parents = [(policy.clone(), Parent::Text("dashboard: { enabled: true }\n".into()))].into();
    let effective = resolve(None, Some(&policy), &shared, RULES);
    assert!(effective.config.dashboard.enabled);
    assert_eq!(effective.files, vec![None, Some(policy.clone())]);
    let elsewhere = resolve(Some("extends: acme/.github\n"), Some(&policy), &shared, RULES);
    assert!(elsewhere.problems[0].error.message.contains("acme/.github"), "extends: wins");
}

#[test]
fn a_review_policy_completed_by_the_extended_file_can_pass() {
    let shared = parents(&[("acme/.github", "review:\n  core: { reviewers: [alice, bob, carol] }\n")]);
    let repo = "extends: acme/.github\nreview:\n  advisory: [dana]\n";
    assert_eq!(shown(&resolve(Some(repo), None, &shared, RULES)), vec![]);
    let (_, alone) = Config::parse("review:\n  advisory: [dana]\n", RULES);
    assert_eq!(alone.len(), 1, "{alone:?}");
}

#[test]
fn a_lock_of_an_unknown_key_or_kind_is_invalid() {
    let (_, errors) =
        Config::parse("locks:\n  review.core.requried: locked\n  limits.max_file_bytes: { at_least: big }\n", RULES);
    let shown: Vec<(u32, &str)> = errors.iter().map(|e| (e.line, e.message.as_str())).collect();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(errors[0].help, "did you mean `review.core.required`?");
    assert_eq!(shown[1].0, 3);
}

#[test]
fn every_chain_ends_at_the_organisation_s_policy() {
    let policy = source("acme/.github");
    let floor = "review:\n  core: { reviewers: [alice, bob, carol], required: 2 }\nlocks:\n  review.core.required: { at_least: 2 }\n";
    let lax = "review:\n  core: { required: 1 }\n";
    let repo = "extends: acme/lax\n";
    // The chain the repository names is read first, then the policy above it.
    assert_eq!(wanted(Some(repo), Some(&policy), &Parents::new()), Some(source("acme/lax")));
    let half = parents(&[("acme/lax", lax)]);
    assert_eq!(wanted(Some(repo), Some(&policy), &half), Some(policy.clone()));
    let both = parents(&[("acme/lax", lax), ("acme/.github", floor)]);
    let effective = resolve(Some(repo), Some(&policy), &both, RULES);
    assert_eq!(effective.files, vec![None, Some(source("acme/lax")), Some(policy.clone())]);
    assert_eq!(effective.config.review.as_ref().map(|r| r.core_required), Some(2), "the policy's floor holds");
    let problems = shown(&effective);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, ProblemKind::Locked);
    // A repository without `extends:` is under the policy too, and one that
    // names the policy itself reads it once.
    let alone = resolve(Some("review:\n  core: { required: 1 }\n"), Some(&policy), &both, RULES);
    assert_eq!(shown(&alone)[0].0, ProblemKind::Locked);
    let named = resolve(Some("extends: acme/.github\n"), Some(&policy), &both, RULES);
    assert_eq!(named.files, vec![None, Some(policy.clone())]);
    assert_eq!(shown(&named), vec![]);
    // Only a policy no file names may be absent.
    assert!(policy_by_default(Some(repo), Some(&policy), &both));
    assert!(policy_by_default(None, Some(&policy), &both));
    assert!(!policy_by_default(Some("extends: acme/.github\n"), Some(&policy), &both));
    let naming = parents(&[("acme/lax", "extends: acme/.github\n")]);
    assert!(!policy_by_default(Some(repo), Some(&policy), &naming));
}

#[test]
fn an_absent_policy_is_no_parent_and_an_unreadable_one_is_a_problem() {
    let policy = source("acme/.github");
    let absent: Parents = [(policy.clone(), Parent::Absent("no `gatehouse.yml` there".into()))].into();
    let repo = "review:\n  core: { reviewers: [alice, bob, carol], required: 1 }\n";
    let effective = resolve(Some(repo), Some(&policy), &absent, RULES);
    assert_eq!((effective.files.len(), shown(&effective)), (1, vec![]));
    assert_eq!(wanted(Some(repo), Some(&policy), &absent), None);
    let unreadable: Parents = [(policy.clone(), Parent::Unreadable("the App is not installed there".into()))].into();
    let effective = resolve(Some(repo), Some(&policy), &unreadable, RULES);
    let problems = shown(&effective);
    assert_eq!((problems.len(), problems[0].0, problems[0].1), (1, ProblemKind::Extends, 1), "{problems:?}");
    assert!(problems[0].3.starts_with("the organisation's policy `acme/.github:gatehouse.yml` cannot be read"));
}
