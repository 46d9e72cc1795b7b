-- When each installation may send GitHub requests again, as GitHub named it in a rate-limit
-- refusal (`retry-after`, or `x-ratelimit-reset`): read before each request of the installation,
-- so a refusal holds every worker, and a restarted process too (src/store/budget.rs).
CREATE TABLE gh_installation_pauses (
    installation INTEGER PRIMARY KEY,
    until_ms INTEGER NOT NULL
);
