-- When each installation may send GitHub requests again, as GitHub named it in a rate-limit
-- refusal (`retry-after`, or `x-ratelimit-reset`): read by every replica before each request
-- of the installation, so one refusal holds them all (src/store/budget.rs).
CREATE TABLE gh_installation_pauses (
    installation BIGINT PRIMARY KEY,
    until_ms BIGINT NOT NULL
);
