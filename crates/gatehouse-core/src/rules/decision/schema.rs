use super::{DecisionView, key_span, value_span};
use crate::docs::decision::Manifest;
use crate::docs::decision::lifecycle::Status;
use crate::docs::json::{Json, JsonKind, Member};
use crate::model::Sink;

declare_rule! {
    id: "decision/schema",
    view: DecisionView,
    severity: Error,
    summary: "a decision manifest has the engine's fields, with their types and values",
    why: "ADR 0007 gives the docket \"typed state\": the engine validates enums, and \"tier (0/1/2) and \
stakes (small/medium/high) are stored but never interpreted by the engine\". The manifest schema of the \
public harnery engine (docs/seed-coverage.md, Engine formats) requires `schema_version` (1), `decision_id`, `status` (one of the \
nine lifecycle states), `tier` (0, 1 or 2), `stakes` (small, medium or high), `question` and `filed_at`; \
a `resolution` names its `recommendation`, `resolved_by` and `resolved_at`; a `review` has a `verdict` \
(ratified, overridden, wrong-tier-high, wrong-tier-low) and `reviewed_at`. Optional text fields are \
strings (or null). Unknown keys are allowed; a key written twice is not, since readers disagree about \
which copy wins.",
    bad: ".harnery/decisions/cache-ttl-2026-07-09-0c4e.json",
    good: ".harnery/decisions/cache-ttl-2026-07-09-0c4e.json",
}

/// Optional fields that hold a string or null.
pub(crate) const OPTIONAL_TEXT: [&str; 10] = [
    "context",
    "default_taken",
    "filed_by",
    "filed_by_id",
    "claimed_by",
    "council_id",
    "graduated_to",
    "superseded_by",
    "wontfix_reason",
    "updated_at",
];
/// The fields every manifest has.
pub(crate) const REQUIRED: [&str; 7] =
    ["schema_version", "decision_id", "status", "tier", "stakes", "question", "filed_at"];
/// The fields of a `resolution` object, all required.
pub(crate) const RESOLUTION_FIELDS: [&str; 3] = ["recommendation", "resolved_by", "resolved_at"];
/// The fields a `review` object must have.
pub(crate) const REVIEW_FIELDS: [&str; 2] = ["verdict", "reviewed_at"];
pub(crate) const STAKES: [&str; 3] = ["small", "medium", "high"];
pub(crate) const VERDICTS: [&str; 4] = ["ratified", "overridden", "wrong-tier-high", "wrong-tier-low"];

fn check(view: &DecisionView, sink: &mut Sink) {
    for d in view.parsed() {
        Schema { m: &d.head, sink }.manifest();
    }
}

struct Schema<'m, 'a, 's> {
    m: &'m Manifest<'a>,
    sink: &'s mut Sink,
}

impl Schema<'_, '_, '_> {
    fn wrong(&mut self, node: &Json, anchor: &str, message: String, help: &str) {
        self.sink.emit(self.m.path, value_span(self.m, node), anchor, message).help(help);
    }

    fn manifest(&mut self) {
        let Ok(root) = &self.m.root else { return };
        let Some(members) = root.as_object() else {
            self.wrong(
                root,
                "root",
                format!("a decision manifest is a JSON object, found {}", root.type_name()),
                "write the manifest as one `{ … }` object",
            );
            return;
        };
        self.duplicates(members, "");
        for key in REQUIRED {
            if root.member(key).is_none() {
                self.wrong(
                    root,
                    &format!("missing:{key}"),
                    format!("required field `{key}` is missing"),
                    "add the field; docs/seed-coverage.md (Engine formats) lists the manifest's required fields",
                );
            }
        }
        for member in members {
            self.field(member);
        }
    }

    fn duplicates(&mut self, members: &[Member], prefix: &str) {
        let mut seen: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
        for m in members {
            if let Some(first) = seen.insert(&m.key, m.line) {
                let name = format!("{prefix}{}", m.key);
                self.sink
                    .emit(
                        self.m.path,
                        key_span(m),
                        format!("duplicate:{name}"),
                        format!("`{name}` is written twice (first at line {first})"),
                    )
                    .help("keep one copy of the key: JSON readers disagree about which one wins");
            }
        }
    }

    fn field(&mut self, member: &Member) {
        let v = &member.value;
        let key = member.key.as_str();
        match key {
            "schema_version" if v.as_i64() != Some(1) => self.wrong(
                v,
                key,
                format!("`schema_version` is {}; the engine writes schema version 1", v.show()),
                "set `\"schema_version\": 1`",
            ),
            "decision_id" | "question" => self.text(v, key, true),
            "filed_at" => self.text(v, key, false),
            "status" => match v.as_str() {
                Some(s) if Status::parse(s).is_some() => {}
                _ => {
                    let all: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
                    self.wrong(
                        v,
                        key,
                        format!("`status` is {}, not a lifecycle state", v.show()),
                        &format!("use one of: {}", all.join(", ")),
                    )
                }
            },
            "tier" if !matches!(v.as_i64(), Some(0..=2)) => self.wrong(
                v,
                key,
                format!("`tier` is {} {}; ADR 0007's tiers are the numbers 0, 1 and 2", v.type_name(), v.show()),
                "set `tier` to the number 0, 1 or 2 (2: a human sees it before enactment)",
            ),
            "stakes" => self.one_of(v, key, &STAKES),
            "resolution" => self.block(v, key, &RESOLUTION_FIELDS, |s, m| match m.key.as_str() {
                "recommendation" | "resolved_by" => s.text(&m.value, &format!("resolution.{}", m.key), true),
                "resolved_at" => s.text(&m.value, "resolution.resolved_at", false),
                "evidence" => s.evidence(&m.value),
                _ => {}
            }),
            "review" => self.block(v, key, &REVIEW_FIELDS, |s, m| match m.key.as_str() {
                "verdict" => s.one_of(&m.value, "review.verdict", &VERDICTS),
                "reviewed_at" => s.text(&m.value, "review.reviewed_at", false),
                "note" if !m.value.is_null() => s.text(&m.value, "review.note", false),
                _ => {}
            }),
            _ if OPTIONAL_TEXT.contains(&key) && !v.is_null() && v.as_str().is_none() => self.wrong(
                v,
                key,
                format!("`{key}` is {}; it must be a string (or null)", v.type_name()),
                "write the value in double quotes",
            ),
            _ => {}
        }
    }

    /// A string field; `non_empty` for fields that say something.
    fn text(&mut self, v: &Json, anchor: &str, non_empty: bool) {
        match v.as_str() {
            Some(s) if non_empty && s.trim().is_empty() => {
                self.wrong(v, anchor, format!("`{anchor}` is empty"), "write the text")
            }
            Some(_) => {}
            None => self.wrong(
                v,
                anchor,
                format!("`{anchor}` is {}; it must be a string", v.type_name()),
                "write the value in double quotes",
            ),
        }
    }

    fn one_of(&mut self, v: &Json, key: &str, allowed: &[&str]) {
        if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
            self.wrong(
                v,
                key,
                format!("`{key}` is {}, not one of {}", v.show(), allowed.join(", ")),
                &format!("use one of: {}", allowed.join(", ")),
            );
        }
    }

    fn evidence(&mut self, v: &Json) {
        match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate().filter(|(_, i)| i.as_str().is_none()) {
                    self.wrong(
                        item,
                        &format!("resolution.evidence[{i}]"),
                        format!("an evidence entry is {}; each is a citation string", item.type_name()),
                        "write each citation as a string",
                    );
                }
            }
            None => self.wrong(
                v,
                "resolution.evidence",
                format!("`resolution.evidence` is {}; it must be an array of citation strings", v.type_name()),
                "write `\"evidence\": [\"…\"]`",
            ),
        }
    }

    /// A nested object (`resolution`, `review`): null, or an object with `required` keys.
    fn block(&mut self, v: &Json, key: &str, required: &[&str], mut each: impl FnMut(&mut Self, &Member)) {
        if v.is_null() {
            return;
        }
        let JsonKind::Object(members) = &v.kind else {
            self.wrong(
                v,
                key,
                format!("`{key}` is {}; it must be an object", v.type_name()),
                &format!("write `\"{key}\": {{ … }}`"),
            );
            return;
        };
        self.duplicates(members, &format!("{key}."));
        for name in required {
            if v.member(name).is_none() {
                self.wrong(
                    v,
                    &format!("missing:{key}.{name}"),
                    format!("`{key}` is missing `{name}`"),
                    &format!("add `{name}` to `{key}`"),
                );
            }
        }
        for m in members {
            each(self, m);
        }
    }
}
