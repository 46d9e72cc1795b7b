//! ADR-099's testability rubric applied to every success criterion (the
//! rubric itself is in `criterion`).

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
sessions table, the login page) — and for what is said of it: a verb in any form, `is`/`are`, a state \
(visible, disabled, empty) or a comparison. Full sentences, Given/When/Then, \"should\", negations, \
questions and checklist shorthand without a verb (\"Spinner while loading\") are all read. It also reads \
what is vague:\n\n\
- a QUALITY word with no measure: works, robust, intuitive, fast, actionable, meaningful, sensible, safe, \
compatible, accessible, \"within expected ranges\", or what people feel (\"users like the new layout\");\n\
- a HEDGE that leaves the expected result unsaid: correctly, properly, as expected, appropriate;\n\
- a CATCH-ALL: \"handles errors\", \"edge cases are handled\", \"all cases covered\";\n\
- an ASPIRATION without a target: improve, reduce, minimise, strive for, ideally, \"data size optimisation\";\n\
- a PROCESS step about the team rather than the system, in any word form: \"Documentation updated\", \
\"Implementation completed\", \"Update the changelog\", \"PR merged\", \"Tested on phone and tablet\", \
\"self-review done\", \"follows existing conventions\".\n\n\
A word capitalised inside a lower-case sentence names a value or a control (\"every node reports Ready\", \
\"the dialog closes when Done is clicked\") and is not read as a quality or a step.\n\n\
A quality word or an aspiration is pinned down by a number, a quoted output or a code span after it (its \
measure or baseline), a testable explanation (\"the API is fast: p95 under 300 ms\"), or, for a comparison \
along a measured dimension, the baseline it names (\"20% faster than v1\"); a number or code span before it \
names what it is said of, not a measure (\"All 12 screens look polished\", \"The API is 10x better\", \
\"`gatehouse explain` is helpful\"), and a quality that names a measured quantity (\"relevance score\") is no \
quality word. A catch-all is pinned down the same way, by what comes after it (\"covered by \
`tests/parser_edges.rs`\"), not by the place before it (\"Edge cases in `src/parser.rs` are covered\"). A \
person's feelings (\"Marcus is comfortable with the design\"), whatever follows them, and the team or a \
product owner as the subject of a step (\"the team reviews it\", \"Product owner accepts the story\") are not \
assertions about the system. A hedge by a particular observable or \
condition, unless it qualifies a verb that names no behaviour (\"behaves correctly for admins\", \"is \
handled appropriately\"); a process step by a code span, a quoted string, a path or a file name (\"`docs/api.md` \
documents the `--since` flag\").\n\n\
Severity follows confidence. An ERROR only when the rule is confident: something vague that nothing pins \
down (a quality, a catch-all, an aspiration or a process step, whatever numbers or code spans stand \
elsewhere in the criterion), or nothing observable at all. A WARNING, \"could not find what a test would \
observe\", when it is unsure: a hedge beside a concrete observable (the verb it qualifies may be particular \
enough to test), or a single noun with nothing said of it. Nothing when it is testable. A criterion in another language than English is \
never blocked: it passes when it holds a code span, a quote or a number, and otherwise gets a notice that \
it was not judged. Each finding names the words it judged and what would make the criterion testable. \
Figures on the project's criteria corpus are in docs/documents.md.\n\n\
Passes: \"p99 latency of `GET /search` stays under 200 ms at 50 requests per second\"; \"after logout the \
user is redirected to the login page\"; \"Toggle visible on every header variant\". Fails: \"the feature \
works\"; \"handles errors gracefully\"; \"Documentation updated\".",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (text, node) in brief.strings("success_criteria") {
            let a = assess(text);
            let (severity, message) = match a.verdict() {
                Verdict::Testable => continue,
                Verdict::Untestable => {
                    (Severity::Error, format!("success criterion \"{text}\" is not testable: {}", why(&a)))
                }
                Verdict::Unsure => (
                    Severity::Warning,
                    format!("could not find what a test would observe in success criterion \"{text}\": {}", why(&a)),
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

/// What the rubric judged, in its words: each vague phrase and what it
/// lacks, or what is missing.
fn why(a: &Assessment) -> String {
    let mut reasons = Vec::new();
    for kind in [VagueKind::Quality, VagueKind::Hedge, VagueKind::Catchall, VagueKind::Aspiration, VagueKind::Process] {
        let terms: Vec<String> = a.vague.iter().filter(|v| v.kind == kind).map(|v| format!("\"{}\"", v.text)).collect();
        if !terms.is_empty() {
            reasons.push(format!("{} {}", terms.join(", "), kind.reason()));
        }
    }
    match (&a.observable, &a.predicate) {
        (None, _) => reasons.push("it names nothing a test could look at".to_string()),
        (Some(thing), None) if a.vague.is_empty() => {
            reasons.push(format!("it names \"{thing}\" but says nothing about it (no verb, state or comparison)"))
        }
        _ => {}
    }
    reasons.join("; ")
}

/// What would make the criterion testable, for what the rubric found.
fn help(a: &Assessment) -> String {
    if a.foreign {
        return "name what a test observes (a status or exit code, an output, a file, a field, a UI element's state, a metric with a bound) and what must hold of it; a code span, a quoted output or a number is read in any language".to_string();
    }
    let first = a.vague.first().map(|v| v.kind);
    match first {
        Some(VagueKind::Quality) => "pin the quality down with a measure a test can compare: a number with a bound, a quoted output, or a clause that says what is observed (\"is fast: p95 under 300 ms\")",
        Some(VagueKind::Hedge) => "say what the right result is: the value, status, output or state a test compares against (\"rejects rows with a missing id column\")",
        Some(VagueKind::Catchall) => "say what the system does in that case and how a test sees it (\"exits 2 and prints the line number of the bad row\")",
        Some(VagueKind::Aspiration) => "give the target a test can check (\"p95 under 300 ms\", \"at most 2 clicks from the home page\")",
        Some(VagueKind::Process) => "state what the finished work makes true of the system instead of the step (\"`docs/api.md` documents the `--since` flag\", \"`GET /backups` returns 200\")",
        None => "name what a test observes (a status or exit code, an output, a file, a field, a UI element's state, a metric with a bound, an event, a count, a time) and what must hold of it (\"`GET /backups` returns 200 and lists the newest backup first\")",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_what_is_vague() {
        assert_eq!(
            why(&assess("backups work properly")),
            "\"work\" names a quality with nothing measurable to check it by; \"properly\" says the result is right without saying what right is"
        );
        assert_eq!(
            why(&assess("backups")),
            "it names \"backups\" but says nothing about it (no verb, state or comparison)"
        );
        assert_eq!(
            why(&assess("the PR is reviewed")),
            "\"reviewed\" is a step of the team's process, not something the system does"
        );
    }

    #[test]
    fn the_verdict_carries_its_confidence() {
        assert_eq!(assess("Documentation updated").verdict(), Verdict::Untestable);
        assert_eq!(assess("Implementation completed").verdict(), Verdict::Untestable);
        // A code span names what a quality is said of, not its measure.
        assert_eq!(assess("the `/backups` page is intuitive").verdict(), Verdict::Untestable);
        assert_eq!(assess("the `/backups` page is handled appropriately").verdict(), Verdict::Unsure);
        assert_eq!(assess("backups").verdict(), Verdict::Unsure);
        assert_eq!(assess("Sync on reconnection").verdict(), Verdict::Testable);
        assert_eq!(assess("Toggle visible on every header variant").verdict(), Verdict::Testable);
        assert_eq!(assess("Die Dokumentation ist aktualisiert").verdict(), Verdict::Unread);
        assert_eq!(assess("Die API antwortet mit `401`").verdict(), Verdict::Testable);
    }
}
