//! ADR-099's testability rubric applied to every success criterion (the
//! rubric itself is in `criterion`).

use super::BriefView;
use super::criterion::{Assessment, VagueKind, assess};
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/untestable-criterion",
    view: BriefView,
    severity: Error,
    summary: "each success criterion names something a test could observe and says something definite about it",
    why: "ADR-099: \"every entry under success_criteria has to be something a test could assert — a phrase \
like 'the feature works' fails this check; 'endpoint returns 200 with the documented schema' passes.\" \
The rubric flags what is vague instead of requiring a listed form. A criterion passes when it names an \
OBSERVABLE — a `code span`, a \"quoted string\", a number (with a unit, a comparison, a status or exit \
code), an identifier, path, flag, header or proper name (`retention_days`, /metrics, --force, \
Retry-After, the Billing tab), or any named thing of the system (the sessions table, the login page) — \
and says anything about it (a verb in any form, `is`/`are`, a comparison). It fails only when it is \
vague:\n\n\
- a QUALITY word with no measurable referent: works, robust, gracefully, seamless, user-friendly, \
intuitive, clean, fast, reliable, scalable, better, improved, \"is fixed\", \"latency is low\";\n\
- a HEDGE that leaves the expected result unsaid: correctly, properly, as expected, the right …;\n\
- a CATCH-ALL: \"handles errors\", \"edge cases are handled\";\n\
- an ASPIRATION without a target: minimise, reduce, improve, aim for, where possible;\n\
- a PROCESS statement about the team rather than the system: \"code is reviewed\", \"QA approves\", \
\"the PR is merged\", \"tests are written\", \"follows best practices\".\n\n\
A quality word or an aspiration is pinned down, and passes, by a number, a quoted output, a code span \
after it, or an explanation that is itself testable (\"the API is fast: p95 under 300 ms\", \"robust to \
malformed rows: it skips them and reports their line numbers\"). A hedge passes when the criterion names \
a particular observable or condition (\"correctly rejects rows with a missing id column\"). Process \
statements never pass: a test cannot assert them.\n\n\
Passes: \"p99 latency of `GET /search` stays under 200 ms at 50 requests per second\"; \"the migration \
adds a `retention_days` column to the `backups` table\"; \"after logout the user is redirected to the \
login page\". Fails: \"the feature works\"; \"handles errors gracefully\"; \"the system is robust\".",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for (text, node) in brief.strings("success_criteria") {
            let a = assess(text);
            if a.testable() {
                continue;
            }
            let width = text.chars().count() as u32 + if node.is_plain() { 0 } else { 2 };
            sink.emit(
                brief.path,
                Span::at(node.line(), node.col(), width),
                format!("criterion:{text}"),
                format!("success criterion \"{text}\" is not testable: {}", why(&a)),
            )
            .help("name what a test observes and what it asserts about it, e.g. \"`GET /backups` returns 200 and lists the newest backup first\" or \"the restore completes within 15 minutes\"; a quality word passes when a number, a quoted output or a concrete clause pins it down (\"is fast: p95 under 300 ms\")");
        }
    }
}

/// Why a criterion failed, in the rubric's words.
fn why(a: &Assessment) -> String {
    let mut reasons = Vec::new();
    for kind in [VagueKind::Quality, VagueKind::Hedge, VagueKind::Catchall, VagueKind::Aspiration, VagueKind::Process] {
        let terms: Vec<String> = a.vague.iter().filter(|v| v.kind == kind).map(|v| format!("\"{}\"", v.text)).collect();
        if terms.is_empty() {
            continue;
        }
        let what = match kind {
            VagueKind::Quality => "names a quality with nothing measurable to check it by",
            VagueKind::Hedge => "says the result is right without saying what right is",
            VagueKind::Catchall => "says something is dealt with without saying how a test would see it",
            VagueKind::Aspiration => "is a goal without a target",
            VagueKind::Process => "is a step of the team's process, not something the system does",
        };
        reasons.push(format!("{} {what}", terms.join(", ")));
    }
    if a.observable.is_none() {
        reasons.push("it names nothing a test could look at".to_string());
    }
    if a.predicate.is_none() {
        reasons.push("it says nothing about what it names (no verb or comparison)".to_string());
    }
    reasons.join("; ")
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
        assert_eq!(why(&assess("backups")), "it says nothing about what it names (no verb or comparison)");
        assert_eq!(
            why(&assess("the PR is reviewed")),
            "\"reviewed\" is a step of the team's process, not something the system does"
        );
    }
}
