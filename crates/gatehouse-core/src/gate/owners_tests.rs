//! The gate with CODEOWNERS, rosters and the base branch's rules.

use super::*;
use crate::config::{OwnersFrom, Quorum, Roster};
use crate::model::{ChangedFile, FileContent};
use crate::owners::{BaseFile, Members, RequiredReviewers, RuleSource, TeamRef};

const HEAD: &str = "abc1234def5678";

fn approve(login: &str, commit: &str) -> Review {
    Review { login: login.into(), state: ReviewState::Approved, commit: Some(commit.into()), submitted_at: None }
}

fn changes(files: &[&str]) -> ChangeSet {
    let mut changes = ChangeSet::default();
    changes.pr.files =
        Some(files.iter().map(|p| ChangedFile { path: p.to_string(), additions: 1, deletions: 0 }).collect());
    changes.codeowners = Some(BaseFile {
        path: ".github/CODEOWNERS".into(),
        text: "*        @lead\n/infra/ @acme/sre\n/docs/ docs@acme.example\n".into(),
    });
    changes
}

fn owners_policy() -> ReviewConfig {
    ReviewConfig { owners: OwnersFrom::Codeowners, ..Default::default() }
}

fn directory() -> Directory {
    let mut directory = Directory { author: "author".into(), ..Default::default() };
    directory.teams.insert(TeamRef::new("acme", "sre"), Members::Read(vec!["sam".into(), "sid".into()]));
    directory
}

fn run(changes: &ChangeSet, policy: &ReviewConfig, reviews: &[Review], authors: &[String], dir: &Directory) -> Outcome {
    let contents = Contents::default();
    let inputs = Inputs { reviews, commit_authors: authors, head: HEAD, contents: &contents, directory: dir };
    evaluate_change(changes, policy, &inputs)
}

#[test]
fn each_owned_file_needs_one_of_its_owners_and_teams_are_asked_as_teams() {
    let mut changes = changes(&["infra/db/main.tf", "src/lib.rs"]);
    changes.config.review = Some(owners_policy());
    let outcome = run(&changes, &owners_policy(), &[], &[], &directory());
    assert!(!outcome.passed);
    let rules: Vec<&str> = outcome.groups.iter().map(|g| g.rule.as_str()).collect();
    assert_eq!(rules, ["`.github/CODEOWNERS`:1", "`.github/CODEOWNERS`:2"]);
    assert_eq!(reviewers_to_request(&outcome, &[], &[]), ["lead", "@acme/sre"]);
    assert_eq!(reviewers_to_request(&outcome, &[], &["@Acme/SRE".into()]), ["lead"], "a team asked already");
    assert_eq!(split_teams(&["lead".into(), "@acme/sre".into()]), (vec!["lead".into()], vec!["sre".into()]));
    assert_eq!(teams_wanted(&changes), [TeamRef::new("acme", "sre")]);

    let reviews = [approve("sid", HEAD), approve("lead", HEAD)];
    let outcome = run(&changes, &owners_policy(), &reviews, &[], &directory());
    assert!(outcome.passed, "{:?}", outcome.missing);
    assert!(
        outcome.summary().contains(
            "| 1 approval from @acme/sre for `infra/db/main.tf` | sid | met | gatehouse | `.github/CODEOWNERS`:2 |"
        ),
        "{}",
        outcome.summary()
    );
}

#[test]
fn the_author_a_recused_committer_a_stale_approval_and_an_unnamed_bot_never_count() {
    let changes = changes(&["src/lib.rs"]);
    let policy = owners_policy();
    let mut dir = directory();
    dir.author = "lead".into();
    assert!(!run(&changes, &policy, &[approve("lead", HEAD)], &[], &dir).passed, "the author");
    let dir = directory();
    assert!(!run(&changes, &policy, &[approve("lead", HEAD)], &["lead".into()], &dir).passed, "recused");
    assert!(!run(&changes, &policy, &[approve("lead", "0000000aaaa")], &[], &dir).passed, "on an earlier head");
    let roster = Roster {
        paths: vec!["src/**".into()],
        all_of: vec![Quorum { n_of: 1, from: vec!["lead".into(), "renovate[bot]".into()] }],
        advisory: vec![],
        bots: vec![],
        line: 4,
    };
    let policy = ReviewConfig { rosters: vec![roster.clone()], ..Default::default() };
    assert!(!run(&changes, &policy, &[approve("renovate[bot]", HEAD)], &[], &dir).passed, "a bot not named");
    let named = Roster { bots: vec!["renovate[bot]".into()], ..roster };
    let policy = ReviewConfig { rosters: vec![named], ..Default::default() };
    assert!(run(&changes, &policy, &[approve("renovate[bot]", HEAD)], &[], &dir).passed, "a bot the roster names");
}

#[test]
fn a_roster_needs_every_quorum_and_its_advisory_review() {
    let changes = changes(&["infra/db/main.tf"]);
    let roster = Roster {
        paths: vec!["infra/**".into()],
        all_of: vec![
            Quorum { n_of: 1, from: vec!["@acme/sre".into()] },
            Quorum { n_of: 2, from: vec!["alice".into(), "bob".into(), "carol".into()] },
        ],
        advisory: vec!["dana".into()],
        bots: vec![],
        line: 7,
    };
    let policy = ReviewConfig { rosters: vec![roster], ..Default::default() };
    let reviews = [approve("sam", HEAD), approve("alice", HEAD)];
    let outcome = run(&changes, &policy, &reviews, &[], &directory());
    assert_eq!(
        outcome.missing_lines(),
        [
            "a review from dana for `infra/db/main.tf` (`.github/gatehouse.yml`:7)",
            "1 more approval from alice, bob or carol for `infra/db/main.tf` (`.github/gatehouse.yml`:7)"
        ]
    );
    assert_eq!(reviewers_to_request(&outcome, &reviews, &[]), ["dana", "bob", "carol"]);
    let mut reviews = reviews.to_vec();
    reviews.push(approve("bob", HEAD));
    reviews.push(Review { state: ReviewState::Commented, ..approve("dana", HEAD) });
    assert!(run(&changes, &policy, &reviews, &[], &directory()).passed);
}

#[test]
fn an_unreadable_team_is_reported_never_silently_empty() {
    let changes = changes(&["infra/a.tf"]);
    let mut dir = directory();
    dir.teams.insert(TeamRef::new("acme", "sre"), Members::Unreadable("404 Not Found".into()));
    let outcome = run(&changes, &owners_policy(), &[approve("sam", HEAD)], &[], &dir);
    assert!(!outcome.passed);
    assert!(
        outcome.missing_lines()[0].contains("the members of @acme/sre could not be read (404 Not Found)"),
        "{:?}",
        outcome.missing_lines()
    );
    dir.teams.clear();
    let outcome = run(&changes, &owners_policy(), &[], &[], &dir);
    assert!(outcome.missing_lines()[0].contains("were not read"), "{:?}", outcome.missing_lines());
}

#[test]
fn an_email_owner_is_named_as_one_gatehouse_cannot_match() {
    let changes = changes(&["docs/guide.md"]);
    let outcome = run(&changes, &owners_policy(), &[], &[], &directory());
    assert!(!outcome.passed);
    let line = &outcome.missing_lines()[0];
    assert!(line.contains("docs@acme.example is an email address, which gatehouse cannot match"), "{line}");
    assert!(reviewers_to_request(&outcome, &[], &[]).is_empty(), "an email cannot be asked");
}

#[test]
fn an_agents_pull_request_is_not_approved_by_its_person_alone() {
    let changes = changes(&["src/lib.rs"]);
    let mut dir = directory();
    dir.author = "swarm-bot".into();
    dir.assignees = vec!["lead".into()];
    let policy = ReviewConfig { agents: vec!["swarm-bot".into()], ..owners_policy() };
    let outcome = run(&changes, &policy, &[approve("lead", HEAD)], &[], &dir);
    assert!(!outcome.passed);
    assert!(
        outcome.missing_lines()[0].contains("swarm-bot opened this pull request for lead"),
        "{:?}",
        outcome.missing_lines()
    );
    let by_people = ReviewConfig { agents: vec![], ..owners_policy() };
    assert!(run(&changes, &by_people, &[approve("lead", HEAD)], &[], &dir).passed, "a person's own PR");
    dir.author = "swarm[bot]".into();
    assert!(!run(&changes, &by_people, &[approve("lead", HEAD)], &[], &dir).passed, "a bot author is an agent");
}

#[test]
fn the_branch_rules_are_shown_and_asked_but_decided_by_github() {
    let mut changes = changes(&["infra/a.tf"]);
    changes.branch_rules.required_approvals = vec![(2, RuleSource::Ruleset("main".into()))];
    changes.branch_rules.code_owner_review = vec![RuleSource::Protection];
    changes.branch_rules.required_reviewers = vec![RequiredReviewers {
        source: RuleSource::Ruleset("infra".into()),
        patterns: vec!["infra/**".into()],
        minimum: 1,
        team: TeamRef::new("acme", "platform"),
    }];
    let policy = ReviewConfig { core_reviewers: vec!["marcus".into(), "priya".into()], ..Default::default() };
    let reviews = [approve("marcus", HEAD), approve("priya", HEAD)];
    let outcome = run(&changes, &policy, &reviews, &[], &directory());
    assert!(outcome.passed, "GitHub's rules are GitHub's to enforce: {:?}", outcome.missing);
    let rules: Vec<(&str, u64)> = outcome.groups.iter().map(|g| (g.rule.as_str(), g.missing)).collect();
    assert_eq!(
        rules,
        [("ruleset main", 0), ("branch protection (code owners, `.github/CODEOWNERS`:2)", 1), ("ruleset infra", 1)]
    );
    assert_eq!(reviewers_to_request(&outcome, &reviews, &[]), ["@acme/sre", "@acme/platform"]);
    assert_eq!(teams_wanted(&changes), [TeamRef::new("acme", "platform"), TeamRef::new("acme", "sre")]);
    let table = outcome.summary();
    assert!(
        table.contains("| 2 approvals from marcus or priya | marcus, priya | met | gatehouse | `review.core` |"),
        "{table}"
    );
    assert!(table.contains("| GitHub | ruleset infra |"), "{table}");
}

#[test]
fn without_owners_rosters_or_branch_rules_the_gate_is_as_before() {
    let mut changes = changes(&["infra/a.tf"]);
    changes.head.insert("infra/a.tf".into(), FileContent::Text("x".into()));
    let policy = ReviewConfig { core_reviewers: vec!["marcus".into(), "priya".into()], ..Default::default() };
    let reviews = [approve("marcus", HEAD)];
    let before = evaluate_contents(&policy, &reviews, &[], HEAD, &Contents::default());
    assert_eq!(run(&changes, &policy, &reviews, &[], &Directory::default()), before);
    assert!(teams_wanted(&changes).is_empty());
}
