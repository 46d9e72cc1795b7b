use std::collections::{BTreeMap, BTreeSet};

use super::{Spec, SpecView};
use crate::docs::spec::state::parse_nn;
use crate::model::{Sink, Span};

declare_rule! {
    id: "spec/attempts",
    view: SpecView,
    severity: Error,
    summary: "attempts/ are numbered from 01 without gaps, each with its reopen.md, never edited",
    why: "fondue `spec` v9, Reopening: \"the Arbiter moves `pre-plan/`, `plan/`, `audit/`, `review/` and \
`reopen.md` into the next `attempts/NN/`\", where \"`attempt-<NN>` is the number the live attempt would \
take in `attempts/`: one more than the highest there, or `01` if there is none\". A new attempt's \
Architect reads \"every attempt's `plan/plan.md`, if it has one, and its `reopen.md`: what was planned, \
and why it failed\", so each attempt keeps its `reopen.md`, and an earlier attempt is history that no \
change edits. A reopen that leaves a file of the failed attempt at the spec root (instead of moving it) \
makes the next attempt's turns read the failed frame as live; only `roster.md`, `99-user.md`, \
`stats.md` and `landed.md` \"stay at the root: they span attempts\".",
    bad: "fondue/specs/retry-queue/attempts/02/reopen.md",
    good: "fondue/specs/retry-queue/attempts/01/reopen.md",
}

fn check(view: &SpecView, sink: &mut Sink) {
    for spec in view.specs.iter().filter(|s| !s.deleted) {
        // attempts/<dir>/ → its first file.
        let mut dirs: BTreeMap<&str, &str> = BTreeMap::new();
        for rel in spec.head.keys() {
            if let Some((dir, _)) = rel.strip_prefix("attempts/").and_then(|r| r.split_once('/')) {
                dirs.entry(dir).or_insert(rel);
            }
        }
        for (i, (dir, first)) in dirs.iter().enumerate() {
            let want = i as u8 + 1;
            let reopen = format!("attempts/{dir}/reopen.md");
            let at = if spec.has(&reopen) { reopen.clone() } else { first.to_string() };
            match parse_nn(dir) {
                Some(n) if n == want => {}
                _ => {
                    sink.emit(&spec.path(&at), Span::line(1), format!("number:{dir}"), format!("`attempts/{dir}/` should be `attempts/{want:02}/`: attempts are numbered 01, 02, … without gaps"))
                        .help("the reopen moves the live attempt into the next number, one more than the highest there");
                    continue;
                }
            }
            if !spec.has(&reopen) {
                sink.emit(
                    &spec.path(first),
                    Span::line(1),
                    format!("reopen:{dir}"),
                    format!("`attempts/{dir}/` has no `reopen.md`"),
                )
                .help(
                    "the reopen moves `reopen.md` into the attempt with `pre-plan/`, `plan/`, `audit/` and `review/`",
                );
            }
        }
        left_at_root(spec, sink);
        for (rel, base) in spec.base.iter().filter(|(r, _)| r.starts_with("attempts/")) {
            if spec.head.get(rel) != Some(base) {
                let line = match (base.text(), spec.text(rel)) {
                    (Some(b), Some(h)) => super::first_difference(b, h),
                    _ => 1,
                };
                sink.emit(
                    &spec.path(rel),
                    Span::line(line),
                    format!("edited:{rel}"),
                    format!("`{rel}` is an earlier attempt's file, and the change alters it"),
                )
                .help("leave attempts/ as the reopen left it: it is the history the next attempt reads");
            }
        }
    }
}

/// The live attempt's files, which a reopen moves into `attempts/NN/`.
fn moves_on_reopen(rel: &str) -> bool {
    rel == "reopen.md" || ["pre-plan/", "plan/", "audit/", "review/"].iter().any(|dir| rel.starts_with(dir))
}

/// A reopen (the change adds `attempts/NN/`) that leaves a file of the
/// attempt it closes at the root, and not in the new attempt folder.
fn left_at_root(spec: &Spec, sink: &mut Sink) {
    let dirs = |f: &super::Folder| -> BTreeSet<String> {
        f.keys().filter_map(|r| r.strip_prefix("attempts/")?.split_once('/')).map(|(n, _)| n.to_string()).collect()
    };
    let Some(new) = dirs(&spec.head).difference(&dirs(&spec.base)).max().cloned() else { return };
    for rel in spec.base.keys().filter(|r| moves_on_reopen(r)) {
        if spec.has(rel) && !spec.has(&format!("attempts/{new}/{rel}")) {
            sink.emit(
                &spec.path(rel),
                Span::line(1),
                format!("left:{rel}"),
                format!("the reopen into `attempts/{new}/` leaves `{rel}` at the spec root"),
            )
            .help(format!(
                "move `pre-plan/`, `plan/`, `audit/`, `review/` and `reopen.md` into `attempts/{new}/`; the new attempt starts from a new `pre-plan/00-brief.md`"
            ));
        }
    }
}
