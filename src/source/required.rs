//! What a pull request's base branch requires: the rulesets that apply to
//! it ("Get rules for a branch": the repository's and the organisation's,
//! Metadata read) and its classic branch protection ("Get a branch":
//! `protection`, Contents read). Checks: one counts when it may come from
//! this App (one pinned to another App is not ours to write). Reviews: the
//! `pull_request` rules' approvals, code-owner review and required
//! reviewers (a team by id, named through "List teams"), each with the
//! ruleset's name ("Get a repository ruleset"), for the review gate's table.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::github::{ApiError, RepoClient};
use crate::owners::{RequiredReviewers, ReviewRules, RuleSource, TeamRef};
use crate::plan::RequiredChecks;

/// Pages of rules read at most (100 rules a page).
const MAX_PAGES: usize = 10;

/// `repository-rule-detailed` (the fields read): a rule of any type; the
/// `required_status_checks` type's parameters name the checks.
#[derive(Deserialize)]
struct Rule {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    parameters: Option<RuleParameters>,
    #[serde(default)]
    ruleset_id: Option<u64>,
}

#[derive(Deserialize)]
struct RuleParameters {
    #[serde(default)]
    required_status_checks: Vec<RequiredCheck>,
    /// `pull_request` rules.
    #[serde(default)]
    required_approving_review_count: u64,
    #[serde(default)]
    require_code_owner_review: bool,
    #[serde(default)]
    required_reviewers: Vec<RulesetReviewers>,
}

/// A `pull_request` rule's `required_reviewers[]`.
#[derive(Deserialize)]
struct RulesetReviewers {
    #[serde(default)]
    file_patterns: Vec<String>,
    #[serde(default)]
    minimum_approvals: u64,
    reviewer: RulesetReviewer,
}

#[derive(Deserialize)]
struct RulesetReviewer {
    id: u64,
    #[serde(rename = "type")]
    kind: String,
}

/// "Get a repository ruleset" (the name is all that is read).
#[derive(Deserialize)]
struct Ruleset {
    name: String,
}

/// `repository-rule-params-status-check-configuration`.
#[derive(Deserialize)]
struct RequiredCheck {
    context: String,
    /// The App that must report it; absent: any.
    #[serde(default)]
    integration_id: Option<u64>,
}

/// `branch-with-protection` (the fields read).
#[derive(Deserialize)]
struct Branch {
    #[serde(default)]
    protection: Option<Protection>,
}

#[derive(Deserialize)]
struct Protection {
    #[serde(default)]
    required_status_checks: Option<ProtectionChecks>,
    #[serde(default)]
    required_pull_request_reviews: Option<ProtectionReviews>,
}

#[derive(Deserialize)]
struct ProtectionReviews {
    #[serde(default)]
    required_approving_review_count: u64,
    #[serde(default)]
    require_code_owner_reviews: bool,
}

#[derive(Deserialize)]
struct ProtectionChecks {
    #[serde(default)]
    contexts: Vec<String>,
    #[serde(default)]
    checks: Vec<ProtectionCheck>,
}

#[derive(Deserialize)]
struct ProtectionCheck {
    context: String,
    /// The App that must report it; `null`: any.
    #[serde(default)]
    app_id: Option<i64>,
}

/// What `branch` requires: its checks, and its review rules. A refusal (no
/// access, the branch gone) is `Unread` checks with GitHub's answer (every
/// check is written) and no review rules; a transient failure is the
/// caller's to retry.
pub(crate) async fn read(repo: &RepoClient, branch: &str) -> Result<(RequiredChecks, ReviewRules), ApiError> {
    match read_both(repo, branch).await {
        Ok((names, review)) => Ok((RequiredChecks::Read(names), review)),
        Err(err) if err.is_transient() => Err(err),
        Err(err) => Ok((RequiredChecks::Unread(err.to_string()), ReviewRules::default())),
    }
}

async fn read_both(repo: &RepoClient, branch: &str) -> Result<(BTreeSet<String>, ReviewRules), ApiError> {
    let ours = repo.app_id();
    let escaped = escape(branch);
    let mut names = BTreeSet::new();
    let mut reviews = Vec::new();
    let mut url = Some(format!("/rules/branches/{escaped}?per_page=100"));
    for _ in 0..MAX_PAGES {
        let Some(page) = url.take() else { break };
        let (rules, next): (Vec<Rule>, _) = repo.page(&page).await?;
        for rule in rules {
            let Some(parameters) = rule.parameters else { continue };
            match rule.kind.as_str() {
                "required_status_checks" => {
                    let checks = parameters.required_status_checks.into_iter();
                    names.extend(checks.filter(|c| c.integration_id.is_none_or(|app| app == ours)).map(|c| c.context));
                }
                "pull_request" => reviews.push((rule.ruleset_id, parameters)),
                _ => {}
            }
        }
        url = next;
    }
    let described: Branch = repo.get(&format!("/branches/{escaped}")).await?;
    let mut review = ReviewRules::default();
    if let Some(protection) = described.protection {
        if let Some(checks) = protection.required_status_checks {
            names.extend(checks.contexts);
            let ours = i64::try_from(ours).ok();
            names.extend(
                checks.checks.into_iter().filter(|c| c.app_id.is_none() || c.app_id == ours).map(|c| c.context),
            );
        }
        if let Some(asked) = protection.required_pull_request_reviews {
            if asked.required_approving_review_count > 0 {
                review.required_approvals.push((asked.required_approving_review_count, RuleSource::Protection));
            }
            if asked.require_code_owner_reviews {
                review.code_owner_review.push(RuleSource::Protection);
            }
        }
    }
    if !reviews.is_empty() {
        review_rules(repo, reviews, &mut review).await?;
    }
    Ok((names, review))
}

/// The `pull_request` rules' requirements, each under its ruleset's name.
async fn review_rules(
    repo: &RepoClient,
    rules: Vec<(Option<u64>, RuleParameters)>,
    review: &mut ReviewRules,
) -> Result<(), ApiError> {
    let wants_teams = rules.iter().any(|(_, p)| !p.required_reviewers.is_empty());
    let slugs = if wants_teams { super::teams::slugs(repo).await? } else { BTreeMap::new() };
    let mut names: BTreeMap<u64, String> = BTreeMap::new();
    for (id, parameters) in rules {
        let source = match id {
            Some(id) => match names.get(&id) {
                Some(name) => RuleSource::Ruleset(name.clone()),
                None => {
                    let name = match repo.get::<Ruleset>(&format!("/rulesets/{id}")).await {
                        Ok(ruleset) => ruleset.name,
                        Err(err) if err.is_transient() => return Err(err),
                        Err(_) => format!("#{id}"),
                    };
                    names.insert(id, name.clone());
                    RuleSource::Ruleset(name)
                }
            },
            None => RuleSource::Ruleset("(unnamed)".into()),
        };
        if parameters.required_approving_review_count > 0 {
            review.required_approvals.push((parameters.required_approving_review_count, source.clone()));
        }
        if parameters.require_code_owner_review {
            review.code_owner_review.push(source.clone());
        }
        for required in parameters.required_reviewers.into_iter().filter(|r| r.reviewer.kind == "Team") {
            let slug =
                slugs.get(&required.reviewer.id).cloned().unwrap_or_else(|| format!("team-{}", required.reviewer.id));
            review.required_reviewers.push(RequiredReviewers {
                source: source.clone(),
                patterns: required.file_patterns,
                minimum: required.minimum_approvals,
                team: TeamRef::new(&repo.repo.owner, &slug),
            });
        }
    }
    Ok(())
}

/// A branch name in a path: `/` stays (GitHub takes the rest of the path
/// as the name), what a URL cannot carry is percent-encoded.
fn escape(branch: &str) -> String {
    let mut out = String::with_capacity(branch.len());
    for byte in branch.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_name_keeps_its_slashes_and_escapes_the_rest() {
        assert_eq!(escape("release/v2"), "release/v2");
        assert_eq!(escape("feat#1 ü"), "feat%231%20%C3%BC");
    }
}
