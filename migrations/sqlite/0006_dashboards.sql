-- The dashboard issue of each repository that enables it (src/store/dashboards.rs): its number,
-- and whether someone closed it (the App then leaves it alone until it is reopened or the config
-- turns the dashboard off and on again).
CREATE TABLE gh_dashboards (
    repo TEXT PRIMARY KEY,
    issue BIGINT NOT NULL,
    closed BOOLEAN NOT NULL
);
