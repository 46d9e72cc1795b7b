-- The reviewers a job is about to ask on a head are recorded before it asks (`settled` false),
-- and what asking came to after (`settled` true): a job killed between the two asks the same
-- logins again on its next attempt, which GitHub takes as the same request, so the review gate's
-- summary says what an uninterrupted run would (src/store/review_requests.rs).
ALTER TABLE gh_review_requests ADD COLUMN settled BOOLEAN NOT NULL DEFAULT TRUE;
