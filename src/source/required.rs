//! Which checks a pull request's base branch requires: the rulesets that
//! apply to it ("Get rules for a branch": the repository's and the
//! organisation's, Metadata read) and its classic branch protection ("Get a
//! branch": `protection.required_status_checks`, Contents read). A check
//! counts when it may come from this App: one pinned to another App is not
//! ours to write.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::github::{ApiError, RepoClient};
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
}

#[derive(Deserialize)]
struct RuleParameters {
    #[serde(default)]
    required_status_checks: Vec<RequiredCheck>,
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

/// The checks `branch` requires. A refusal (no access, the branch gone) is
/// `Unread` with GitHub's answer, and every check is written; a transient
/// failure is the caller's to retry.
pub(crate) async fn read(repo: &RepoClient, branch: &str) -> Result<RequiredChecks, ApiError> {
    match read_both(repo, branch).await {
        Ok(names) => Ok(RequiredChecks::Read(names)),
        Err(err) if err.is_transient() => Err(err),
        Err(err) => Ok(RequiredChecks::Unread(err.to_string())),
    }
}

async fn read_both(repo: &RepoClient, branch: &str) -> Result<BTreeSet<String>, ApiError> {
    let ours = repo.app_id();
    let escaped = escape(branch);
    let mut names = BTreeSet::new();
    let mut url = Some(format!("/rules/branches/{escaped}?per_page=100"));
    for _ in 0..MAX_PAGES {
        let Some(page) = url.take() else { break };
        let (rules, next): (Vec<Rule>, _) = repo.page(&page).await?;
        let checks = rules.into_iter().filter(|r| r.kind == "required_status_checks").filter_map(|r| r.parameters);
        for check in checks.flat_map(|p| p.required_status_checks) {
            if check.integration_id.is_none_or(|app| app == ours) {
                names.insert(check.context);
            }
        }
        url = next;
    }
    let described: Branch = repo.get(&format!("/branches/{escaped}")).await?;
    if let Some(checks) = described.protection.and_then(|p| p.required_status_checks) {
        names.extend(checks.contexts);
        let ours = i64::try_from(ours).ok();
        names.extend(checks.checks.into_iter().filter(|c| c.app_id.is_none() || c.app_id == ours).map(|c| c.context));
    }
    Ok(names)
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
