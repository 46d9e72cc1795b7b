use super::SpecView;
use crate::docs::spec::review::Kind;
use crate::docs::spec::state::Topic;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/review-numbering",
    view: SpecView,
    severity: Error,
    summary: "review/<topic>/ holds one gapless sequence 00-request, 01-review, 02-answer, …",
    why: "fondue `spec` v9 lays out `review/<topic>/` as `00-request.md, 01-review.md, 02-answer.md, ...` for the \
topics `pre-plan`, `plan`, `phase-NN`, `audit-tests`, `audit-conventions`, `audit-fixes` and `handover`. \
With the engine (docs/seed-coverage.md, Engine formats) a topic is one gapless sequence, numbers never reused: `00` is the request, \
odd numbers are reviews and even numbers from `02` answers. Every turn reads \"the newest file\", so a gap, \
a reused number or a misnamed file points a session at the wrong round. Likewise `handover/` holds \
\"00-request.md, 01-request.md, ...\": the Arbiter writes each further request \"into the next \
`handover/NN-request.md`\", and a Handover Writer reads the newest.",
    bad: "fondue/specs/retry-queue/review/phase-02/02-answer.md",
    good: "fondue/specs/retry-queue/review/phase-02/00-request.md",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        handover_requests(spec, sink);
        for (dir, files) in &spec.reviews {
            if Topic::parse_dir(dir).is_none() {
                if let Some(first) = files.first() {
                    sink.emit(
                        &spec.path(first.rel),
                        Span::line(1),
                        format!("topic:{dir}"),
                        format!("`review/{dir}/` is not a topic of the spec protocol"),
                    )
                    .help(
                        "topics are pre-plan, plan, phase-NN, audit-tests, audit-conventions, audit-fixes and handover",
                    );
                }
                continue;
            }
            let mut expected = 0;
            for entry in files {
                let path = spec.path(entry.rel);
                let Some((n, kind)) = entry.numbered else {
                    sink.emit(&path, Span::line(1), entry.rel, format!("`{}` is not named `NN-request.md`, `NN-review.md` or `NN-answer.md`", entry.name))
                        .help("name review files by their place in the sequence: 00-request.md, 01-review.md, 02-answer.md, …");
                    continue;
                };
                if n != expected {
                    let (anchor, message) = if n < expected {
                        (format!("reused:{n}"), format!("number {n:02} is used twice in `review/{dir}/`"))
                    } else {
                        (
                            format!("gap:{expected}"),
                            format!(
                                "`review/{dir}/` skips number {expected:02}: `{}` follows {}",
                                entry.name,
                                prev(expected)
                            ),
                        )
                    };
                    sink.emit(&path, Span::line(1), anchor, message)
                        .help("number the files of a topic 00, 01, 02, … without gaps");
                } else if kind != Kind::at(n) {
                    sink.emit(
                        &path,
                        Span::line(1),
                        entry.rel,
                        format!(
                            "file {n:02} of a topic is {} {}, not {} {}",
                            article(Kind::at(n)),
                            Kind::at(n).as_str(),
                            article(kind),
                            kind.as_str()
                        ),
                    )
                    .help("00 is the request, odd numbers are reviews, even numbers from 02 are answers");
                }
                expected = expected.max(n + 1);
            }
        }
    }
}

/// `handover/NN-request.md` are numbered 00, 01, … without gaps.
fn handover_requests(spec: &super::Spec, sink: &mut Sink) {
    let mut numbers: Vec<(u32, &str)> = spec
        .head
        .keys()
        .filter_map(|rel| {
            let name = rel.strip_prefix("handover/")?;
            let (n, kind) = crate::docs::spec::review::parse_name(name)?;
            (kind == Kind::Request).then_some((n, *rel))
        })
        .collect();
    numbers.sort_unstable();
    let mut expected = 0;
    for (n, rel) in numbers {
        if n != expected {
            sink.emit(
                &spec.path(rel),
                Span::line(1),
                format!("handover:{n}"),
                format!("`{rel}` should be `handover/{expected:02}-request.md`: requests are numbered 00, 01, … without gaps"),
            )
            .help("write each further request into the next `handover/NN-request.md`");
        }
        expected = n + 1;
    }
}

fn prev(expected: u32) -> String {
    if expected == 0 { "nothing".into() } else { format!("{:02}", expected - 1) }
}

fn article(kind: Kind) -> &'static str {
    if kind == Kind::Answer { "an" } else { "a" }
}
