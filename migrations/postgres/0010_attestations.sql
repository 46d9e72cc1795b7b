-- The gate attestation of each merged pull request that passed the gate (src/store/attestations.rs):
-- its signed DSSE envelope, found by the blob ids of the documents it names (gh_attested_blobs), so
-- `gatehouse serve` answers them by repository and blob digest; and each merge that bypassed a red
-- check or the review gate, which the dashboard lists.
CREATE TABLE gh_attestations (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    merge_sha TEXT NOT NULL,
    envelope TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (repo, pr)
);
CREATE TABLE gh_attested_blobs (
    repo TEXT NOT NULL,
    blob TEXT NOT NULL,
    path TEXT NOT NULL,
    pr BIGINT NOT NULL,
    PRIMARY KEY (repo, blob, path, pr)
);
CREATE TABLE gh_bypassed_merges (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    merge_sha TEXT NOT NULL,
    red TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (repo, pr)
);
