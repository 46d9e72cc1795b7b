-- The writes each installation made to GitHub in the last hour, shared by
-- every replica (src/store/budget.rs): the write budget of GitHub's
-- secondary limits is one per installation, not one per process. A row is
-- in flight until GitHub answered the write.
CREATE TABLE gh_write_budget (
    id BIGSERIAL PRIMARY KEY,
    installation BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    endpoint TEXT NOT NULL,
    in_flight BOOLEAN NOT NULL
);
CREATE INDEX gh_write_budget_installation ON gh_write_budget (installation, at_ms);
