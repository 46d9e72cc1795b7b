//! Reading `.github/gatehouse.yml` into a [`Config`]. Every problem is a
//! [`ConfigError`] at its position, with help in the author's terms: a YAML
//! error as the brief frontmatter's are explained, an unknown key with the
//! nearest known key of its section, a wrong type with the type expected
//! and an example of it.

use std::collections::BTreeMap;

use globset::Glob;

use super::inherit::Lock;
use super::{ApprovalsEnd, Config, ConfigError, Level, ReviewConfig};
use crate::docs::yaml::{self, Key, Map, Node};
use crate::model::Severity;
use crate::render::plural;
use crate::suggest::{did_you_mean, nearest};

/// Rules whose level a config may not set: with `config/extends` off, a
/// policy that cannot be read would pass unseen, the repository's own file
/// standing in for it.
const FIXED_LEVEL: &[&str] = &["config/extends"];

/// The keys of each section, as `gatehouse schema config` names them.
const ROOT_KEYS: &[&str] =
    &["extends", "locks", "briefs", "adrs", "voting", "specs", "decisions", "review", "limits", "rules", "dashboard"];
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
    "owners",
    "rosters",
    "agents",
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
    /// (`crate::rules::read_config`). An `extends:` key is read and checked
    /// but not followed: [`super::inherit::resolve`] follows it.
    pub fn parse(text: &str, rule_ids: &[&str]) -> (Config, Vec<ConfigError>) {
        let mut config = Config::default();
        let mut file = read_over(text, rule_ids, &mut config);
        if let Some(error) = unpassable_review(&config, &file.set) {
            file.errors.push(error);
        }
        (config, file.errors)
    }
}

/// Where a value stands in its file: the value's line, column and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub width: u32,
}

impl Pos {
    fn of(node: Node) -> Pos {
        Pos { line: node.line(), col: node.col(), width: width(node) }
    }
}

/// What one file says, read over the config the files it extends made.
#[derive(Debug, Default)]
pub(super) struct FileRead {
    /// Each key the file set (a leaf by its dotted key, and the sections
    /// `review` and `review.core`), at its value.
    pub set: BTreeMap<String, Pos>,
    pub errors: Vec<ConfigError>,
    /// `extends:`, as written, at its value.
    pub extends: Option<(String, Pos)>,
    pub locks: Vec<Lock>,
}

/// Reads `text` over `config`: every key the file sets replaces (or, for a
/// key that appends, extends) what `config` holds; maps are merged key by
/// key. A value in error leaves what was there.
pub(super) fn read_over(text: &str, rule_ids: &[&str], config: &mut Config) -> FileRead {
    let mut file = FileRead::default();
    let tree = match yaml::parse(text, 1) {
        Ok(tree) => tree,
        Err(e) => {
            file.errors.push(ConfigError {
                line: e.line,
                col: e.col,
                width: e.width.max(1),
                message: format!("invalid YAML: {}", e.message),
                help: e.help,
            });
            return file;
        }
    };
    let root = tree.root();
    if root.is_null() {
        return file;
    }
    let mut p = Reader { file: &mut file, rule_ids, at: String::new() };
    p.section(root, ROOT, ROOT_KEYS, |p, key, value| match key.name {
        "extends" => p.extends(value),
        "locks" => {
            let locks = super::inherit::read_locks(p, value);
            p.file.locks.extend(locks);
            true
        }
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
    file
}

/// The error of a review policy that can never pass (no core reviewers, or
/// more approvals required than there are reviewers), at the `review.core`
/// (or `review`) a file of `set` wrote; `None` when it can pass or there is
/// no policy.
pub(super) fn unpassable_review(config: &Config, set: &BTreeMap<String, Pos>) -> Option<ConfigError> {
    let review = config.review.as_ref()?;
    let others = review.owners == super::OwnersFrom::Codeowners || !review.rosters.is_empty();
    if review.core_reviewers.is_empty() && others {
        return None;
    }
    let core = set.get("review.core");
    let Pos { line, col, .. } = *core.or_else(|| set.get("review"))?;
    let reviewers = review.core_reviewers.len() as u64;
    let (message, help) = match core {
        None if reviewers == 0 => (
            "`review` has no `core` reviewers, so no approval could pass the gate".to_string(),
            format!("add the team's core reviewers under `review:`, e.g. `{CORE_EXAMPLE}`"),
        ),
        Some(_) if reviewers == 0 => (
            "`review.core.reviewers` is empty, so no approval could pass the gate".into(),
            format!("list the team's GitHub logins, e.g. `{CORE_EXAMPLE}`"),
        ),
        _ if review.core_required > reviewers => (
            format!(
                "`review.core.required` is {} but only {reviewers} core {} listed, so the gate could never pass",
                review.core_required,
                if reviewers == 1 { "reviewer is" } else { "reviewers are" }
            ),
            format!("require at most {}, or list more core reviewers", plural(reviewers as usize, "approval")),
        ),
        _ => return None,
    };
    Some(ConfigError { line, col, width: 1, message, help })
}

/// The name of the file's top level, as a section.
const ROOT: &str = "the config";

/// A section as messages name it: "the config", "`briefs`".
fn label(name: &str) -> String {
    if name == ROOT { name.to_string() } else { format!("`{name}`") }
}

pub(super) struct Reader<'e> {
    file: &'e mut FileRead,
    rule_ids: &'e [&'e str],
    /// The dotted key of the section being read (empty at the top level).
    at: String,
}

/// How many characters of `node` a caret covers: a plain scalar's text, or
/// its first character.
fn width(node: Node) -> u32 {
    node.scalar_text().filter(|_| node.is_plain()).map_or(1, |text| text.chars().count().max(1) as u32)
}

impl Reader<'_> {
    /// Reads `review:` into the policy, making one when there is none
    /// yet. Whether it can pass is decided once every file is read
    /// ([`unpassable_review`]).
    fn review(&mut self, node: Node, out: &mut Option<ReviewConfig>) -> bool {
        if node.as_map().is_none() {
            return self.section(node, "review", REVIEW_KEYS, |_, _, _| false);
        }
        self.file.set.insert("review".into(), Pos::of(node));
        let r = out.get_or_insert_with(ReviewConfig::default);
        self.section(node, "review", REVIEW_KEYS, |p, k, v| match k.name {
            "core" => {
                p.file.set.insert("review.core".into(), Pos::of(v));
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
            "approvals_end_on" => p.approvals_end(k, v, &mut r.approvals_end_on),
            "request_reviewers" => p.bool(k, v, &mut r.request_reviewers),
            "remind_after_days" => p.uint(k, v, &mut r.remind_after_days),
            "paths" => p.globs(k, v, &mut r.paths),
            "owners" => p.owners_from(k, v, &mut r.owners),
            "rosters" => p.rosters(k, v, &mut r.rosters),
            "agents" => p.strings(k, v, &mut r.agents),
            _ => false,
        })
    }

    /// How many errors the file has so far.
    pub(super) fn error_count(&self) -> usize {
        self.file.errors.len()
    }

    /// Whether `rules:` may name `id`.
    pub(super) fn knows_rule(&self, id: &str) -> bool {
        self.rule_ids.contains(&id)
    }

    /// The dotted key of `key` in the section being read.
    fn dotted(&self, key: &str) -> String {
        if self.at.is_empty() { key.to_string() } else { format!("{}.{key}", self.at) }
    }

    /// Records that the file set `key` of the section being read at `node`.
    pub(super) fn record(&mut self, key: &Key, node: Node) {
        let dotted = self.dotted(key.name);
        self.file.set.insert(dotted, Pos::of(node));
    }

    /// `extends: OWNER/REPO` or `OWNER/REPO:PATH`, checked here, followed by
    /// [`super::inherit::resolve`].
    fn extends(&mut self, node: Node) -> bool {
        match node.scalar_text().map(super::inherit::Source::parse) {
            Some(Ok(_)) => {
                self.file.extends = node.scalar_text().map(|text| (text.to_string(), Pos::of(node)));
            }
            Some(Err(why)) => self.error(
                node,
                format!("`extends` {why}"),
                "write the repository whose config this one extends, e.g. `extends: acme/.github` \
                 (its `gatehouse.yml`) or `extends: acme/policies:teams/platform.yml`"
                    .into(),
            ),
            None => self.error(
                node,
                format!("`extends` must be a repository's `owner/name`, found {}", node.type_name()),
                "e.g. `extends: acme/.github`".into(),
            ),
        }
        true
    }

    pub(super) fn error(&mut self, node: Node, message: String, help: String) {
        self.file.errors.push(ConfigError { line: node.line(), col: node.col(), width: width(node), message, help });
    }

    /// An error about a key itself: the caret covers its name.
    pub(super) fn key_error(&mut self, key: &Key, message: String, help: String) {
        let width = key.name.chars().count().max(1) as u32;
        self.file.errors.push(ConfigError { line: key.line, col: key.col, width, message, help });
    }

    /// The entries of section `name` (`ROOT` for the file's top level).
    pub(super) fn map<'y>(&mut self, node: Node<'y>, name: &str, keys: &[&str]) -> Option<Map<'y>> {
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
    pub(super) fn section(
        &mut self,
        node: Node,
        name: &str,
        keys: &[&str],
        mut field: impl FnMut(&mut Self, &Key, Node) -> bool,
    ) -> bool {
        let Some(entries) = self.map(node, name, keys) else { return true };
        let section = label(name);
        let outer = std::mem::replace(&mut self.at, if name == ROOT { String::new() } else { name.to_string() });
        for (key, value) in entries.iter() {
            if !field(self, &key, value) {
                self.unknown(&key, &section, keys);
            }
        }
        self.at = outer;
        true
    }

    pub(super) fn uint(&mut self, key: &Key, node: Node, out: &mut u64) -> bool {
        match node.as_i64() {
            Some(v) if v >= 0 => {
                *out = v as u64;
                self.record(key, node);
            }
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
            Some(v) => {
                *out = v;
                self.record(key, node);
            }
            None => self.error(
                node,
                format!("`{}` must be true or false, found {}", key.name, node.type_name()),
                format!("write `true` or `false` without quotes, e.g. `{}: {out}`", key.name),
            ),
        }
        true
    }

    fn approvals_end(&mut self, key: &Key, node: Node, out: &mut ApprovalsEnd) -> bool {
        match node.scalar_text() {
            Some(name @ ("document_change" | "any_push")) => {
                *out = if name == "any_push" { ApprovalsEnd::AnyPush } else { ApprovalsEnd::DocumentChange };
                self.record(key, node);
            }
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
    pub(super) fn strings(&mut self, key: &Key, node: Node, out: &mut Vec<String>) -> bool {
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
        self.assign(key, node, out, values);
        true
    }

    /// Sets a list as its key merges: replaced, or appended to what the
    /// files extended gave it.
    fn assign(&mut self, key: &Key, node: Node, out: &mut Vec<String>, values: Vec<String>) {
        let dotted = self.dotted(key.name);
        match super::keys::rule_of(&dotted).map(|rule| rule.merge) {
            Some(super::keys::Merge::Append) => {
                for value in values {
                    if !out.contains(&value) {
                        out.push(value);
                    }
                }
            }
            _ => *out = values,
        }
        self.file.set.insert(dotted, Pos::of(node));
    }

    pub(super) fn globs(&mut self, key: &Key, node: Node, out: &mut Vec<String>) -> bool {
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
        self.assign(key, node, out, valid);
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
            if FIXED_LEVEL.contains(&key.name) {
                self.key_error(
                    &key,
                    format!("`{}` cannot be set: an extended config that cannot be read is always an error", key.name),
                    "remove this line; fix `extends:` or remove it instead".to_string(),
                );
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
            self.file.set.insert(format!("{}{}", super::keys::RULES_PREFIX, key.name), Pos::of(value));
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
    fn the_level_of_config_extends_cannot_be_set() {
        let (config, found) = Config::parse("rules:\n  config/extends: off\n", &["config/extends"]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].line, found[0].col), (2, 3));
        assert!(found[0].message.contains("`config/extends` cannot be set"), "{}", found[0].message);
        assert!(config.rules.is_empty(), "the level is not taken: {:?}", config.rules);
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
