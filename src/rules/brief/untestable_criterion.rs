//! ADR-099's testability rubric for success criteria, made deterministic.

use super::BriefView;
use crate::model::{Severity, Sink, Span};
use crate::rules::{Example, Rule, RuleInfo};

pub static INFO: RuleInfo = RuleInfo {
    id: "brief/untestable-criterion",
    default_severity: Severity::Error,
    summary: "each success criterion names an observable and a checkable verb",
    why: "ADR-099: \"every entry under success_criteria has to be something a test could assert — a phrase \
like 'the feature works' fails this check; 'endpoint returns 200 with the documented schema' passes.\" \
The rubric: a criterion is testable when it names an OBSERVABLE — an inline code span (a path, \
command, endpoint or identifier), a quoted string, an HTTP status (100-599), an exit code (`exits 0`, \
`exit code 2`), or a number with a unit (`ms`, `s`, `%`, `MB`, `files`, `rows`, …) or a comparison \
(`<`, `≤`, `at most`, `within`, `under`, …) — together with a CHECKABLE VERB (returns, responds, \
exits, prints, emits, contains, lists, creates, writes, rejects, fails, passes, equals, matches, \
refuses, and the like, in any tense). Vague words (works, properly, correctly, as expected, better, \
improved, clean, robust, fast, seamless, user-friendly) never count as either.",
    bad: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../fixtures/rules/brief/untestable-criterion/fail/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
    good: Example {
        path: "dark-factory/briefs/SWARM-AR-pg-backup.md",
        text: include_str!(
            "../../../fixtures/rules/brief/untestable-criterion/pass/head/dark-factory/briefs/SWARM-AR-pg-backup.md"
        ),
    },
};

pub fn rule<'a>() -> Rule<BriefView<'a>> {
    Rule { info: &INFO, check }
}

const VERBS: &[&str] = &[
    "return", "respond", "exit", "print", "emit", "contain", "list", "create", "write", "reject", "fail", "pass",
    "equal", "match", "refuse", "produce", "output", "log", "show", "display", "report", "raise", "throw", "accept",
    "store", "delete", "remove", "send", "receive", "complete", "finish", "succeed", "render", "redirect", "generate",
    "compile", "load", "read", "parse", "validate", "include", "exclude", "appear", "exist", "block", "allow", "deny",
    "open", "close", "start", "stop", "run", "record", "count", "publish", "upload", "download", "restore", "retry",
    "time", "persist", "serve", "build", "install", "sort", "merge",
];

const UNITS: &[&str] = &[
    "ms",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "h",
    "hr",
    "hour",
    "hours",
    "day",
    "days",
    "%",
    "percent",
    "b",
    "byte",
    "bytes",
    "kb",
    "kib",
    "mb",
    "mib",
    "gb",
    "gib",
    "tb",
    "rps",
    "qps",
    "req/s",
    "line",
    "lines",
    "file",
    "files",
    "item",
    "items",
    "row",
    "rows",
    "entry",
    "entries",
    "record",
    "records",
    "request",
    "requests",
    "error",
    "errors",
    "retry",
    "retries",
    "attempt",
    "attempts",
    "time",
    "times",
    "character",
    "characters",
    "chars",
    "x",
    "loc",
    "test",
    "tests",
    "warning",
    "warnings",
];

const COMPARISONS: &[&str] = &[
    "<",
    ">",
    "<=",
    ">=",
    "≤",
    "≥",
    "at most",
    "at least",
    "within",
    "under",
    "over",
    "no more than",
    "no less than",
    "fewer than",
    "less than",
    "more than",
    "exactly",
    "below",
    "above",
    "up to",
];

const VAGUE: &[&str] = &[
    "works",
    "work",
    "working",
    "properly",
    "correctly",
    "as expected",
    "better",
    "improved",
    "clean",
    "robust",
    "fast",
    "seamless",
    "seamlessly",
    "user-friendly",
    "nicely",
    "smoothly",
    "efficiently",
    "appropriately",
];

/// What the rubric found in one criterion.
#[derive(Debug, PartialEq, Eq)]
pub struct Assessment {
    pub observable: Option<String>,
    pub verb: Option<String>,
    pub vague: Vec<&'static str>,
}

impl Assessment {
    pub fn testable(&self) -> bool {
        self.observable.is_some() && self.verb.is_some()
    }
}

/// Applies the rubric to one criterion.
pub fn assess(text: &str) -> Assessment {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '.' | '!' | '?' | ':'))
        .filter(|w| !w.is_empty())
        .collect();
    let verb = words.iter().find(|w| is_verb(w)).map(|w| w.to_string());
    let vague = VAGUE.iter().copied().filter(|v| contains_phrase(&words, v)).collect();
    Assessment { observable: observable(text, &words), verb, vague }
}

/// A verb of the list in any regular tense, or one of the irregular forms.
/// Strips suffixes rather than building forms: no allocation per word.
fn is_verb(word: &str) -> bool {
    const IRREGULAR: &[&str] = &["wrote", "written", "ran", "sent", "built", "shown", "thrown"];
    if IRREGULAR.contains(&word) || VERBS.contains(&word) {
        return true;
    }
    let stem_is_verb = |stem: &str| {
        VERBS.iter().any(|v| *v == stem || (v.len() == stem.len() + 1 && v.starts_with(stem) && v.ends_with('e')))
    };
    ["s", "es", "ed", "d", "ing"].iter().any(|suffix| word.strip_suffix(suffix).is_some_and(stem_is_verb))
        || word.strip_suffix("ies").is_some_and(|stem| VERBS.iter().any(|v| v.strip_suffix('y') == Some(stem)))
        || word.strip_suffix("ied").is_some_and(|stem| VERBS.iter().any(|v| v.strip_suffix('y') == Some(stem)))
}

fn contains_phrase(words: &[&str], phrase: &str) -> bool {
    let parts: Vec<&str> = phrase.split(' ').collect();
    words.windows(parts.len()).any(|w| w == parts.as_slice())
}

fn observable(text: &str, words: &[&str]) -> Option<String> {
    if let Some(span) = between(text, '`', '`') {
        return Some(format!("`{span}`"));
    }
    for (open, close) in [('"', '"'), ('“', '”'), ('\'', '\'')] {
        if let Some(q) = between(text, open, close).filter(|q| !q.trim().is_empty()) {
            return Some(format!("{open}{q}{close}"));
        }
    }
    for (i, word) in words.iter().enumerate() {
        let (number, unit) = split_number(word);
        let Some(number) = number else { continue };
        if !unit.is_empty() && UNITS.contains(&unit) {
            return Some(word.to_string());
        }
        if unit.is_empty() {
            if words.get(i + 1).is_some_and(|next| UNITS.contains(next)) {
                return Some(format!("{word} {}", words[i + 1]));
            }
            if number.len() == 3 && (100..600).contains(&number.parse::<u32>().unwrap_or(0)) {
                return Some(format!("status {word}"));
            }
            let before = &words[i.saturating_sub(3)..i];
            if before.iter().any(|w| w.starts_with("exit") || *w == "code" || *w == "status") {
                return Some(format!("exit code {word}"));
            }
            if COMPARISONS.iter().any(|c| {
                let parts: Vec<&str> = c.split(' ').collect();
                before.ends_with(&parts) || before.last().is_some_and(|w| w.ends_with(*c))
            }) {
                return Some(format!("comparison with {word}"));
            }
        }
    }
    None
}

/// Splits `100ms` into (`100`, `ms`); `None` when the word has no leading number.
fn split_number(word: &str) -> (Option<&str>, &str) {
    let word = word.trim_start_matches(['<', '>', '=', '≤', '≥', '~']);
    let end = word.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(word.len());
    let number = &word[..end];
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        return (None, "");
    }
    (Some(number.trim_end_matches('.')), &word[end..])
}

fn between(text: &str, open: char, close: char) -> Option<&str> {
    let start = text.find(open)? + open.len_utf8();
    if open == '\'' && text[..start - 1].chars().last().is_some_and(char::is_alphanumeric) {
        return None;
    }
    let len = text[start..].find(close)?;
    let inner = &text[start..start + len];
    (!inner.is_empty()).then_some(inner)
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (text, node) in brief.strings("success_criteria") {
            let a = assess(text);
            if a.testable() {
                continue;
            }
            let mut missing = Vec::new();
            if a.observable.is_none() {
                missing.push("no observable (a `code span`, a \"quoted string\", a status or exit code, or a number with a unit or comparison)");
            }
            if a.verb.is_none() {
                missing.push("no checkable verb (returns, exits, prints, contains, rejects, …)");
            }
            let vague = match a.vague.len() {
                0 => String::new(),
                1 => format!("; \"{}\" is vague", a.vague[0]),
                _ => format!("; \"{}\" are vague", a.vague.join("\", \"")),
            };
            let width = text.chars().count() as u32 + if node.scalar().is_some_and(|s| s.plain) { 0 } else { 2 };
            sink.emit(brief.path, Span::at(node.line, node.col, width), format!("criterion:{text}"), format!("success criterion \"{text}\" is not testable: it has {}{vague}", missing.join(" and ")))
                .help("state what a test would assert, e.g. \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adr_examples() {
        assert!(!assess("the feature works").testable());
        assert!(assess("endpoint returns 200 with the documented schema").testable());
    }

    #[test]
    fn observables_and_verbs() {
        for ok in [
            "`scripts/backup.sh --dry-run` exits 0 and prints the bucket name",
            "the restore completes within 15 minutes",
            "p99 latency stays under 10ms and the report lists it",
            "the CLI prints \"backup complete\"",
            "`make test` passes",
            "the job exits with code 3 on a missing bucket",
            "the importer rejects rows over 1 MB",
            "the backup wrote 3 files",
        ] {
            assert!(assess(ok).testable(), "{ok}: {:?}", assess(ok));
        }
        for bad in [
            "backups work properly",
            "the code is clean and robust",
            "performance is improved",
            "it returns the right thing",
            "`backup.sh` is nice",
            "we're fast",
        ] {
            assert!(!assess(bad).testable(), "{bad}: {:?}", assess(bad));
        }
        assert_eq!(assess("it works as expected").vague, vec!["works", "as expected"]);
    }
}
