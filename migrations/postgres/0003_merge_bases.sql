-- The merge base of a pull request's base and head commits, as the compare
-- API answered it (see src/store/blobs.rs): two commits' merge base never
-- changes, so a restarted process or another replica reads it here instead
-- of asking GitHub again. Rows go with the blobs stored before them.
CREATE TABLE gh_merge_bases (
    repo TEXT NOT NULL,
    base_sha TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    merge_base TEXT NOT NULL,
    stored_at BIGINT NOT NULL,
    PRIMARY KEY (repo, base_sha, head_sha)
);
CREATE INDEX gh_merge_bases_stored_at ON gh_merge_bases (stored_at);
