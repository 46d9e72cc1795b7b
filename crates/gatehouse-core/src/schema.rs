//! JSON Schemas (draft 2020-12) of the documents gatehouse checks, for
//! editors and agents: a brief's frontmatter, a section's `voting` block, a
//! decision manifest and `.github/gatehouse.yml`. They are built from the
//! field lists the rules use, so a schema says what the rules say; the
//! copies under `schemas/` are kept equal to them by a test.

use serde_json::{Value, json};

use crate::docs::brief::FIELDS as BRIEF_FIELDS;
use crate::docs::decision::lifecycle::Status;
use crate::docs::voting::{ARGUMENT_FIELDS, BLOCK_FIELDS, EXAMPLE_FIELDS, KINDS, MAX_WEIGHT, MIN_RATIONALE};
use crate::rules::decision::schema as decision;
use crate::rules::voting::field_type::STRINGS as ARGUMENT_STRINGS;

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The documents a schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Kind {
    /// A brief's YAML frontmatter (ADR-099).
    Brief,
    /// A section's fenced `voting` block (ADR-140).
    Voting,
    /// A decision manifest (ADR 0007).
    Decision,
    /// `.github/gatehouse.yml`.
    Config,
    /// What `gatehouse check --format json` prints; its `$defs/finding` is the
    /// shape of a finding in every command's JSON.
    Report,
    /// What `gatehouse verify --format json` prints.
    Verify,
    /// What `gatehouse config explain --format json` prints.
    ConfigExplain,
}

impl Kind {
    pub const ALL: [Kind; 7] =
        [Kind::Brief, Kind::Voting, Kind::Decision, Kind::Config, Kind::Report, Kind::Verify, Kind::ConfigExplain];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Brief => "brief",
            Kind::Voting => "voting",
            Kind::Decision => "decision",
            Kind::Config => "config",
            Kind::Report => "report",
            Kind::Verify => "verify",
            Kind::ConfigExplain => "config-explain",
        }
    }

    /// The committed copy's path in the repository.
    pub fn file(self) -> String {
        format!("schemas/{}.schema.json", self.name())
    }
}

/// The schema of `kind`.
pub fn schema(kind: Kind) -> Value {
    match kind {
        Kind::Brief => brief(),
        Kind::Voting => voting(),
        Kind::Decision => decision(),
        Kind::Config => config(),
        Kind::Report => report(),
        Kind::Verify => verify(),
        Kind::ConfigExplain => config_explain(),
    }
}

/// The schema as `gatehouse schema` prints it and `schemas/` holds it.
pub fn render(kind: Kind) -> String {
    serde_json::to_string_pretty(&schema(kind)).expect("plain data") + "\n"
}

/// The JSON `gatehouse verify` prints: each governed document's answer.
fn verify() -> Value {
    let digest = json!({ "type": "object", "additionalProperties": { "type": "string" } });
    let approval = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["login", "approved"],
        "properties": {
            "login": { "type": "string" },
            "submittedAt": { "type": "string" },
            "commit": { "type": "string" },
            "approved": { "type": "object", "additionalProperties": digest },
        },
    });
    let pull_request = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["number", "base", "head", "merge"],
        "properties": {
            "number": { "type": "integer", "minimum": 1 },
            "base": { "type": "string" },
            "head": { "type": "string" },
            "merge": { "type": "string" },
        },
    });
    let document = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["path", "blob", "status", "message"],
        "properties": {
            "path": { "type": "string" },
            "blob": { "type": "string", "description": "git's blob id of the document at HEAD" },
            "status": { "enum": ["verified", "unattested", "changed_after_gate", "bad_signature"] },
            "message": { "type": "string" },
            "pull_request": pull_request,
            "approvals": { "type": "array", "items": { "$ref": "#/$defs/approval" } },
            "keyid": { "type": "string", "description": "the key that verified the attestation" },
            "gated_blob": { "type": "string", "description": "the blob the gate passed, when it changed after" },
            "diff": { "type": "string", "description": "a unified diff from the gated text to HEAD's" },
            "last_commit": { "type": "string", "description": "the last commit that changed an unattested document" },
        },
    });
    let count = json!({ "type": "integer", "minimum": 0 });
    json!({
        "$schema": DRAFT,
        "title": "gatehouse's verification: `gatehouse verify --format json`",
        "type": "object",
        "additionalProperties": false,
        "required": ["version", "documents", "counts"],
        "properties": {
            "version": { "const": 1 },
            "documents": { "type": "array", "items": { "$ref": "#/$defs/document" } },
            "counts": {
                "type": "object",
                "additionalProperties": false,
                "required": ["verified", "unattested", "changed_after_gate", "bad_signature"],
                "properties": {
                    "verified": count, "unattested": count, "changed_after_gate": count, "bad_signature": count,
                },
            },
        },
        "$defs": { "document": document, "approval": approval },
    })
}

/// The JSON `gatehouse check` prints, and the finding shape every command's
/// JSON shares. A finding with a verified fix carries `fix`; others omit it.
fn report() -> Value {
    let nullable = |kind: &str| json!({ "type": [kind, "null"] });
    let count = json!({ "type": "integer", "minimum": 0 });
    let line = json!({ "type": "integer", "minimum": 1 });
    let column = json!({ "type": ["integer", "null"], "minimum": 1 });
    let edit = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["path", "start", "end", "replacement"],
        "properties": {
            "path": { "type": "string", "description": "repository-relative" },
            "start": { "type": "integer", "minimum": 0, "description": "byte offset in the head text" },
            "end": { "type": "integer", "minimum": 0 },
            "replacement": { "type": "string" }
        }
    });
    let finding = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["rule", "severity", "check", "path", "line", "column", "end_line", "end_column", "message", "help", "fingerprint"],
        "properties": {
            "rule": { "type": "string", "pattern": "^[a-z]+/[a-z0-9-]+$" },
            "severity": { "enum": ["error", "warning", "notice"] },
            "check": { "type": "string", "description": "the check run the finding belongs to; `gatehouse/config` for findings about `.github/gatehouse.yml`" },
            "path": { "type": "string" },
            "line": line,
            "column": column,
            "end_line": line,
            "end_column": column,
            "message": { "type": "string", "minLength": 1 },
            "help": nullable("string"),
            "fingerprint": { "type": "string", "pattern": "^[0-9a-f]{16}$" },
            "fix": {
                "type": "object",
                "additionalProperties": false,
                "required": ["message", "edits"],
                "properties": { "message": { "type": "string" }, "edits": { "type": "array", "items": edit } }
            }
        }
    });
    let check = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "conclusion", "summary", "documents", "errors", "warnings", "notices", "details"],
        "properties": {
            "name": { "type": "string" },
            "conclusion": { "enum": ["success", "failure", "neutral"] },
            "summary": { "type": "string", "minLength": 1, "description": "what the check looked at, in one line; `not evaluated: the config is invalid` for a family's check when `gatehouse/config` fails" },
            "documents": { "type": "integer", "minimum": 0, "description": "documents of the check's family the change touched and the rules checked; the pull request body is none" },
            "errors": count,
            "warnings": count,
            "notices": count,
            "details": { "type": "array", "items": { "type": "string" } }
        }
    });
    json!({
        "$schema": DRAFT,
        "title": "gatehouse's report: `gatehouse check --format json`; `$defs/finding` is a finding in every command's JSON, `$defs/rule` a rule in `gatehouse rules --format json`, `$defs/tally` what `gatehouse tally --format json` prints and `$defs/gate` what `gatehouse gate simulate --format json` prints",
        "type": "object",
        "additionalProperties": false,
        "required": ["version", "conclusion", "checks", "findings"],
        "properties": {
            "version": { "const": 1 },
            "conclusion": { "enum": ["success", "failure"] },
            "checks": { "type": "array", "items": { "$ref": "#/$defs/check" } },
            "findings": { "type": "array", "items": { "$ref": "#/$defs/finding" } }
        },
        "$defs": {
            "finding": finding,
            "check": check,
            "rule": {
                "type": "object",
                "additionalProperties": false,
                "required": ["id", "severity", "summary"],
                "properties": {
                    "id": { "type": "string", "pattern": "^[a-z]+/[a-z0-9-]+$" },
                    "severity": { "enum": ["error", "warning", "notice"] },
                    "summary": { "type": "string" }
                }
            },
            "tally": tally(),
            "gate": gate()
        }
    })
}

/// `gatehouse tally --format json`: one voting doc's sections, and the
/// `voting/vote-entry` findings that say why votes are left out.
fn tally() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    let ids = json!({ "type": "array", "items": { "type": "string" } });
    let argument = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["id", "kind", "total", "votes"],
        "properties": {
            "id": { "type": "string" },
            "kind": { "type": ["string", "null"], "description": "`modification_kind`" },
            "total": { "type": "number", "description": "Σ vote × weight over the counted votes" },
            "votes": count
        }
    });
    let left_out = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["line", "argument", "vote"],
        "properties": {
            "line": { "type": "integer", "minimum": 1 },
            "argument": { "type": "string" },
            "vote": { "type": "string", "description": "e.g. `vote 2 (lin/opus-4.7)`; `findings` says why" }
        }
    });
    let section = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["section", "heading", "line", "arguments", "weighted_votes", "quorum", "quorum_met", "margin",
            "state", "leaders", "losers", "active_argument", "ignored_votes", "left_out"],
        "properties": {
            "section": { "type": "string" },
            "heading": { "type": "string" },
            "line": { "type": "integer", "minimum": 1 },
            "arguments": { "type": "array", "items": argument },
            "weighted_votes": { "type": "number" },
            "quorum": { "type": "number" },
            "quorum_met": { "type": "boolean" },
            "margin": { "type": ["number", "null"] },
            "state": { "enum": ["open", "retirement-eligible", "consensus-locked"] },
            "leaders": ids,
            "losers": ids,
            "active_argument": { "type": ["string", "null"] },
            "ignored_votes": count,
            "left_out": { "type": "array", "items": left_out }
        }
    });
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["path", "doc", "version", "sections", "findings"],
        "properties": {
            "path": { "type": "string" },
            "doc": { "type": ["string", "null"] },
            "version": { "type": ["integer", "null"] },
            "sections": { "type": "array", "items": section },
            "findings": { "type": "array", "items": { "$ref": "#/$defs/finding" } }
        }
    })
}

/// `gatehouse gate simulate --format json`: the review gate's verdict.
fn gate() -> Value {
    let logins = json!({ "type": "array", "items": { "type": "string" } });
    let missing = |kind: &str, fields: Value| {
        let mut properties = json!({ "kind": { "const": kind } });
        let mut required = vec![json!("kind")];
        for (name, schema) in fields.as_object().expect("an object of fields") {
            properties[name] = schema.clone();
            required.push(json!(name));
        }
        json!({ "type": "object", "additionalProperties": false, "required": required, "properties": properties })
    };
    let count = json!({ "type": "integer", "minimum": 0 });
    let group = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["rule", "enforced_by", "needed", "from", "advisory", "paths", "approved_by", "missing",
            "advisory_missing", "notes"],
        "properties": {
            "rule": { "type": "string" },
            "enforced_by": { "enum": ["gatehouse", "github"] },
            "needed": count,
            "from": logins,
            "advisory": logins,
            "paths": logins,
            "approved_by": logins,
            "missing": count,
            "advisory_missing": logins,
            "notes": logins
        }
    });
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["passed", "head", "required", "eligible", "recused", "approvals", "changes_requested", "stale",
            "standings", "advisory_reviewed", "missing", "missing_text"],
        "properties": {
            "passed": { "type": "boolean" },
            "head": { "type": "string" },
            "required": count,
            "eligible": logins,
            "recused": logins,
            "approvals": logins,
            "changes_requested": logins,
            "stale": logins,
            "standings": { "type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["login", "commit", "counts", "why"],
                "properties": {
                    "login": { "type": "string" },
                    "commit": { "type": ["string", "null"] },
                    "counts": { "type": "boolean" },
                    "why": { "type": "string" }
                }
            } },
            "advisory_reviewed": logins,
            "missing": { "type": "array", "items": { "oneOf": [
                missing("approvals", json!({ "needed": count, "from": logins, "on": { "type": "string" } })),
                missing("advisory", json!({ "login": { "type": "string" } })),
                missing("changes_requested", json!({ "by": logins, "limit": count })),
                missing("too_many_recusals", json!({ "recused": logins })),
                missing("group", json!({ "rule": { "type": "string" }, "needed": count, "from": logins,
                    "advisory": logins, "paths": logins, "notes": logins }))
            ] } },
            "groups": { "type": "array", "description": "every requirement besides the core: CODEOWNERS lines, rosters, the branch's rules", "items": group },
            "missing_text": { "type": "array", "items": { "type": "string" }, "description": "`missing` as sentences" }
        }
    })
}

/// A string with something in it besides blanks.
fn text() -> Value {
    json!({ "type": "string", "pattern": "\\S" })
}

fn object(properties: serde_json::Map<String, Value>, required: &[&str]) -> serde_json::Map<String, Value> {
    let mut o = serde_json::Map::new();
    o.insert("type".into(), json!("object"));
    o.insert("required".into(), json!(required));
    o.insert("properties".into(), Value::Object(properties));
    o
}

fn brief() -> Value {
    let list = |min: u32, what: &str| json!({ "type": "array", "minItems": min, "items": text(), "description": what });
    let mut properties = serde_json::Map::new();
    for field in BRIEF_FIELDS {
        let value = match field {
            "agent" => json!({
                "type": "string",
                "pattern": "^SWARM-[A-Z0-9]{1,6}$",
                "description": "The sub-agent's id, `SWARM-` and 1-6 of A-Z, 0-9; the file name starts with it."
            }),
            "repos_touched" => list(1, "The repositories the agent may change, as `owner/name`."),
            "adrs_referenced" => list(0, "The ADRs the agent must honour, as `ADR-NNN`; `[]` when none."),
            "success_criteria" => list(1, "One testable assertion per entry."),
            "out_of_scope" => list(0, "What the agent must not do."),
            "lines_estimate" => json!({
                "type": "integer",
                "minimum": 1,
                "description": "The lines the agent will change; over the review threshold (100) needs brief-PR review."
            }),
            other => unreachable!("ADR-099 field `{other}` without a schema"),
        };
        properties.insert(field.into(), value);
    }
    let mut root = serde_json::Map::new();
    root.insert("$schema".into(), json!(DRAFT));
    root.insert("title".into(), json!("gatehouse brief frontmatter (ADR-099)"));
    root.extend(object(properties, &BRIEF_FIELDS));
    root.insert("additionalProperties".into(), json!(false));
    Value::Object(root)
}

fn voting() -> Value {
    let mut argument = serde_json::Map::new();
    for field in ARGUMENT_STRINGS {
        argument.insert(field.into(), json!({ "type": "string" }));
    }
    // An original argument has no target; ADR-140 asks for none, so an
    // explicit null is as good as the key left out.
    argument.insert("target".into(), json!({ "type": ["string", "null"] }));
    argument.insert("modification_kind".into(), json!({ "type": "string", "enum": KINDS }));
    argument.insert("rationale".into(), json!({ "type": "string", "minLength": MIN_RATIONALE }));
    argument.insert("evidence_pr_refs".into(), json!({ "type": "array", "items": { "type": "string" } }));
    let example: serde_json::Map<String, Value> =
        EXAMPLE_FIELDS.iter().map(|f| ((*f).to_string(), json!({ "type": "string" }))).collect();
    argument.insert("example".into(), Value::Object(object(example, &EXAMPLE_FIELDS)));
    let vote = json!({
        "type": "object",
        "required": crate::docs::voting::VOTE_FIELDS,
        "properties": {
            "voter": { "type": "string", "description": "`<persona>/<model_pin>`" },
            "vote": { "enum": [1, -1] },
            "weight": { "type": "number", "exclusiveMinimum": 0, "maximum": MAX_WEIGHT },
            "ts": { "type": "string", "description": "RFC 3339 with a zone" },
            "rationale": { "type": "string", "minLength": MIN_RATIONALE },
            "scope_match": { "type": "number", "minimum": 0, "maximum": 1 }
        }
    });
    argument.insert("vote_ledger".into(), json!({ "type": "array", "items": vote }));
    let mut block = serde_json::Map::new();
    block.insert("section".into(), text());
    block.insert("active_argument".into(), text());
    block.insert("arguments".into(), json!({ "type": "array", "items": object(argument, &ARGUMENT_FIELDS) }));
    let mut root = serde_json::Map::new();
    root.insert("$schema".into(), json!(DRAFT));
    root.insert("title".into(), json!("gatehouse voting block (ADR-140), one per `## ` section"));
    root.extend(object(block, &BLOCK_FIELDS));
    Value::Object(root)
}

fn decision() -> Value {
    let statuses: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
    let mut properties = serde_json::Map::new();
    properties.insert("schema_version".into(), json!({ "const": 1 }));
    properties.insert("decision_id".into(), text());
    properties.insert("question".into(), text());
    properties.insert("filed_at".into(), json!({ "type": "string" }));
    properties.insert("status".into(), json!({ "enum": statuses }));
    properties.insert("tier".into(), json!({ "enum": [0, 1, 2] }));
    properties.insert("stakes".into(), json!({ "enum": decision::STAKES }));
    for field in decision::OPTIONAL_TEXT {
        properties.insert(field.into(), json!({ "type": ["string", "null"] }));
    }
    let mut resolution = serde_json::Map::new();
    resolution.insert("recommendation".into(), text());
    resolution.insert("resolved_by".into(), text());
    resolution.insert("resolved_at".into(), json!({ "type": "string" }));
    resolution.insert("evidence".into(), json!({ "type": "array", "items": { "type": "string" } }));
    let mut resolution = object(resolution, &decision::RESOLUTION_FIELDS);
    resolution.insert("type".into(), json!(["object", "null"]));
    properties.insert("resolution".into(), Value::Object(resolution));
    let mut review = serde_json::Map::new();
    review.insert("verdict".into(), json!({ "enum": decision::VERDICTS }));
    review.insert("reviewed_at".into(), json!({ "type": "string" }));
    review.insert("note".into(), json!({ "type": ["string", "null"] }));
    let mut review = object(review, &decision::REVIEW_FIELDS);
    review.insert("type".into(), json!(["object", "null"]));
    properties.insert("review".into(), Value::Object(review));
    let mut root = serde_json::Map::new();
    root.insert("$schema".into(), json!(DRAFT));
    root.insert("title".into(), json!("gatehouse decision manifest (ADR 0007); other keys are allowed"));
    root.extend(object(properties, &decision::REQUIRED));
    Value::Object(root)
}

/// `gatehouse config explain --format json`: every effective value with its
/// source and lock, and the problems of the chain as findings.
fn config_explain() -> Value {
    let file_line = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["file", "line"],
        "properties": { "file": { "type": "string" }, "line": { "type": "integer", "minimum": 1 } }
    });
    json!({
        "$schema": DRAFT,
        "title": "gatehouse's effective config: `gatehouse config explain --format json`",
        "type": "object",
        "additionalProperties": false,
        "required": ["version", "files", "values", "findings"],
        "properties": {
            "version": { "const": 1 },
            "files": {
                "type": "array",
                "description": "the files merged, the repository's own first (null when it has none), then each one it extends",
                "items": { "type": ["string", "null"] }
            },
            "values": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["key", "value", "merge", "from", "lock"],
                    "properties": {
                        "key": { "type": "string", "description": "dotted: `review.core.required`, `rules.<id>`" },
                        "value": { "description": "null: a key of a review policy when there is none" },
                        "merge": { "enum": ["replace", "append"], "description": "how a file's value meets the value of the files it extends" },
                        "from": {
                            "oneOf": [
                                { "type": "object", "additionalProperties": false, "required": ["file", "line"], "properties": { "file": { "type": "string" }, "line": { "type": "integer", "minimum": 1 } } },
                                { "type": "object", "additionalProperties": false, "required": ["default"], "properties": { "default": { "type": "string", "description": "the seed the default follows" } } }
                            ]
                        },
                        "lock": {
                            "oneOf": [
                                { "type": "null" },
                                { "type": "object", "additionalProperties": false, "required": ["kind", "bound", "file", "line"], "properties": {
                                    "kind": { "enum": ["locked", "at_least", "at_most"] },
                                    "bound": { "description": "the floor or ceiling; null for `locked`" },
                                    "file": file_line["properties"]["file"],
                                    "line": file_line["properties"]["line"]
                                } }
                            ]
                        }
                    }
                }
            },
            "findings": { "type": "array", "items": { "$ref": "#/$defs/finding" } }
        },
        "$defs": { "finding": report()["$defs"]["finding"].clone() }
    })
}

/// `.github/gatehouse.yml`, as [`crate::rules::read_config`] reads it:
/// every section refuses keys it does not know.
fn config() -> Value {
    let defaults = crate::config::Config::default();
    let globs = |default: &[String]| {
        json!({
            "type": "array",
            "items": { "type": "string", "minLength": 1, "not": { "pattern": "^/|(^|/)\\.\\.(/|$)" } },
            "default": default,
            "description": "Globs relative to the repository root; `**` crosses folders, `*` does not."
        })
    };
    let folders = |default: &[String]| {
        json!({
            "type": "array",
            "items": { "type": "string", "minLength": 1, "not": { "pattern": "^/|(^|/)\\.\\.(/|$)" } },
            "default": default
        })
    };
    let count = |default: u64| json!({ "type": "integer", "minimum": 0, "default": default });
    let flag = |default: bool| json!({ "type": "boolean", "default": default });
    let names = |default: &[String]| json!({ "type": "array", "items": { "type": "string", "minLength": 1 }, "default": default });
    let section =
        |properties: Value| json!({ "type": "object", "additionalProperties": false, "properties": properties });
    let rule_ids: Vec<&str> = crate::rules::all_rules().iter().map(|r| r.id).collect();
    let lock_keys: Vec<&str> = crate::config::keys::KEY_RULES.iter().map(|r| r.key).collect();
    let review = crate::config::ReviewConfig::default();
    let threshold = defaults.briefs.review_threshold;
    let rosters = json!({
                    "type": "array",
                    "description": "Approvals per path that CODEOWNERS cannot say; appended to the rosters of the config extended",
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["paths"],
                        "properties": {
                            "paths": globs(&[]),
                            "all_of": { "type": "array", "items": {
                                "type": "object",
                                "additionalProperties": false,
                                "required": ["from"],
                                "properties": {
                                    "n_of": { "type": "integer", "minimum": 1, "default": 1 },
                                    "from": { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 }
                                }
                            } },
                            "advisory": names(&[]),
                            "bots": names(&[])
                        }
                    }
    });
    json!({
        "$schema": DRAFT,
        "title": "gatehouse repository configuration, .github/gatehouse.yml",
        "type": ["object", "null"],
        "additionalProperties": false,
        "properties": {
            "briefs": section(json!({
                "paths": globs(&defaults.briefs.paths),
                "review_threshold": section(json!({ "lines": count(threshold.lines), "repos": count(threshold.repos) }))
            })),
            "adrs": section(json!({ "paths": globs(&defaults.adrs.paths) })),
            "voting": section(json!({ "paths": globs(&defaults.voting.paths) })),
            "specs": section(json!({ "paths": folders(&defaults.specs.paths) })),
            "decisions": section(json!({ "paths": folders(&defaults.decisions.paths) })),
            "extends": {
                "type": "string",
                "pattern": "^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+(:[^/].*)?$",
                "description": "The config this one extends: `owner/name` (that repository's `gatehouse.yml` at its default branch) or `owner/name:path`; merged key by key, this file's values over it"
            },
            "locks": {
                "type": "object",
                "description": "Keys the files that extend this one may not weaken: `locked`, `{ at_least: N }` (a number or a rule level) or `{ at_most: N }`",
                "propertyNames": { "anyOf": [{ "enum": lock_keys }, { "pattern": "^rules\\." }] },
                "additionalProperties": {
                    "anyOf": [
                        { "const": "locked" },
                        { "type": "object", "additionalProperties": false, "required": ["at_least"], "properties": { "at_least": { "type": ["integer", "string"] } } },
                        { "type": "object", "additionalProperties": false, "required": ["at_most"], "properties": { "at_most": { "type": "integer", "minimum": 0 } } }
                    ]
                }
            },
            "review": {
                "type": "object",
                "additionalProperties": false,
                "description": "A policy with no `core.reviewers` of its own takes them from the config it extends",
                "properties": {
                "core": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": { "reviewers": { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 }, "required": count(review.core_required) }
                },
                "advisory": names(&review.advisory),
                "max_changes_requested": count(review.max_changes_requested),
                "recusal": flag(review.recusal),
                "stale_on_push": flag(review.stale_on_push),
                "approvals_end_on": {
                    "type": "string",
                    "enum": crate::config::ApprovalsEnd::NAMES,
                    "default": review.approvals_end_on.name()
                },
                "request_reviewers": flag(review.request_reviewers),
                "remind_after_days": count(review.remind_after_days),
                "paths": globs(&review.paths),
                "owners": {
                    "type": "string",
                    "enum": crate::config::OwnersFrom::NAMES,
                    "default": review.owners.name(),
                    "description": "`codeowners`: each changed file with owners in the base's CODEOWNERS needs one of its owners' approval"
                },
                "agents": names(&review.agents),
                "rosters": rosters
                }
            },
            "limits": section(json!({ "max_file_bytes": count(defaults.limits.max_file_bytes) })),
            "dashboard": section(json!({ "enabled": flag(defaults.dashboard.enabled) })),
            "rules": {
                "type": "object",
                "propertyNames": { "enum": rule_ids },
                "additionalProperties": { "enum": ["off", "error", "warning", "notice"] }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A YAML line giving `value` to the dotted `path`.
    fn yaml_at(path: &[&str], value: &str) -> String {
        let mut out = String::new();
        for (depth, key) in path.iter().enumerate() {
            out.push_str(&"  ".repeat(depth));
            out.push_str(key);
            out.push(':');
            out.push(if depth + 1 == path.len() { ' ' } else { '\n' });
        }
        out + value + "\n"
    }

    /// Every leaf the config schema names is a key the config reader takes,
    /// with a value of the schema's type; a key beside them is refused by both.
    #[test]
    fn config_schema_names_what_the_reader_reads() {
        fn walk(node: &Value, path: &mut Vec<String>, leaves: &mut Vec<(Vec<String>, Value)>) {
            match node.get("properties").and_then(Value::as_object) {
                Some(properties) => {
                    for (key, child) in properties {
                        path.push(key.clone());
                        walk(child, path, leaves);
                        path.pop();
                    }
                }
                None => leaves.push((path.clone(), node.clone())),
            }
        }
        let mut leaves = Vec::new();
        walk(&schema(Kind::Config), &mut Vec::new(), &mut leaves);
        assert!(leaves.len() >= 15, "{leaves:?}");
        for (path, leaf) in leaves {
            let choice = leaf.get("enum").and_then(|e| e.get(0)).and_then(Value::as_str).unwrap_or_default();
            let sample = match (path.as_slice(), leaf.get("type").and_then(Value::as_str)) {
                ([key], _) if key == "extends" => "acme/.github",
                ([key], _) if key == "locks" => "{ review.core.required: { at_least: 2 } }",
                ([.., key], _) if key == "rosters" => "[{ paths: [\"x/**\"], all_of: [{ n_of: 1, from: [a] }] }]",
                (_, Some("array")) => "[\"x/*.md\"]",
                (_, Some("integer")) => "3",
                (_, Some("boolean")) => "false",
                (_, Some("string")) => choice,
                _ => "{ brief/unknown-field: off }",
            };
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            // A review policy is read whole: each leaf beside a policy that can pass.
            let policy = match path.as_slice() {
                ["review", "core", "reviewers"] => "    required: 1\n",
                ["review", "core", _] => "    reviewers: [a, b, c]\n",
                ["review", ..] => "  core: { reviewers: [a, b, c], required: 2 }\n",
                _ => "",
            };
            let text = yaml_at(&path, sample) + policy;
            assert_eq!(crate::rules::read_config(&text).1, vec![], "{text}");
            let mut wrong = path.clone();
            *wrong.last_mut().unwrap() = "not_a_key";
            if path.first() != Some(&"rules") {
                let errors = crate::rules::read_config(&(yaml_at(&wrong, sample) + policy)).1;
                let unknown = errors.iter().filter(|e| e.message.starts_with("unknown key `not_a_key`")).count();
                assert_eq!(unknown, 1, "{wrong:?}: {errors:?}");
            }
        }
    }

    #[test]
    fn every_schema_declares_draft_2020_12() {
        for kind in Kind::ALL {
            assert_eq!(schema(kind)["$schema"], DRAFT, "{}", kind.name());
        }
        assert_eq!(schema(Kind::Brief)["required"], json!(BRIEF_FIELDS));
    }
}
