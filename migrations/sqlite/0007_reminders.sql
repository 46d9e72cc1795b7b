-- Review reminders (src/store/reminders.rs): the pull requests whose review gate waits while
-- reminders are on (every how many days, and which replica holds the sweep of it until when),
-- and for each reviewer requested on one, since when the App has seen them requested and when it
-- last reminded them.
CREATE TABLE gh_reminders (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    installation BIGINT NOT NULL,
    every_days BIGINT NOT NULL,
    claimed_until BIGINT NOT NULL,
    PRIMARY KEY (repo, pr)
);
CREATE TABLE gh_reminded (
    repo TEXT NOT NULL,
    pr BIGINT NOT NULL,
    login TEXT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_sent BIGINT,
    PRIMARY KEY (repo, pr, login)
);
