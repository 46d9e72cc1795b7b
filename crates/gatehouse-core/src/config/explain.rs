//! Every effective value of a repository's config with where it came from
//! (a file and line, or the default and the seed that sets it) and the lock
//! that holds it: what `gatehouse config explain` prints.

use super::inherit::{Effective, LockKind};
use super::keys::{self, KEY_RULES, Merge, RULES_PREFIX, Value, rule_of};

/// One key of the effective config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub key: String,
    /// `None`: a key of a review policy when there is none.
    pub value: Option<Value>,
    pub from: From,
    pub merge: Merge,
    pub lock: Option<ExplainedLock>,
}

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum From {
    /// A file of the chain (the repository's own, or one it extends).
    File { file: String, line: u32 },
    /// No file set it: the default, and what the default follows.
    Default { seed: &'static str },
}

/// A lock in force on a key, and the file that set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplainedLock {
    pub kind: LockKind,
    pub file: String,
    pub line: u32,
}

/// Every key of the config (the rules' levels that a file sets or locks),
/// in the order of [`KEY_RULES`], then the rules by id.
pub fn explain(effective: &Effective) -> Vec<Explained> {
    let rule_keys = effective
        .config
        .rules
        .keys()
        .map(|id| format!("{RULES_PREFIX}{id}"))
        .chain(effective.locks.keys().filter(|k| k.starts_with(RULES_PREFIX)).cloned())
        .collect::<std::collections::BTreeSet<String>>();
    let all = KEY_RULES.iter().map(|r| r.key.to_string()).chain(rule_keys);
    all.map(|key| {
        let rule = rule_of(&key).expect("every listed key has a rule");
        let from = match effective.origins.get(&key) {
            Some(origin) => From::File { file: effective.file_name(origin.file), line: origin.pos.line },
            None => From::Default { seed: rule.seed },
        };
        let lock = effective.locks.get(&key).map(|lock| ExplainedLock {
            kind: lock.kind.clone(),
            file: effective.file_name(lock.origin.file),
            line: lock.origin.pos.line,
        });
        Explained { value: keys::get(&effective.config, &key), from, merge: rule.merge, lock, key }
    })
    .collect()
}

/// The values as a Markdown table, for a check run's summary.
pub fn markdown(explained: &[Explained]) -> String {
    let mut out = String::from("| key | value | from |\n|-----|-------|------|\n");
    for e in explained {
        let value = e.value.as_ref().map_or_else(|| "(no review policy)".to_string(), Value::to_string);
        let mut from = match &e.from {
            From::File { file, line } => format!("`{file}` line {line}"),
            From::Default { seed } => format!("default: {seed}"),
        };
        if let Some(lock) = &e.lock {
            from.push_str(&format!("; {} by `{}` line {}", lock.kind, lock.file, lock.line));
        }
        out.push_str(&format!("| `{}` | `{}` | {} |\n", e.key, value.replace('|', "\\|"), from));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::inherit::{Parent, Parents, Source, resolve};

    #[test]
    fn every_value_names_its_source_and_its_lock() {
        let policy = Source::parse("acme/.github").expect("a source");
        let parents: Parents = [(
            policy.clone(),
            Parent::Text(
                "review:\n  core: { reviewers: [a, b, c] }\nlocks:\n  rules.brief/adr-missing: { at_least: warning }\n"
                    .into(),
            ),
        )]
        .into();
        let effective = resolve(
            Some("extends: acme/.github\nrules:\n  brief/adr-missing: error\n"),
            None,
            &parents,
            &["brief/adr-missing"],
        );
        let explained = explain(&effective);
        assert_eq!(explained.len(), KEY_RULES.len() + 1);
        let of = |key: &str| explained.iter().find(|e| e.key == key).expect(key);
        assert_eq!(of("review.core.reviewers").from, From::File { file: "acme/.github:gatehouse.yml".into(), line: 2 });
        assert_eq!(of("review.core.required").from, From::Default { seed: "ADR-099, agent briefs" });
        assert_eq!(of("review.core.required").value, Some(Value::Number(2)));
        let level = of("rules.brief/adr-missing");
        assert_eq!(level.from, From::File { file: ".github/gatehouse.yml".into(), line: 3 });
        assert_eq!(level.lock.as_ref().map(|l| (l.file.as_str(), l.line)), Some(("acme/.github:gatehouse.yml", 4)));
        assert_eq!(of("review.paths").merge, Merge::Append);
    }
}
