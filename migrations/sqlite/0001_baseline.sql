-- The schema of gatehouse 0.1, whose databases recorded their migrations in
-- `gh_schema`: such a database is adopted (this migration recorded as
-- applied, not run). Times are milliseconds since the Unix epoch.

-- Verified deliveries by `X-GitHub-Delivery`; `digest` recognises a signed
-- body delivered again under another id.
CREATE TABLE gh_deliveries (
    id TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    digest TEXT
);
CREATE UNIQUE INDEX gh_deliveries_digest ON gh_deliveries (digest);

-- The job queue (see src/store/jobs.rs).
CREATE TABLE gh_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery TEXT NOT NULL,
    pr_key TEXT NOT NULL,
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    installation BIGINT NOT NULL,
    head_sha TEXT,
    reason TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    not_before BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT,
    error TEXT,
    only_check TEXT,
    started_sha TEXT
);
CREATE INDEX gh_jobs_state ON gh_jobs (state, id);
CREATE INDEX gh_jobs_pr ON gh_jobs (pr_key, state);

-- One worker per pull request at a time.
CREATE TABLE gh_pr_locks (
    pr_key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    lease_until BIGINT NOT NULL
);

CREATE TABLE gh_merge_groups (
    repo TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    base_sha TEXT NOT NULL,
    base_ref TEXT NOT NULL,
    head_ref TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (repo, head_sha)
);

CREATE TABLE gh_review_requests (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    head_sha TEXT NOT NULL,
    requested TEXT NOT NULL,
    refused TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (repo, pr, head_sha)
);

-- What was read from GitHub by blob id, shared by replicas and restarts
-- (see src/store/blobs.rs).
CREATE TABLE gh_blobs (
    oid TEXT NOT NULL,
    size_limit BIGINT NOT NULL,
    kind TEXT NOT NULL,
    content TEXT,
    number BIGINT NOT NULL,
    agent TEXT,
    stored BIGINT NOT NULL,
    stored_at BIGINT NOT NULL,
    PRIMARY KEY (oid, size_limit)
);
CREATE INDEX gh_blobs_stored_at ON gh_blobs (stored_at);
CREATE TABLE gh_blob_paths (
    commit_sha TEXT NOT NULL,
    path TEXT NOT NULL,
    oid TEXT,
    stored_at BIGINT NOT NULL,
    PRIMARY KEY (commit_sha, path)
);

-- Where the sweep for failed webhook deliveries stands (one row), and the
-- GUIDs whose redelivery was asked for (see src/store/redeliveries.rs).
CREATE TABLE gh_redelivery_sweep (
    id BIGINT PRIMARY KEY,
    pass_start BIGINT NOT NULL,
    floor BIGINT NOT NULL,
    cursor TEXT,
    lease_owner TEXT,
    lease_until BIGINT NOT NULL
);
INSERT INTO gh_redelivery_sweep (id, pass_start, floor, cursor, lease_owner, lease_until) VALUES (1, 0, 0, NULL, NULL, 0);
CREATE TABLE gh_redeliveries (
    guid TEXT PRIMARY KEY,
    delivery_id BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    claimed_until BIGINT NOT NULL,
    requested_at BIGINT NOT NULL
);

-- The dependency index (see src/store/dependencies.rs).
CREATE TABLE gh_dependencies (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    base_sha TEXT NOT NULL,
    documents TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (repo, pr)
);
