use super::SpecView;
use crate::docs::spec::files::{EFFORTS, parse_roster};
use crate::docs::spec::state::{Part, State};
use crate::model::{Severity, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "spec/roster",
    view: SpecView,
    severity: Error,
    summary: "roster.md has its title, Skill, Sessions and a row for every role the spec has reached",
    why: "fondue `spec` v9, roster.md: the engine's roster (`# Roster`, `**Skill:**`, a table `| Role | Agent | \
Model | Effort | Handle |`, effort low, medium, high, xhigh or max) \"with one more line under **Skill:**, \
`**Sessions:** fresh | continue`\". \"The rows of the Tests Auditor, the Conventions Auditor and the Handover \
Writer are in every roster, because the audit and the update at handover always run.\" A continued spec \
whose roster lacks a row the skill requires gets it \"before the role's first turn\": so a new spec's \
roster has every role, and an older one has each role's row by the time the state reaches its turn. On a \
reopen the Arbiter \"sets the Handle cells of the Architect, the Architecture Reviewer, the Coder, the \
Code Reviewer and both auditors in `roster.md` back to `-`\" (Reopening, The move), because \"the pair \
that designed and approved the failed frame is the pair most anchored to it\": a reopen that keeps one of \
those handles sends the new attempt's turns to an old session. Lines of pipes that GitHub Flavored Markdown \
reads as no table (no delimiter row under the header) are a warning that says so: gatehouse cannot read the \
rows, so it does not judge them.",
    bad: "fondue/specs/retry-queue/roster.md",
    good: Example {
        path: "fondue/specs/retry-queue/roster.md",
        text: include_str!("../../../fixtures/rules/spec/_shared/fondue/specs/retry-queue/roster.md"),
    },
}

/// Each role of the skill and the state of its first turn.
const ROLES: [(&str, u8); 7] = [
    ("Architect", 1),
    ("Architecture Reviewer", 1),
    ("Coder", 3),
    ("Code Reviewer", 3),
    ("Tests Auditor", 4),
    ("Conventions Auditor", 5),
    ("Handover Writer", 7),
];

/// The roles whose Handle cells a reopen sets back to `-`.
const RESET_ON_REOPEN: [&str; 6] =
    ["Architect", "Architecture Reviewer", "Coder", "Code Reviewer", "Tests Auditor", "Conventions Auditor"];

/// How far along the protocol a state is (None for `abandoned`).
fn rank(state: State) -> Option<u8> {
    Some(match state {
        State::Brief => 0,
        State::PrePlan(_) | State::Plan(_) => 1,
        State::Implementation(..) => 3,
        State::Audit(Part::Tests, _) => 4,
        State::Audit(..) => 5,
        State::HandoverUpdate(_) | State::Handover | State::Done => 7,
        State::Abandoned => return None,
    })
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.current() {
        let Some(text) = spec.text("roster.md") else { continue };
        let path = spec.path("roster.md");
        let r = parse_roster(text);
        if !r.title {
            missing(sink, &path, "title", "the roster has no `# Roster` title", "start the file with `# Roster`");
        }
        if r.skill.is_none() {
            missing(sink, &path, "skill", "the roster has no `**Skill:**` line", "add `**Skill:** spec`");
        }
        match &r.sessions {
            None => missing(
                sink,
                &path,
                "sessions",
                "the roster has no `**Sessions:**` line",
                "add `**Sessions:** fresh` (or `continue`) under **Skill:**",
            ),
            Some((value, line)) if value != "fresh" && value != "continue" => {
                sink.emit(
                    &path,
                    Span::line(*line),
                    "sessions",
                    format!("`**Sessions:** {value}`: Sessions is `fresh` or `continue`"),
                )
                .help("`fresh`, the default, or `continue`");
            }
            Some(_) => {}
        }
        let Some(table) = r.table else {
            match r.stray_row {
                Some(line) => {
                    sink.emit(
                        &path,
                        Span::line(line),
                        "table",
                        "this line has a table row's pipes, but no delimiter row (`|---|---|`) follows a header, so \
                         GitHub Flavored Markdown reads no table and gatehouse cannot read the roster's rows",
                    )
                    .help("write the header `| Role | Agent | Model | Effort | Handle |`, then `|---|---|---|---|---|`, then a row per role")
                    .severity(Severity::Warning);
                }
                None => missing(
                    sink,
                    &path,
                    "table",
                    "the roster has no table `| Role | Agent | Model | Effort | Handle |`",
                    "add the roster table with a row per role",
                ),
            }
            continue;
        };
        for p in &r.problems {
            sink.emit(&path, Span::line(p.line), format!("line:{}", p.line), p.message.clone())
                .help("a row is `| <Role> | <agent> | <model> | <effort> | <handle or -> |`");
        }
        for row in r.rows.iter().filter(|row| !EFFORTS.contains(&row.effort.as_str())) {
            sink.emit(
                &path,
                Span::line(row.line),
                format!("effort:{}", row.role),
                format!("`{}` is not an effort (row of {})", row.effort, row.role),
            )
            .help(format!("effort is one of {}", EFFORTS.join(", ")));
        }
        if spec.reopened {
            kept_handles(spec, &path, &r, sink);
        }
        // A new spec's roster has every role; an older one each role reached.
        let reached = if spec.base.is_empty() { Some(u8::MAX) } else { spec.state().and_then(rank) };
        let Some(reached) = reached else { continue };
        for (role, _) in ROLES.iter().filter(|(_, at)| *at <= reached) {
            if !r.rows.iter().any(|row| row.role == *role) {
                sink.emit(
                    &path,
                    Span::line(table),
                    format!("role:{role}"),
                    format!("the roster has no row for the {role}"),
                )
                .help(format!(
                    "add `| {role} | <agent> | <model> | <effort> | - |`; v9 rosters carry every role's row"
                ));
            }
        }
    }
}

/// A reopen that keeps a live handle of a role it resets: the head row has
/// the same handle the base row had.
fn kept_handles(spec: &super::Spec, path: &str, head: &crate::docs::spec::files::Roster, sink: &mut Sink) {
    let Some(base) = spec.base_text("roster.md").map(parse_roster) else { return };
    for row in head.rows.iter().filter(|row| RESET_ON_REOPEN.contains(&row.role.as_str()) && row.handle != "-") {
        if base.rows.iter().any(|b| b.role == row.role && b.handle == row.handle) {
            sink.emit(
                path,
                Span::line(row.line),
                format!("handle:{}", row.role),
                format!("the reopen keeps the {}'s handle `{}`", row.role, row.handle),
            )
            .help("set the Handle cell back to `-`: a reopen spawns fresh sessions for the new attempt");
        }
    }
}

fn missing(sink: &mut Sink, path: &str, anchor: &str, message: &str, help: &str) {
    sink.emit(path, Span::line(1), anchor, message).help(help);
}
