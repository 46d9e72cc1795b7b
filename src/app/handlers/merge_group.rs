//! `merge_group`: the queue asks for a group's checks (checks_requested),
//! or the group left the queue (destroyed). The group is recorded; its job
//! is keyed by the group's head.

use super::{Origin, Work};
use crate::github::HeadSha;
use crate::store::{MergeGroupRecord, Scope, Target};
use crate::webhook::payloads::{MergeGroupAction, MergeGroupEvent};

pub(super) fn handle(event: &MergeGroupEvent) -> Work {
    let group = &event.merge_group;
    let head = HeadSha(group.head_sha.clone());
    // The queue asks once per group; a re-run of a group's check comes as
    // `check_run` and evaluates again.
    let (reason, target, once_per_head) = match event.action {
        MergeGroupAction::ChecksRequested => ("merge_group.checks_requested", Target::MergeGroup(head), true),
        MergeGroupAction::Destroyed => ("merge_group.destroyed", Target::MergeGroupDestroyed(head), false),
        MergeGroupAction::Other => return Work::default(),
    };
    let Some(origin) = Origin::of(&event.repository, event.installation.as_ref(), reason) else {
        return Work::default();
    };
    Work {
        jobs: vec![origin.job(target, Scope::All, once_per_head)],
        merge_group: Some(MergeGroupRecord {
            repo: event.repository.full_name.clone(),
            head_sha: group.head_sha.clone(),
            base_sha: group.base_sha.clone(),
            base_ref: group.base_ref.clone(),
            head_ref: group.head_ref.clone(),
        }),
        sender: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::envelope::parse;

    #[test]
    fn a_merge_group_is_recorded_and_keyed_by_its_head() {
        let body = r#"{"action":"checks_requested","merge_group":{"head_sha":"ff01","head_ref":"refs/heads/gh-readonly-queue/main/pr-2-ee02",
            "base_sha":"ee02","base_ref":"refs/heads/main","head_commit":{"id":"ff01","tree_id":"aa","message":"Merge pull request #2",
            "timestamp":"2026-11-30T10:00:00Z","author":{"name":"a","email":"a@example.com"},"committer":{"name":"GitHub","email":"noreply@github.com"}}},
            "repository":{"full_name":"acme/docs"},"installation":{"id":1}}"#;
        let work = parse("merge_group", body.as_bytes()).unwrap();
        assert_eq!(work.jobs[0].target, Target::MergeGroup(HeadSha("ff01".into())));
        assert_eq!(work.jobs[0].reason, "merge_group.checks_requested");
        let group = work.merge_group.unwrap();
        assert_eq!((group.base_sha.as_str(), group.base_ref.as_str()), ("ee02", "refs/heads/main"));
        let destroyed = body.replace("checks_requested", "destroyed\",\"reason\":\"dequeued");
        let work = parse("merge_group", destroyed.as_bytes()).unwrap();
        assert_eq!(work.jobs[0].target, Target::MergeGroupDestroyed(HeadSha("ff01".into())));
        assert!(work.merge_group.is_some());
    }
}
