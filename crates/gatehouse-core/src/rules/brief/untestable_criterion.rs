//! ADR-099's testability rubric applied to every success criterion (the
//! rubric itself is in `criterion`): an error where it is certain (empty,
//! or nothing a test could look at), a warning with a testable rewrite where
//! only its word lists doubt a criterion that names an observable.

use super::BriefView;
use super::criterion::{Assessment, VagueKind, Verdict, assess};
use crate::model::{Severity, Sink, Span};

declare_rule! {
    id: "brief/untestable-criterion",
    view: BriefView,
    severity: Error,
    summary: "each success criterion names something a test could observe and says something definite about it",
    why: "ADR-099: \"every entry under success_criteria has to be something a test could assert — a phrase \
like 'the feature works' fails this check; 'endpoint returns 200 with the documented schema' passes.\" \
How it decides: the rule reads each criterion for an OBSERVABLE — a `code span`, a \"quoted string\", a \
number (a status or exit code, a bound, a count, a time), an identifier, path, flag, header or proper name \
(`retention_days`, /metrics, --force, Retry-After, the Billing tab), or a named thing of the system (the \
sessions table, the login page, focus, a purchase) — and for what is said of it: a verb in any form, \
`is`/`are`, a state (visible, disabled, empty) or a comparison. Full sentences, Given/When/Then, EARS \
\"shall\", \"should\", negations, questions and checklist shorthand without a verb (\"Spinner while \
loading\") are all read.\n\n\
What BLOCKS (an error) is only what the rule is certain of: an empty criterion, or one that names nothing a \
test could look at — no command, output, state, value, count, UI element, response, file, message or \
behaviour, only words like \"the feature works\", \"is robust\", \"improve UX\", \"code is clean\".\n\n\
What WARNS is a criterion that names something a test could look at but says of it only what a word list \
reads as vague, since a word list judges words, not what a test would observe. The warning says what a \
test could not observe and gives a testable rewrite built on the criterion's own observable:\n\n\
- a QUALITY word with no measure: fast, robust, intuitive, actionable, safe, compatible, or what people feel \
(\"users like the new layout\");\n\
- a HEDGE that is all that is said: \"behaves correctly\", \"is handled appropriately\", \"the expected \
output\";\n\
- a CATCH-ALL: \"handles errors\", \"edge cases are covered\";\n\
- an ASPIRATION without a target: improve, reduce, minimise, strive for;\n\
- a PROCESS step about the team rather than the system: \"Documentation updated\", \"PR merged\", \
\"follows existing conventions\";\n\
- a single noun with nothing said of it, or a behaviour with nothing named that it is of (\"It compiles\").\n\n\
What is not vague: a quality, hedge or catch-all pinned down by what comes after it — a number, a quoted \
output or a code span (its measure or baseline: \"under 200 ms\", \"20% faster than v1\"), or a testable \
explanation (\"the API is fast: p95 under 300 ms\"); a hedging adverb on a verb that names a behaviour \
(\"Modals trap and restore focus correctly\"); the outcome of a run (\"`terraform plan` runs clean\"); \
an action users take in the system (\"users can complete a purchase\"); and, in Given/When/Then, the \
case before `then`, which a test sets up and does not assert. A word capitalised inside a lower-case \
sentence names a value or a control (\"every node reports Ready\") and is not read as a quality or a \
step.\n\n\
A criterion in another language than English is never blocked: it passes when it holds a code span, a \
quote or a number, and otherwise gets a notice that it was not judged. Figures on the held-out criteria \
corpus, and the command that measures them, are in docs/documents.md.\n\n\
Passes: \"p99 latency of `GET /search` stays under 200 ms at 50 requests per second\"; \"after logout the \
user is redirected to the login page\"; \"Toggle visible on every header variant\". Warns: \"the nightly \
run is fast\"; \"Documentation updated\". Fails: \"the feature works\"; \"handles errors gracefully\"; an \
empty criterion.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (text, node) in brief.strings("success_criteria") {
            let a = assess(text);
            let (severity, message) = match a.verdict() {
                Verdict::Testable => continue,
                Verdict::Untestable if a.empty => (
                    Severity::Error,
                    "success criterion is empty: there is nothing in it for a test to assert".to_string(),
                ),
                Verdict::Untestable => {
                    (Severity::Error, format!("success criterion \"{text}\" is not testable: {}", why(&a)))
                }
                Verdict::Unsure => (
                    Severity::Warning,
                    format!("success criterion \"{text}\" may not be testable: {}", unobservable(&a)),
                ),
                Verdict::Unread => (
                    Severity::Notice,
                    format!(
                        "success criterion \"{text}\" was not judged: it is not in English, the only language the testability check reads"
                    ),
                ),
            };
            let width = text.chars().count() as u32 + if node.is_plain() { 0 } else { 2 };
            sink.emit(brief.path, Span::at(node.line(), node.col(), width), format!("criterion:{text}"), message)
                .help(help(&a))
                .severity(severity);
        }
    }
}

/// Each vague phrase the rubric found, quoted, with what it leaves a test
/// without.
fn vague_reasons(a: &Assessment) -> Vec<String> {
    let mut reasons = Vec::new();
    for kind in [VagueKind::Quality, VagueKind::Hedge, VagueKind::Catchall, VagueKind::Aspiration, VagueKind::Process] {
        let terms: Vec<String> = a.vague.iter().filter(|v| v.kind == kind).map(|v| format!("\"{}\"", v.text)).collect();
        if !terms.is_empty() {
            reasons.push(format!("{} {}", terms.join(", "), kind.reason()));
        }
    }
    reasons
}

/// Why a criterion is certainly untestable: it names nothing to look at.
fn why(a: &Assessment) -> String {
    let mut reasons = vec![
        "it names nothing a test could look at (no command, output, state, value, count, UI element, response, file or message)"
            .to_string(),
    ];
    reasons.extend(vague_reasons(a));
    reasons.join("; ")
}

/// What a test could not observe in a criterion that names something.
fn unobservable(a: &Assessment) -> String {
    let thing = a.subject.as_deref().unwrap_or("it");
    let reasons = vague_reasons(a);
    if a.behaviour_only && reasons.is_empty() {
        format!(
            "a test could see \"{thing}\" happen but the criterion names nothing it is of (no command, output, file, page or value)"
        )
    } else if reasons.is_empty() {
        format!(
            "a test could look at \"{thing}\" but the criterion says nothing about it (no verb, state or comparison)"
        )
    } else {
        format!("a test could look at \"{thing}\" but not observe what is asked of it: {}", reasons.join("; "))
    }
}

/// What kind of thing a criterion's observable is, for a rewrite that fits
/// it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A route or a request: `/backups`, `GET /search`.
    Endpoint,
    /// Any other code span: a command, a script, a file.
    Command,
    /// A thing named in words: the nightly run, the settings page.
    Thing,
}

impl Shape {
    fn of(observable: &str) -> Shape {
        let code = observable.strip_prefix('`');
        let route = |c: &str| {
            c.starts_with('/') || ["GET ", "POST ", "PUT ", "PATCH ", "DELETE "].iter().any(|m| c.starts_with(m))
        };
        match code {
            Some(c) if route(c) => Shape::Endpoint,
            Some(_) => Shape::Command,
            None => Shape::Thing,
        }
    }
}

/// A testable rewrite for what the rubric found, built on the criterion's
/// own subject where it names one.
fn help(a: &Assessment) -> String {
    if a.foreign {
        return "name what a test observes (a status or exit code, an output, a file, a field, a UI element's state, a metric with a bound) and what must hold of it; a code span, a quoted output or a number is read in any language".to_string();
    }
    let (Some(observable), Some(thing)) = (a.observable.as_deref(), a.subject.as_deref()) else {
        return "name what a test observes and what must hold of it, for example \"`GET /backups` returns 200 and lists the newest backup first\" or \"`backup.sh --dry-run` exits 0 and prints the bucket name\"".to_string();
    };
    if a.behaviour_only && a.vague.is_empty() {
        return format!(
            "name what {thing} and what a test sees then (an exit code, an output, a state), for example \"`scripts/restore.sh` restores the newest backup and exits 0\""
        );
    }
    let shape = Shape::of(observable);
    let example = match (a.vague.first().map(|v| v.kind), shape) {
        (Some(VagueKind::Process), _) => {
            return "state what the finished work makes true of the system instead of the step, for example \"`docs/api.md` documents the `--since` flag\" or \"`GET /backups` returns 200\"".to_string();
        }
        (Some(VagueKind::Quality), _) => quality_rewrite(&a.vague[0].text, thing, shape),
        (Some(VagueKind::Hedge), Shape::Endpoint) => format!("{thing} returns 200 with the documented schema"),
        (Some(VagueKind::Hedge), Shape::Command) => format!("{thing} exits 0 and prints the number of rows it wrote"),
        (Some(VagueKind::Hedge), Shape::Thing) => format!(
            "{thing} {} a row with no id and {} its line",
            agree(thing, "rejects", "reject"),
            agree(thing, "names", "name")
        ),
        (Some(VagueKind::Catchall), Shape::Endpoint) => {
            format!("{thing} returns 400 with a `detail` field for a malformed body")
        }
        (Some(VagueKind::Catchall), _) => {
            format!("given an empty file, {thing} exits 2 and prints the line of the bad row")
        }
        (Some(VagueKind::Aspiration), _) => {
            format!("{thing} {} under 300 ms at p95, down from 450 ms", agree(thing, "takes", "take"))
        }
        (None, Shape::Endpoint) => format!("{thing} returns 200 and lists the newest item first"),
        (None, Shape::Command) => format!("{thing} exits 0 and prints a summary line"),
        (None, Shape::Thing) => format!("{thing} {} visible on the settings page", agree(thing, "is", "are")),
    };
    format!("say what a test observes, for example \"{example}\"")
}

/// The verb form that agrees with `thing`: plural when it ends in a plural
/// noun written in words ("backups"), singular otherwise.
fn agree<'a>(thing: &str, singular: &'a str, plural: &'a str) -> &'a str {
    let last = thing.rsplit(' ').next().unwrap_or(thing);
    let plural_noun = last.ends_with('s') && !last.ends_with("ss") && last.chars().all(char::is_alphabetic);
    if plural_noun { plural } else { singular }
}

/// A rewrite for a quality word, by what the quality is about.
fn quality_rewrite(word: &str, thing: &str, shape: Shape) -> String {
    let w = word.to_lowercase();
    let has = |stems: &[&str]| stems.iter().any(|s| w.contains(s));
    if has(&["fast", "quick", "slow", "snapp", "perform", "respons", "efficien", "timely", "latenc", "speed"]) {
        match shape {
            Shape::Endpoint => format!(
                "{thing} {} in under 300 ms at p95 at 50 requests per second",
                agree(thing, "answers", "answer")
            ),
            _ => format!("{thing} {} in under 20 minutes on the 10 GB fixture", agree(thing, "finishes", "finish")),
        }
    } else if has(&["robust", "reliab", "stab", "resilien", "dependab", "graceful", "harden", "work"]) {
        match shape {
            Shape::Endpoint => format!(
                "{thing} {} 503 with `Retry-After` while the database is down",
                agree(thing, "returns", "return")
            ),
            _ => format!(
                "{thing} {} when its input file is missing",
                agree(thing, "exits non-zero and names the file", "exit non-zero and name the file")
            ),
        }
    } else if has(&["secur", "safe"]) {
        format!("{thing} {} 401 to a request without a valid token", agree(thing, "answers", "answer"))
    } else if has(&["clean", "maintain", "readab", "idiomat", "elegan", "simpl", "quality"]) {
        format!("`make lint` reports nothing for {thing}")
    } else if has(&["happy", "satisf", "pleas", "comfort", "confiden", "delight", "love", "like", "enjoy", "trust"]) {
        format!("8 of 10 test users finish the restore on {thing} without help")
    } else {
        format!("a new user reaches the restore form on {thing} in at most 3 clicks")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_says_nothing_is_observable_and_a_warning_what_is_not() {
        assert_eq!(
            why(&assess("it works properly")),
            "it names nothing a test could look at (no command, output, state, value, count, UI element, response, file or message); \
\"works\" names a quality with nothing measurable to check it by; \"properly\" says the result is right without saying what right is"
        );
        assert_eq!(
            unobservable(&assess("backups work properly")),
            "a test could look at \"backups\" but not observe what is asked of it: \"work\" names a quality with nothing measurable to \
check it by; \"properly\" says the result is right without saying what right is"
        );
        assert_eq!(
            unobservable(&assess("backups")),
            "a test could look at \"backups\" but the criterion says nothing about it (no verb, state or comparison)"
        );
        assert_eq!(
            unobservable(&assess("the PR is reviewed")),
            "a test could look at \"the PR\" but not observe what is asked of it: \"reviewed\" is a step of the team's process, not \
something the system does"
        );
    }

    #[test]
    fn a_warning_offers_a_rewrite_on_the_criterions_own_subject() {
        assert_eq!(
            help(&assess("the nightly run is fast")),
            "say what a test observes, for example \"the nightly run finishes in under 20 minutes on the 10 GB fixture\""
        );
        assert_eq!(
            help(&assess("`GET /backups` is fast")),
            "say what a test observes, for example \"`GET /backups` answers in under 300 ms at p95 at 50 requests per second\""
        );
        assert_eq!(
            help(&assess("`restore.sh` behaves correctly on an empty bucket")),
            "say what a test observes, for example \"`restore.sh` exits 0 and prints the number of rows it wrote\""
        );
        assert!(help(&assess("the feature works")).contains("`GET /backups` returns 200"));
        assert_eq!(
            help(&assess("It compiles")),
            "name what compiles and what a test sees then (an exit code, an output, a state), for example \"`scripts/restore.sh` restores the newest backup and exits 0\""
        );
    }

    #[test]
    fn the_verdict_blocks_only_where_it_is_certain() {
        for certain in [
            "",
            "  ",
            "the feature works",
            "is robust",
            "improve UX",
            "code is clean",
            "Done",
            "Implementation completed",
        ] {
            assert_eq!(assess(certain).verdict(), Verdict::Untestable, "{certain:?}");
        }
        for unsure in [
            "Documentation updated",
            "the `/backups` page is intuitive",
            "the `/backups` page is handled appropriately",
            "backups",
        ] {
            assert_eq!(assess(unsure).verdict(), Verdict::Unsure, "{unsure}");
        }
        assert_eq!(assess("Sync on reconnection").verdict(), Verdict::Testable);
        assert_eq!(assess("Toggle visible on every header variant").verdict(), Verdict::Testable);
        assert_eq!(assess("Die Dokumentation ist aktualisiert").verdict(), Verdict::Unread);
        assert_eq!(assess("Die API antwortet mit `401`").verdict(), Verdict::Testable);
    }
}
