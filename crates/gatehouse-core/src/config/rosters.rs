//! Reading `review.owners` and `review.rosters`: who must approve a change
//! of which paths, beyond the core reviewers. A roster is read whole or not
//! at all: one with an error takes no part in the gate, so a typo never
//! leaves a path with fewer approvals than written silently (the error
//! fails the config check, which stops the other checks until fixed).

use super::read::Reader;
use super::{OwnersFrom, Quorum, Roster};
use crate::docs::yaml::{Key, Node};
use crate::owners::TeamRef;
use crate::suggest::{did_you_mean, nearest};

const ROSTER_KEYS: &[&str] = &["paths", "all_of", "advisory", "bots"];
const QUORUM_KEYS: &[&str] = &["n_of", "from"];

/// A roster as help shows one.
pub(super) const ROSTER_EXAMPLE: &str =
    "- { paths: [\"infra/**\"], all_of: [{ n_of: 1, from: [\"@acme/sre\"] }, { n_of: 2, from: [alice, bob, carol] }] }";

impl Reader<'_> {
    pub(super) fn owners_from(&mut self, key: &Key, node: Node, out: &mut OwnersFrom) -> bool {
        match node.scalar_text() {
            Some("codeowners") => *out = OwnersFrom::Codeowners,
            Some("none") => *out = OwnersFrom::None,
            other => {
                let found = other.map_or_else(|| node.type_name().to_string(), |v| format!("`{v}`"));
                let help = other
                    .and_then(|v| did_you_mean(&nearest(v, OwnersFrom::NAMES)))
                    .unwrap_or_else(|| "write `owners: codeowners` to require the base's CODEOWNERS".into());
                self.error(node, format!("`review.owners` is `codeowners` or `none`, found {found}"), help);
                return true;
            }
        }
        self.record(key, node);
        true
    }

    /// `review.rosters`: a list of rosters, appended to those the files
    /// extended gave.
    pub(super) fn rosters(&mut self, key: &Key, node: Node, out: &mut Vec<Roster>) -> bool {
        let Some(items) = node.as_seq() else {
            self.error(
                node,
                format!("`review.rosters` must be a list of rosters, found {}", node.type_name()),
                format!("write one `- paths: …` entry per line below it, e.g. `{ROSTER_EXAMPLE}`"),
            );
            return true;
        };
        for item in items.iter() {
            if let Some(roster) = self.roster(item)
                && !out.contains(&roster)
            {
                out.push(roster);
            }
        }
        self.record(key, node);
        true
    }

    fn roster(&mut self, node: Node) -> Option<Roster> {
        let errors = self.error_count();
        let mut roster =
            Roster { paths: Vec::new(), all_of: Vec::new(), advisory: Vec::new(), bots: Vec::new(), line: node.line() };
        let mut quorums = Vec::new();
        self.section(node, "review.rosters", ROSTER_KEYS, |p, k, v| match k.name {
            "paths" => p.globs(k, v, &mut roster.paths),
            "all_of" => {
                quorums = p.quorums(v);
                true
            }
            "advisory" => p.strings(k, v, &mut roster.advisory),
            "bots" => p.strings(k, v, &mut roster.bots),
            _ => false,
        });
        roster.all_of = quorums;
        if node.as_map().is_some() && roster.paths.is_empty() && self.error_count() == errors {
            self.error(
                node,
                "a roster needs `paths`: the files whose changes it reviews".into(),
                format!("e.g. `{ROSTER_EXAMPLE}`"),
            );
        }
        if node.as_map().is_some()
            && roster.all_of.is_empty()
            && roster.advisory.is_empty()
            && self.error_count() == errors
        {
            self.error(
                node,
                "a roster needs `all_of` (the approvals it requires) or `advisory` (who must review)".into(),
                format!("e.g. `{ROSTER_EXAMPLE}`"),
            );
        }
        (self.error_count() == errors).then_some(roster)
    }

    /// `all_of: [{ n_of: N, from: [...] }, ...]`.
    fn quorums(&mut self, node: Node) -> Vec<Quorum> {
        let Some(items) = node.as_seq() else {
            self.error(
                node,
                format!("`all_of` must be a list of `{{ n_of: N, from: [...] }}`, found {}", node.type_name()),
                "e.g. `all_of: [{ n_of: 2, from: [alice, bob, carol] }]`".into(),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            let mut quorum = Quorum { n_of: 1, from: Vec::new() };
            self.section(item, "review.rosters.all_of", QUORUM_KEYS, |p, k, v| match k.name {
                "n_of" => p.uint(k, v, &mut quorum.n_of),
                "from" => p.strings(k, v, &mut quorum.from),
                _ => false,
            });
            if item.as_map().is_none() {
                continue;
            }
            let users = quorum.from.iter().filter(|f| TeamRef::parse(f).is_none()).count() as u64;
            let teams = quorum.from.len() as u64 - users;
            let at = item.as_map().and_then(|m| m.get("n_of")).unwrap_or(item);
            if quorum.from.is_empty() {
                self.error(
                    item,
                    "a quorum needs `from`: the logins or `@org/team`s who approve".into(),
                    "e.g. `{ n_of: 1, from: [alice, \"@acme/sre\"] }`".into(),
                );
            } else if quorum.n_of == 0 {
                self.error(
                    at,
                    "`n_of` is 0, so the quorum asks nothing".into(),
                    "require at least 1 approval, or remove the quorum".into(),
                );
            } else if teams == 0 && quorum.n_of > users {
                self.error(
                    at,
                    format!(
                        "`n_of` is {} but only {users} {} listed, so the quorum could never be met",
                        quorum.n_of,
                        if users == 1 { "login is" } else { "logins are" }
                    ),
                    format!("require at most {users}, or list more logins or a team"),
                );
            } else {
                out.push(quorum);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, OwnersFrom, Quorum};

    const RULES: &[&str] = &[];

    #[test]
    fn rosters_and_owners_are_read_with_their_lines() {
        let text = "review:\n  owners: codeowners\n  agents: [swarm-bot]\n  rosters:\n    - paths: [\"infra/**\"]\n      all_of:\n        - { n_of: 1, from: [\"@acme/sre\"] }\n        - { n_of: 2, from: [alice, bob, carol] }\n      advisory: [dana]\n      bots: [\"renovate[bot]\"]\n";
        let (config, errors) = Config::parse(text, RULES);
        assert_eq!(errors, vec![]);
        let review = config.review.expect("a policy");
        assert_eq!(review.owners, OwnersFrom::Codeowners);
        assert_eq!(review.agents, ["swarm-bot"]);
        let roster = &review.rosters[0];
        assert_eq!(
            (roster.line, roster.paths.as_slice(), roster.advisory.as_slice()),
            (5, &["infra/**".to_string()][..], &["dana".to_string()][..])
        );
        assert_eq!(roster.all_of[1], Quorum { n_of: 2, from: vec!["alice".into(), "bob".into(), "carol".into()] });
        assert_eq!(roster.bots, ["renovate[bot]"]);
    }

    #[test]
    fn a_roster_in_error_is_reported_at_its_line_and_dropped() {
        let text = "review:\n  owners: codeowner\n  rosters:\n    - paths: [\"a/**\"]\n      all_of: [{ n_of: 3, from: [a, b] }]\n    - all_of: [{ n_of: 1, from: [a] }]\n    - paths: [\"b/**\"]\n      alls_of: []\n";
        let (config, errors) = Config::parse(text, RULES);
        let shown: Vec<(u32, &str)> = errors.iter().map(|e| (e.line, e.message.as_str())).collect();
        assert_eq!(shown[0], (2, "`review.owners` is `codeowners` or `none`, found `codeowner`"));
        assert_eq!(errors[0].help, "did you mean `codeowners`?");
        assert_eq!(shown[1].0, 5);
        assert!(shown[1].1.contains("only 2 logins are listed"), "{shown:?}");
        assert_eq!(shown[2], (6, "a roster needs `paths`: the files whose changes it reviews"));
        assert_eq!(shown[3], (8, "unknown key `alls_of` in `review.rosters`"));
        assert!(config.review.expect("a policy").rosters.is_empty());
    }

    #[test]
    fn a_policy_of_owners_or_rosters_alone_needs_no_core() {
        assert_eq!(Config::parse("review:\n  owners: codeowners\n", RULES).1, vec![]);
        let rosters = "review:\n  rosters:\n    - { paths: [\"x/**\"], all_of: [{ n_of: 1, from: [a] }] }\n";
        assert_eq!(Config::parse(rosters, RULES).1, vec![]);
        assert_eq!(Config::parse("review:\n  owners: none\n", RULES).1.len(), 1, "no approval could pass");
    }
}
