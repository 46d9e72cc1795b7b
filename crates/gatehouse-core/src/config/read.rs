//! Reading `.github/gatehouse.yml` into a [`Config`]. Every problem is a
//! [`ConfigError`] at its position, with help in the author's terms: a YAML
//! error as the brief frontmatter's are explained, an unknown key with the
//! nearest known key of its section, a wrong type with the type expected
//! and an example of it.

use std::collections::BTreeMap;

use globset::Glob;

use super::{ApprovalsEnd, Config, ConfigError, Level, ReviewConfig};
use crate::docs::yaml::{self, Key, Map, Node};
use crate::model::Severity;
use crate::render::plural;
use crate::suggest::{did_you_mean, nearest};

/// The keys of each section, as `gatehouse schema config` names them.
const ROOT_KEYS: &[&str] =
    &["briefs", "adrs", "voting", "specs", "decisions", "review", "limits", "rules", "dashboard"];
const DASHBOARD_KEYS: &[&str] = &["enabled"];
const BRIEFS_KEYS: &[&str] = &["paths", "review_threshold"];
const THRESHOLD_KEYS: &[&str] = &["lines", "repos"];
const PATHS_KEYS: &[&str] = &["paths"];
const REVIEW_KEYS: &[&str] = &[
    "core",
    "advisory",
    "max_changes_requested",
    "recusal",
    "stale_on_push",
    "approvals_end_on",
    "request_reviewers",
    "remind_after_days",
    "paths",
];
const CORE_KEYS: &[&str] = &["reviewers", "required"];
const LIMITS_KEYS: &[&str] = &["max_file_bytes"];
const LEVELS: [&str; 4] = ["off", "error", "warning", "notice"];

/// A review policy's core, as the help of a policy that cannot pass shows it.
const CORE_EXAMPLE: &str = "core: { reviewers: [alice, bob, carol], required: 2 }";

impl Config {
    /// Parses a config file; returns the config (defaults where the file is
    /// silent or wrong) and every problem found. `rule_ids` are the ids
    /// `rules:` may name: the rule registry knows them
    /// (`crate::rules::read_config`).
    pub fn parse(text: &str, rule_ids: &[&str]) -> (Config, Vec<ConfigError>) {
        let mut config = Config::default();
        let mut errors = Vec::new();
        let tree = match yaml::parse(text, 1) {
            Ok(tree) => tree,
            Err(e) => {
                errors.push(ConfigError {
                    line: e.line,
                    col: e.col,
                    width: e.width.max(1),
                    message: format!("invalid YAML: {}", e.message),
                    help: e.help,
                });
                return (config, errors);
            }
        };
        let root = tree.root();
        if root.is_null() {
            return (config, errors);
        }
        let mut p = Reader { errors: &mut errors, rule_ids };
        p.section(root, ROOT, ROOT_KEYS, |p, key, value| match key.name {
            "briefs" => p.section(value, "briefs", BRIEFS_KEYS, |p, k, v| match k.name {
                "paths" => p.globs(k, v, &mut config.briefs.paths),
                "review_threshold" => p.section(v, "briefs.review_threshold", THRESHOLD_KEYS, |p, k, v| match k.name {
                    "lines" => p.uint(k, v, &mut config.briefs.review_threshold.lines),
                    "repos" => p.uint(k, v, &mut config.briefs.review_threshold.repos),
                    _ => false,
                }),
                _ => false,
            }),
            "adrs" | "voting" | "specs" | "decisions" => {
                let target = match key.name {
                    "adrs" => &mut config.adrs.paths,
                    "voting" => &mut config.voting.paths,
                    "specs" => &mut config.specs.paths,
                    _ => &mut config.decisions.paths,
                };
                p.section(value, key.name, PATHS_KEYS, |p, k, v| match k.name {
                    "paths" => p.globs(k, v, target),
                    _ => false,
                })
            }
            "review" => p.review(value, &mut config.review),
            "limits" => p.section(value, "limits", LIMITS_KEYS, |p, k, v| match k.name {
                "max_file_bytes" => p.uint(k, v, &mut config.limits.max_file_bytes),
                _ => false,
            }),
            "rules" => p.rules(value, &mut config.rules),
            "dashboard" => p.section(value, "dashboard", DASHBOARD_KEYS, |p, k, v| match k.name {
                "enabled" => p.bool(k, v, &mut config.dashboard.enabled),
                _ => false,
            }),
            _ => false,
        });
        (config, errors)
    }
}

/// The name of the file's top level, as a section.
const ROOT: &str = "the config";

/// A section as messages name it: "the config", "`briefs`".
fn label(name: &str) -> String {
    if name == ROOT { name.to_string() } else { format!("`{name}`") }
}

struct Reader<'e> {
    errors: &'e mut Vec<ConfigError>,
    rule_ids: &'e [&'e str],
}

/// How many characters of `node` a caret covers: a plain scalar's text, or
/// its first character.
fn width(node: Node) -> u32 {
    node.scalar_text().filter(|_| node.is_plain()).map_or(1, |text| text.chars().count().max(1) as u32)
}

impl Reader<'_> {
    /// Reads `review:`; a policy that can never pass (no core reviewers, or
    /// more approvals required than there are reviewers) is an error.
    fn review(&mut self, node: Node, out: &mut Option<ReviewConfig>) -> bool {
        let r = out.get_or_insert_with(ReviewConfig::default);
        let mut core = None;
        self.section(node, "review", REVIEW_KEYS, |p, k, v| match k.name {
            "core" => {
                core = Some((v.line(), v.col()));
                p.section(v, "review.core", CORE_KEYS, |p, k, v| match k.name {
                    "reviewers" => p.strings(k, v, &mut r.core_reviewers),
                    "required" => p.uint(k, v, &mut r.core_required),
                    _ => false,
                })
            }
            "advisory" => p.strings(k, v, &mut r.advisory),
            "max_changes_requested" => p.uint(k, v, &mut r.max_changes_requested),
            "recusal" => p.bool(k, v, &mut r.recusal),
            "stale_on_push" => p.bool(k, v, &mut r.stale_on_push),
            "approvals_end_on" => p.approvals_end(v, &mut r.approvals_end_on),
            "request_reviewers" => p.bool(k, v, &mut r.request_reviewers),
            "remind_after_days" => p.uint(k, v, &mut r.remind_after_days),
            "paths" => p.globs(k, v, &mut r.paths),
            _ => false,
        });
        let reviewers = r.core_reviewers.len() as u64;
        if node.as_map().is_none() {
            return true;
        }
        let (line, col) = core.unwrap_or((node.line(), node.col()));
        let (message, help) = match core {
            None => (
                "`review` has no `core` reviewers, so no approval could pass the gate".to_string(),
                format!("add the team's core reviewers under `review:`, e.g. `{CORE_EXAMPLE}`"),
            ),
            Some(_) if reviewers == 0 => (
                "`review.core.reviewers` is empty, so no approval could pass the gate".into(),
                format!("list the team's GitHub logins, e.g. `{CORE_EXAMPLE}`"),
            ),
            Some(_) if r.core_required > reviewers => (
                format!(
                    "`review.core.required` is {} but only {reviewers} core {} listed, so the gate could never pass",
                    r.core_required,
                    if reviewers == 1 { "reviewer is" } else { "reviewers are" }
                ),
                format!("require at most {}, or list more core reviewers", plural(reviewers as usize, "approval")),
            ),
            Some(_) => return true,
        };
        self.errors.push(ConfigError { line, col, width: 1, message, help });
        true
    }

    fn error(&mut self, node: Node, message: String, help: String) {
        self.errors.push(ConfigError { line: node.line(), col: node.col(), width: width(node), message, help });
    }

    /// An error about a key itself: the caret covers its name.
    fn key_error(&mut self, key: &Key, message: String, help: String) {
        let width = key.name.chars().count().max(1) as u32;
        self.errors.push(ConfigError { line: key.line, col: key.col, width, message, help });
    }

    /// The entries of section `name` (`ROOT` for the file's top level).
    fn map<'y>(&mut self, node: Node<'y>, name: &str, keys: &[&str]) -> Option<Map<'y>> {
        let entries = node.as_map();
        if entries.is_none() {
            let example = keys.first().map_or_else(String::new, |key| format!(" (e.g. `{key}: …`)"));
            let help = match name {
                ROOT => format!("start each of the config's keys at the beginning of a line{example}"),
                _ => format!("write `{name}:` on a line of its own with its keys indented below it{example}"),
            };
            let message = format!("{} must be a mapping of `key: value`, found {}", label(name), node.type_name());
            self.error(node, message, help);
        }
        entries
    }

    fn unknown(&mut self, key: &Key, section: &str, known: &[&str]) {
        let listed = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        let help = match did_you_mean(&nearest(key.name, known.iter().copied())) {
            Some(suggestion) => format!("{suggestion} The keys of {section} are {listed}."),
            None => format!("the keys of {section} are {listed}; `gatehouse schema config` describes each"),
        };
        self.key_error(key, format!("unknown key `{}` in {section}", key.name), help);
    }

    /// Reads a mapping section whose keys are `keys`; `field` returns false
    /// for keys it does not know. Every reader below returns true: the key
    /// was known and read (or reported).
    fn section(
        &mut self,
        node: Node,
        name: &str,
        keys: &[&str],
        mut field: impl FnMut(&mut Self, &Key, Node) -> bool,
    ) -> bool {
        let Some(entries) = self.map(node, name, keys) else { return true };
        let section = label(name);
        for (key, value) in entries.iter() {
            if !field(self, &key, value) {
                self.unknown(&key, &section, keys);
            }
        }
        true
    }

    fn uint(&mut self, key: &Key, node: Node, out: &mut u64) -> bool {
        match node.as_i64() {
            Some(v) if v >= 0 => *out = v as u64,
            _ => self.error(
                node,
                format!("`{}` must be a whole number of 0 or more, found {}", key.name, node.type_name()),
                format!("write the number without quotes, e.g. `{}: {out}`", key.name),
            ),
        }
        true
    }

    fn bool(&mut self, key: &Key, node: Node, out: &mut bool) -> bool {
        match node.as_bool() {
            Some(v) => *out = v,
            None => self.error(
                node,
                format!("`{}` must be true or false, found {}", key.name, node.type_name()),
                format!("write `true` or `false` without quotes, e.g. `{}: {out}`", key.name),
            ),
        }
        true
    }

    fn approvals_end(&mut self, node: Node, out: &mut ApprovalsEnd) -> bool {
        match node.scalar_text() {
            Some("document_change") => *out = ApprovalsEnd::DocumentChange,
            Some("any_push") => *out = ApprovalsEnd::AnyPush,
            other => {
                let found = other.map_or_else(|| node.type_name().to_string(), |v| format!("`{v}`"));
                let suggestion = other.and_then(|v| did_you_mean(&nearest(v, ApprovalsEnd::NAMES)));
                self.error(
                    node,
                    format!("`review.approvals_end_on` is `document_change` or `any_push`, found {found}"),
                    suggestion
                        .unwrap_or_else(|| "e.g. `approvals_end_on: any_push` to end approvals on every push".into()),
                )
            }
        }
        true
    }

    /// A list of strings; the help shows an example fitting its key (globs for
    /// `paths`, logins otherwise).
    fn strings(&mut self, key: &Key, node: Node, out: &mut Vec<String>) -> bool {
        let example = match key.name {
            "paths" => "[\"docs/adr/**/*.md\"]",
            _ => "[alice, bob]",
        };
        let Some(items) = node.as_seq() else {
            self.error(
                node,
                format!("`{}` must be a list, found {}", key.name, node.type_name()),
                format!(
                    "write the items in brackets, e.g. `{}: {example}`, or one `- item` per line below it",
                    key.name
                ),
            );
            return true;
        };
        let mut values = Vec::new();
        for item in items.iter() {
            match item.scalar_text() {
                Some(s) if !s.is_empty() => values.push(s.to_string()),
                _ => self.error(
                    item,
                    format!("an item of `{}` must be a string, found {}", key.name, item.type_name()),
                    format!("write each item as text, e.g. `{}: {example}`", key.name),
                ),
            }
        }
        *out = values;
        true
    }

    fn globs(&mut self, key: &Key, node: Node, out: &mut Vec<String>) -> bool {
        let mut values = Vec::new();
        self.strings(key, node, &mut values);
        let Some(items) = node.as_seq() else { return true };
        let mut valid = Vec::new();
        for (value, item) in
            values.into_iter().zip(items.iter().filter(|i| i.scalar_text().is_some_and(|s| !s.is_empty())))
        {
            if let Err(e) = Glob::new(&value) {
                self.error(
                    item,
                    format!("`{value}` is not a valid glob: {}", e.kind()),
                    "`*` matches within a folder, `**` across folders; close every `[` and `{`".into(),
                );
            } else if value.starts_with('/') || value.split('/').any(|seg| seg == "..") {
                self.error(
                    item,
                    format!("`{value}` must be relative to the repository root, without `..`"),
                    "write the path from the repository root, e.g. `docs/adr/**/*.md`".into(),
                );
            } else {
                valid.push(value);
            }
        }
        *out = valid;
        true
    }

    fn rules(&mut self, node: Node, out: &mut BTreeMap<String, Level>) -> bool {
        let Some(entries) = self.map(node, "rules", &["brief/out-of-scope-empty"]) else { return true };
        for (key, value) in entries.iter() {
            if !self.rule_ids.contains(&key.name) {
                let help = did_you_mean(&nearest(key.name, self.rule_ids.iter().copied()))
                    .unwrap_or_else(|| "`gatehouse rules` lists every rule id".to_string());
                self.key_error(&key, format!("unknown rule `{}`", key.name), help);
                continue;
            }
            let level = match value.scalar_text() {
                Some("off") => Level::Off,
                Some("error") => Level::On(Severity::Error),
                Some("warning") => Level::On(Severity::Warning),
                Some("notice") => Level::On(Severity::Notice),
                other => {
                    let suggestion = other.and_then(|v| did_you_mean(&nearest(v, LEVELS)));
                    let found = other.map_or_else(|| value.type_name().to_string(), |v| format!("`{v}`"));
                    self.error(
                        value,
                        format!("a rule's level is off, error, warning or notice, found {found}"),
                        suggestion.unwrap_or_else(|| format!("e.g. `{}: warning`", key.name)),
                    );
                    continue;
                }
            };
            out.insert(key.name.to_string(), level);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &[&str] = &["brief/out-of-scope-empty", "brief/path-missing"];

    fn errors(text: &str) -> Vec<ConfigError> {
        Config::parse(text, RULES).1
    }

    #[test]
    fn a_yaml_error_is_explained_in_the_authors_terms() {
        let tab = errors("briefs:\n\tpaths: [\"briefs/*.md\"]\n");
        assert_eq!(tab.len(), 1, "{tab:?}");
        assert_eq!((tab[0].line, tab[0].col), (2, 1));
        assert_eq!(tab[0].message, "invalid YAML: line 2 is indented with a tab; YAML indents with spaces only");
        assert_eq!(tab[0].help, "replace the tab at the start of line 2 with spaces");
        let open = errors("briefs:\n  paths: [\"briefs/*.md\"\nvoting:\n  paths: []\n");
        assert_eq!((open[0].line, open[0].col), (2, 10), "{open:?}");
        assert_eq!(open[0].message, "invalid YAML: the `[` opened on line 2 is never closed");
        assert!(open[0].help.starts_with("close the list with `]`"), "{}", open[0].help);
    }

    #[test]
    fn an_unknown_key_gets_the_nearest_known_key_of_its_section() {
        let found = errors("briefs:\n  pahts: [\"briefs/*.md\"]\nreveiw:\n  core: { reviewers: [a] }\n");
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].line, found[0].col, found[0].width), (2, 3, 5));
        assert_eq!(found[0].message, "unknown key `pahts` in `briefs`");
        assert_eq!(found[0].help, "did you mean `paths`? The keys of `briefs` are `paths`, `review_threshold`.");
        assert_eq!(found[1].message, "unknown key `reveiw` in the config");
        assert!(found[1].help.starts_with("did you mean `review`?"), "{}", found[1].help);
        let far = errors("limits:\n  something_else: 3\n");
        assert_eq!(far[0].help, "the keys of `limits` are `max_file_bytes`; `gatehouse schema config` describes each");
        let rule = errors("rules:\n  brief/path-mising: off\n");
        assert_eq!(
            (rule[0].message.as_str(), rule[0].help.as_str()),
            ("unknown rule `brief/path-mising`", "did you mean `brief/path-missing`?")
        );
        let level = errors("rules:\n  brief/path-missing: warnign\n");
        assert_eq!(level[0].help, "did you mean `warning`?");
    }

    #[test]
    fn a_wrong_type_says_what_is_expected_with_an_example() {
        let found = errors(
            "briefs:\n  review_threshold:\n    lines: lots\n  paths: briefs/*.md\nreview:\n  core: { reviewers: [a, b] }\n  recusal: sometimes\n",
        );
        let shown: Vec<(u32, u32, u32, &str, &str)> =
            found.iter().map(|e| (e.line, e.col, e.width, e.message.as_str(), e.help.as_str())).collect();
        assert_eq!(
            shown,
            vec![
                (
                    3,
                    12,
                    4,
                    "`lines` must be a whole number of 0 or more, found a string",
                    "write the number without quotes, e.g. `lines: 100`"
                ),
                (
                    4,
                    10,
                    11,
                    "`paths` must be a list, found a string",
                    "write the items in brackets, e.g. `paths: [\"docs/adr/**/*.md\"]`, or one `- item` per line below it"
                ),
                (
                    7,
                    12,
                    9,
                    "`recusal` must be true or false, found a string",
                    "write `true` or `false` without quotes, e.g. `recusal: true`"
                ),
            ]
        );
        let section = errors("limits: 5\n");
        assert_eq!(section[0].message, "`limits` must be a mapping of `key: value`, found an integer");
        assert_eq!(
            section[0].help,
            "write `limits:` on a line of its own with its keys indented below it (e.g. `max_file_bytes: …`)"
        );
    }
}
