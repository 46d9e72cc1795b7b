-- A job of a command in a pull request comment (src/app/commands) keeps the
-- command as JSON: the comment's id, who wrote it, the pull request's author
-- and what it asks. Null for every other job.
ALTER TABLE gh_jobs ADD COLUMN command TEXT;
