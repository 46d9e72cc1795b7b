-- Jobs name their target and scope in typed columns (see src/store/jobs.rs)
-- instead of a PR number 0 standing for a head, a merge group, an install or
-- a push, and a check name standing for the review gate. Jobs queued by the
-- release before are filled in from the old columns: the worker dispatched
-- merge groups by reason, PR 0 without a head was an install, PR 0 with
-- reason `push` a base tip, any other PR 0 a head; a PR job resolved from a
-- push carried the tip, which is no PR head.
-- SQLite adds a NOT NULL column only with a default: every insert sets it.
ALTER TABLE gh_jobs ADD COLUMN target TEXT NOT NULL DEFAULT 'pr';
ALTER TABLE gh_jobs ADD COLUMN target_pr BIGINT;
ALTER TABLE gh_jobs ADD COLUMN target_sha TEXT;
ALTER TABLE gh_jobs ADD COLUMN scope TEXT NOT NULL DEFAULT 'all';
ALTER TABLE gh_jobs ADD COLUMN once_per_head BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE gh_jobs SET
    target = CASE
        WHEN reason = 'merge_group.destroyed' THEN 'merge_group_destroyed'
        WHEN reason LIKE 'merge_group.%' THEN 'merge_group'
        WHEN pr <> 0 THEN 'pr'
        WHEN head_sha IS NULL THEN 'open_prs'
        WHEN reason = 'push' THEN 'base_tip'
        ELSE 'head' END,
    target_pr = CASE WHEN pr <> 0 AND reason NOT LIKE 'merge_group.%' THEN pr END,
    target_sha = CASE WHEN pr <> 0 AND reason = 'push' THEN NULL ELSE head_sha END,
    scope = CASE
        WHEN only_check IS NULL THEN 'all'
        WHEN only_check = 'gatehouse/review' THEN 'review_gate'
        ELSE only_check END,
    once_per_head = reason IN ('pull_request.opened', 'pull_request.synchronize', 'check_suite.requested',
        'merge_group.checks_requested');
ALTER TABLE gh_jobs DROP COLUMN pr;
ALTER TABLE gh_jobs DROP COLUMN head_sha;
ALTER TABLE gh_jobs DROP COLUMN only_check;
