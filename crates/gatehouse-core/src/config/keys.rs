//! Every value of the config by its dotted key (`review.core.required`,
//! `rules.brief/adr-missing`): how an inheriting file merges it, where its
//! default comes from, and reading or writing it by that key. Locks name
//! keys this way, and `gatehouse config explain` lists them.

use std::fmt;

use super::{ApprovalsEnd, Config, Level, OwnersFrom, ReviewConfig, Roster};
use crate::model::Severity;

/// How a file's value of a key meets the value the files it extends gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// The file's value replaces the inherited one.
    Replace,
    /// The file's items are added after the inherited ones (duplicates dropped).
    Append,
}

impl Merge {
    pub fn name(self) -> &'static str {
        match self {
            Merge::Replace => "replace",
            Merge::Append => "append",
        }
    }
}

/// One key of the config with its merge rule and the seed its default
/// follows.
#[derive(Debug)]
pub struct KeyRule {
    pub key: &'static str,
    pub merge: Merge,
    /// Where the default comes from: a founding document, or gatehouse's own.
    pub seed: &'static str,
}

const GATEHOUSE: &str = "gatehouse";
const ADR_099: &str = "ADR-099, agent briefs";

/// Every key that holds a value, in the order `gatehouse config explain`
/// lists them. Maps (`briefs`, `review`, `rules`, …) are merged key by key,
/// so only their leaves are here; `rules.<id>` stands for each rule's level.
pub const KEY_RULES: &[KeyRule] = &[
    KeyRule { key: "briefs.paths", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "briefs.review_threshold.lines", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "briefs.review_threshold.repos", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "adrs.paths", merge: Merge::Replace, seed: "the ADR folders of adr-tools, MADR and log4brains" },
    KeyRule { key: "voting.paths", merge: Merge::Replace, seed: "ADR-140, voting docs" },
    KeyRule { key: "specs.paths", merge: Merge::Replace, seed: "the fondue `spec` protocol v9" },
    KeyRule { key: "decisions.paths", merge: Merge::Replace, seed: "ADR 0007, the decision docket" },
    KeyRule { key: "review.core.reviewers", merge: Merge::Replace, seed: "none, the team's own" },
    KeyRule { key: "review.core.required", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "review.advisory", merge: Merge::Replace, seed: "none, the team's own" },
    KeyRule { key: "review.max_changes_requested", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "review.recusal", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "review.stale_on_push", merge: Merge::Replace, seed: ADR_099 },
    KeyRule { key: "review.approvals_end_on", merge: Merge::Replace, seed: GATEHOUSE },
    KeyRule { key: "review.paths", merge: Merge::Append, seed: GATEHOUSE },
    KeyRule { key: "review.request_reviewers", merge: Merge::Replace, seed: GATEHOUSE },
    KeyRule { key: "review.remind_after_days", merge: Merge::Replace, seed: GATEHOUSE },
    KeyRule { key: "review.owners", merge: Merge::Replace, seed: "GitHub's code owners" },
    KeyRule { key: "review.rosters", merge: Merge::Append, seed: "none, the team's own" },
    KeyRule { key: "review.agents", merge: Merge::Append, seed: "none, the team's own" },
    KeyRule { key: "limits.max_file_bytes", merge: Merge::Replace, seed: GATEHOUSE },
    KeyRule { key: "dashboard.enabled", merge: Merge::Replace, seed: GATEHOUSE },
];

/// The prefix of a rule's level: `rules.brief/adr-missing`.
pub const RULES_PREFIX: &str = "rules.";

/// The rule for `key`; a rule's level (`rules.<id>`) replaces.
pub fn rule_of(key: &str) -> Option<&'static KeyRule> {
    static RULE_LEVEL: KeyRule = KeyRule { key: "rules.<id>", merge: Merge::Replace, seed: "the rule's own default" };
    KEY_RULES.iter().find(|r| r.key == key).or_else(|| key.starts_with(RULES_PREFIX).then_some(&RULE_LEVEL))
}

/// A value of the config, as one key holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Number(u64),
    Bool(bool),
    Word(&'static str),
    List(Vec<String>),
    Level(Level),
    Rosters(Vec<Roster>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Word(w) => f.write_str(w),
            Value::List(items) => write!(f, "[{}]", items.join(", ")),
            Value::Level(level) => f.write_str(level_name(*level)),
            Value::Rosters(rosters) => {
                let shown: Vec<String> = rosters
                    .iter()
                    .map(|r| {
                        let quorums: Vec<String> =
                            r.all_of.iter().map(|q| format!("{} of {}", q.n_of, q.from.join(", "))).collect();
                        format!("{}: {}", r.paths.join(", "), quorums.join("; "))
                    })
                    .collect();
                write!(f, "[{}]", shown.join(" | "))
            }
        }
    }
}

/// A level as the config writes it.
pub fn level_name(level: Level) -> &'static str {
    match level {
        Level::Off => "off",
        Level::On(Severity::Error) => "error",
        Level::On(Severity::Warning) => "warning",
        Level::On(Severity::Notice) => "notice",
    }
}

/// How strict a level is: off below notice below warning below error.
pub fn level_rank(level: Level) -> u8 {
    match level {
        Level::Off => 0,
        Level::On(Severity::Notice) => 1,
        Level::On(Severity::Warning) => 2,
        Level::On(Severity::Error) => 3,
    }
}

/// The value at `key`; `None` for a key no file set and that has no value
/// of its own (a rule's level, a key of a review policy no file wrote).
pub fn get(config: &Config, key: &str) -> Option<Value> {
    if let Some(id) = key.strip_prefix(RULES_PREFIX) {
        return config.rules.get(id).map(|level| Value::Level(*level));
    }
    if let Some(field) = key.strip_prefix("review.") {
        let review = config.review.as_ref()?;
        return Some(match field {
            "core.reviewers" => Value::List(review.core_reviewers.clone()),
            "core.required" => Value::Number(review.core_required),
            "advisory" => Value::List(review.advisory.clone()),
            "max_changes_requested" => Value::Number(review.max_changes_requested),
            "recusal" => Value::Bool(review.recusal),
            "stale_on_push" => Value::Bool(review.stale_on_push),
            "approvals_end_on" => Value::Word(review.approvals_end_on.name()),
            "paths" => Value::List(review.paths.clone()),
            "request_reviewers" => Value::Bool(review.request_reviewers),
            "remind_after_days" => Value::Number(review.remind_after_days),
            "owners" => Value::Word(review.owners.name()),
            "rosters" => Value::Rosters(review.rosters.clone()),
            "agents" => Value::List(review.agents.clone()),
            _ => return None,
        });
    }
    Some(match key {
        "briefs.paths" => Value::List(config.briefs.paths.clone()),
        "briefs.review_threshold.lines" => Value::Number(config.briefs.review_threshold.lines),
        "briefs.review_threshold.repos" => Value::Number(config.briefs.review_threshold.repos),
        "adrs.paths" => Value::List(config.adrs.paths.clone()),
        "voting.paths" => Value::List(config.voting.paths.clone()),
        "specs.paths" => Value::List(config.specs.paths.clone()),
        "decisions.paths" => Value::List(config.decisions.paths.clone()),
        "limits.max_file_bytes" => Value::Number(config.limits.max_file_bytes),
        "dashboard.enabled" => Value::Bool(config.dashboard.enabled),
        _ => return None,
    })
}

/// Writes `value` at `key` (`None`: the key as if no file had set it). A
/// value of the wrong kind for its key leaves the config as it was.
pub fn set(config: &mut Config, key: &str, value: Option<Value>) {
    if let Some(id) = key.strip_prefix(RULES_PREFIX) {
        match value {
            Some(Value::Level(level)) => {
                config.rules.insert(id.to_string(), level);
            }
            _ => {
                config.rules.remove(id);
            }
        }
        return;
    }
    let defaults = Config::default();
    let value = match value.or_else(|| get(&defaults, key)) {
        Some(value) => value,
        None if key.starts_with("review.") && config.review.is_some() => {
            match get(&Config { review: Some(ReviewConfig::default()), ..defaults }, key) {
                Some(value) => value,
                None => return,
            }
        }
        None => return,
    };
    if let Some(field) = key.strip_prefix("review.") {
        let review = config.review.get_or_insert_with(ReviewConfig::default);
        match (field, value) {
            ("core.reviewers", Value::List(v)) => review.core_reviewers = v,
            ("core.required", Value::Number(n)) => review.core_required = n,
            ("advisory", Value::List(v)) => review.advisory = v,
            ("max_changes_requested", Value::Number(n)) => review.max_changes_requested = n,
            ("recusal", Value::Bool(b)) => review.recusal = b,
            ("stale_on_push", Value::Bool(b)) => review.stale_on_push = b,
            ("approvals_end_on", Value::Word(w)) => {
                review.approvals_end_on =
                    if w == ApprovalsEnd::AnyPush.name() { ApprovalsEnd::AnyPush } else { ApprovalsEnd::DocumentChange }
            }
            ("paths", Value::List(v)) => review.paths = v,
            ("request_reviewers", Value::Bool(b)) => review.request_reviewers = b,
            ("remind_after_days", Value::Number(n)) => review.remind_after_days = n,
            ("owners", Value::Word(w)) => {
                review.owners =
                    if w == OwnersFrom::Codeowners.name() { OwnersFrom::Codeowners } else { OwnersFrom::None }
            }
            ("rosters", Value::Rosters(r)) => review.rosters = r,
            ("agents", Value::List(v)) => review.agents = v,
            _ => {}
        }
        return;
    }
    match (key, value) {
        ("briefs.paths", Value::List(v)) => config.briefs.paths = v,
        ("briefs.review_threshold.lines", Value::Number(n)) => config.briefs.review_threshold.lines = n,
        ("briefs.review_threshold.repos", Value::Number(n)) => config.briefs.review_threshold.repos = n,
        ("adrs.paths", Value::List(v)) => config.adrs.paths = v,
        ("voting.paths", Value::List(v)) => config.voting.paths = v,
        ("specs.paths", Value::List(v)) => config.specs.paths = v,
        ("decisions.paths", Value::List(v)) => config.decisions.paths = v,
        ("limits.max_file_bytes", Value::Number(n)) => config.limits.max_file_bytes = n,
        ("dashboard.enabled", Value::Bool(b)) => config.dashboard.enabled = b,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_key_reads_and_writes_its_field() {
        let policy = Config { review: Some(ReviewConfig::default()), ..Config::default() };
        for rule in KEY_RULES {
            let value = get(&policy, rule.key).unwrap_or_else(|| panic!("{} has a value", rule.key));
            let changed = match value {
                Value::Number(n) => Value::Number(n + 7),
                Value::Bool(b) => Value::Bool(!b),
                Value::Word(w) => Value::Word(if w == "none" { "codeowners" } else { "any_push" }),
                Value::List(mut items) => {
                    items.push("x/*.md".into());
                    Value::List(items)
                }
                Value::Level(_) => unreachable!("no listed key is a level"),
                Value::Rosters(mut rosters) => {
                    let quorum = super::super::Quorum { n_of: 1, from: vec!["alice".into()] };
                    rosters.push(Roster {
                        paths: vec!["x/**".into()],
                        all_of: vec![quorum],
                        advisory: vec![],
                        bots: vec![],
                        line: 3,
                    });
                    Value::Rosters(rosters)
                }
            };
            let mut config = policy.clone();
            set(&mut config, rule.key, Some(changed.clone()));
            assert_eq!(get(&config, rule.key), Some(changed), "{}", rule.key);
            set(&mut config, rule.key, None);
            assert_eq!(config, policy, "{} set back to its default", rule.key);
        }
    }

    #[test]
    fn a_rules_level_is_absent_until_set() {
        let mut config = Config::default();
        assert_eq!(get(&config, "rules.brief/adr-missing"), None);
        set(&mut config, "rules.brief/adr-missing", Some(Value::Level(Level::Off)));
        assert_eq!(get(&config, "rules.brief/adr-missing").map(|v| v.to_string()), Some("off".into()));
        set(&mut config, "rules.brief/adr-missing", None);
        assert!(config.rules.is_empty());
        assert!(level_rank(Level::Off) < level_rank(Level::On(Severity::Notice)));
        assert_eq!(rule_of("review.paths").map(|r| r.merge), Some(Merge::Append));
        assert_eq!(rule_of("rules.brief/adr-missing").map(|r| r.merge), Some(Merge::Replace));
    }
}
