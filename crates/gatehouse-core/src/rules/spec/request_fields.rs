use super::SpecView;
use crate::docs::spec::files::is_sha;
use crate::docs::spec::review::Kind;
use crate::docs::spec::state::Topic;
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/request-fields",
    view: SpecView,
    severity: Error,
    summary: "requests (and answers) carry Subject / Build / Gates / Since / KB as the topic needs",
    why: "fondue `spec` v9, review/<topic>/: \"`phase-NN` and the audit topics are code topics: their requests \
and answers carry `Build:` and `Gates:`. The request of a lens topic also carries the `Since:` field\"; \
`handover` \"runs no build. Its request carries two more fields, and its answers repeat `KB:`\": `- \
**Since:** <sha>` and `- **KB:** kb.py status --since <sha> - clean` (only when the project has a \
knowledge base), where `<sha>` is \"the commit on the first line of `landed.md`\". Every request names its \
`Subject:`. The reviewer judges exactly what these fields name.",
    bad: "fondue/specs/retry-queue/review/phase-02/00-request.md",
    good: Example {
        path: "fondue/specs/retry-queue/review/phase-02/00-request.md",
        text: include_str!(
            "../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/phase-02/00-request.md"
        ),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        for (topic, entry) in spec.review_files() {
            let (Some(topic), Some((_, kind))) = (topic, entry.numbered) else { continue };
            let needed = needed(topic, kind, view.has_kb);
            let doc = &entry.doc;
            let path = spec.path(entry.rel);
            let at = doc.fields.first().map_or(1, |f| f.line);
            for name in needed {
                match doc.field(name) {
                    None => {
                        sink.emit(
                            &path,
                            Span::line(at),
                            name,
                            format!("this {} of `{}` has no `- **{name}:**` field", kind.as_str(), topic.dir()),
                        )
                        .help(format!("add `- **{name}:** …`; {}", about(name)));
                    }
                    Some(f) if f.value.is_empty() => {
                        sink.emit(&path, Span::line(f.line), name, format!("`{name}:` is empty")).help(about(name));
                    }
                    Some(f) => value_problem(name, &f.value, f.line, &path, sink),
                }
            }
            // `<sha>` is the commit on the first line of landed.md.
            if let (Some(since), Some(first)) = (doc.field("Since"), spec.landed.first()) {
                let sha = since.value.split_whitespace().next().unwrap_or("").trim_matches('`');
                if is_sha(sha) && !(first.sha.starts_with(sha) || sha.starts_with(first.sha.as_str())) {
                    sink.emit(
                        &path,
                        Span::line(since.line),
                        "Since",
                        format!("`Since:` names `{sha}`, but the first line of landed.md is `{}`", first.sha),
                    )
                    .help("the spec's code begins at the commit on the first line of landed.md: use that sha");
                }
            }
        }
    }
}

/// The fields a file of `topic` needs.
fn needed(topic: Topic, kind: Kind, has_kb: bool) -> Vec<&'static str> {
    let mut out = Vec::new();
    match kind {
        Kind::Request => {
            out.push("Subject");
            if topic.is_code() {
                out.extend(["Build", "Gates"]);
            }
            if topic.is_lens() || topic == Topic::Handover {
                out.push("Since");
            }
        }
        Kind::Answer if topic.is_code() => out.extend(["Build", "Gates"]),
        _ => {}
    }
    if topic == Topic::Handover && kind != Kind::Review && has_kb {
        out.push("KB");
    }
    out
}

fn value_problem(name: &str, value: &str, line: u32, path: &str, sink: &mut Sink) {
    let first = value.split_whitespace().next().unwrap_or("").trim_matches('`');
    if name == "Since" && !is_sha(first) {
        sink.emit(path, Span::line(line), name, format!("`Since:` starts with `{first}`, not a commit sha"))
            .help(about(name));
    }
    if name == "KB" && !value.trim_end_matches('`').trim_end().ends_with("clean") {
        sink.emit(path, Span::line(line), name, "`KB:` does not report `clean`").help(about(name));
    }
}

fn about(name: &str) -> &'static str {
    match name {
        "Subject" => "the subject is the draft, the phase files, the commit range or the request file under review",
        "Build" => "report the build command and that it is green",
        "Gates" => "report every gate the phase file (or audit/findings.md) names, with its result",
        "Since" => {
            "`- **Since:** <sha> - the spec's code is git diff <sha>..<the commit before the subject>`, with <sha> the first line of landed.md"
        }
        _ => "`- **KB:** kb.py status --since <sha> - clean`",
    }
}
