use super::SpecView;
use crate::docs::spec::files::parse_user_log;
use crate::model::{Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/user-log",
    view: SpecView,
    severity: Error,
    summary: "99-user.md entries are `## <date> <state>[ | settles <file>#<id>]` with **Asked:** and **Ruling:**",
    why: "fondue `spec` v9 keeps the User's rulings in `99-user.md`: an amended brief says \"ruling in \
99-user.md\", a local ruling on a reopen moves the text of `reopen.md` \"into the ruling's **Evidence:** in \
`99-user.md`\", and every role reads the file. With the engine (docs/seed-coverage.md, Engine formats) each entry is `## \
<YYYY-MM-DD> <state>[ | settles <file>#<id>]` followed by `**Asked:**` and `**Ruling:**`, so a later \
session can find when a ruling was made, in which state, and which finding it settles. On a local \
ruling the Arbiter \"moves the text of `reopen.md` into the ruling's **Evidence:** in `99-user.md` and \
deletes the file\" (Reopening, Ruling): a change that deletes a pending `reopen.md` without a reopen and \
adds no ruling with `**Evidence:**` loses the RESULT that made the role stop.",
    bad: "fondue/specs/retry-queue/99-user.md",
    good: Example {
        path: "fondue/specs/retry-queue/99-user.md",
        text: include_str!("../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/99-user.md"),
    },
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in &view.specs {
        local_ruling(spec, sink);
        let Some(text) = spec.text("99-user.md") else { continue };
        let path = spec.path("99-user.md");
        let (rulings, problems) = parse_user_log(text);
        for p in problems {
            sink.emit(&path, Span::line(p.line), format!("heading:{}", p.line), p.message)
                .help("write a ruling's heading as `## <YYYY-MM-DD> <state>`, with ` | settles <file>#<id>` when it settles a finding");
        }
        for r in rulings {
            for (field, present) in [("Asked", r.asked), ("Ruling", r.ruling)] {
                if !present {
                    sink.emit(
                        &path,
                        Span::line(r.line),
                        format!("{}:{field}", r.date),
                        format!("the ruling of {} has no `**{field}:**` line", r.date),
                    )
                    .help("an entry carries `**Asked:**` (the question) and `**Ruling:**` (the User's answer)");
                }
            }
        }
    }
}

/// A pending reopen that the change ends without a reopen (a local ruling):
/// the text of `reopen.md` moves into a new ruling's `**Evidence:**`.
fn local_ruling(spec: &super::Spec, sink: &mut Sink) {
    if !spec.base.contains_key("reopen.md") || spec.has("reopen.md") || spec.reopened || spec.deleted {
        return;
    }
    let with_evidence =
        |text: Option<&str>| text.map_or(0, |t| parse_user_log(t).0.iter().filter(|r| r.evidence).count());
    if with_evidence(spec.text("99-user.md")) > with_evidence(spec.base_text("99-user.md")) {
        return;
    }
    sink.emit(
        &spec.path("reopen.md"),
        Span::line(1),
        "reopen:local-ruling",
        "`reopen.md` is deleted without a reopen, and `99-user.md` gains no ruling with its `**Evidence:**`",
    )
    .help("on a local ruling, move the text of reopen.md into the ruling's `**Evidence:**` in 99-user.md; on a reopen, move reopen.md into the next attempts/NN/");
}
