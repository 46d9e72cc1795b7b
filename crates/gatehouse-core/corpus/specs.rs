//! 200 spec folders, each mid-implementation with 2 to 5 phases: the
//! planning rounds of the fixture spec, every earlier phase closed, the last
//! one in review. Half are new; half move from `Draft` to `Review` against a
//! base.

use gatehouse::model::{FileContent, Files};

pub const SPECS: usize = 200;

macro_rules! shared {
    ($($rel:literal),* $(,)?) => {
        [$(($rel, include_str!(concat!("../fixtures/rules/spec/_shared/fondue/specs/retry-queue/", $rel)))),*]
    };
}

/// The planning half of the fixture spec, unchanged in every folder.
const PLANNING: [(&str, &str); 15] = shared!(
    "roster.md",
    "99-user.md",
    "pre-plan/00-brief.md",
    "pre-plan/01-research.md",
    "pre-plan/02-reviewer-research.md",
    "pre-plan/03-draft.md",
    "pre-plan/04-draft.md",
    "plan/plan.md",
    "plan/research.md",
    "review/pre-plan/00-request.md",
    "review/pre-plan/01-review.md",
    "review/pre-plan/02-answer.md",
    "review/pre-plan/03-review.md",
    "review/plan/00-request.md",
    "review/plan/01-review.md",
);

const PLAN_ANSWER: &str =
    include_str!("../fixtures/rules/spec/_shared/fondue/specs/retry-queue/review/plan/02-answer.md");
const STATS: &str = include_str!("../fixtures/rules/spec/_shared/fondue/specs/retry-queue/stats.md");

fn sha(i: usize, n: usize) -> String {
    format!("{:07x}", (i * 97 + n * 13 + 0x1000000) % 0xfffffff)
}

fn request(i: usize, nn: usize) -> String {
    format!(
        "# Request: phase-{nn:02}\n\n- **Subject:** {}..{}\n- **Build:** cargo build --workspace - green\n- **Gates:** phase-{nn:02} gates - all pass\n",
        sha(i, nn),
        sha(i, nn + 1)
    )
}

/// Adds the spec folders to the base and the head.
pub fn add(base: &mut Files, head: &mut Files) {
    for i in 0..SPECS {
        let root = format!("fondue/specs/spec-{i:03}");
        let phases = 2 + i % 4;
        let mut files: Vec<(String, String)> =
            PLANNING.iter().map(|(rel, text)| (rel.to_string(), text.to_string())).collect();
        files.push(("review/plan/02-answer.md".into(), PLAN_ANSWER.into()));
        let mut landed = format!("attempt-01 implementation starts at {}\n", sha(i, 1));
        let mut stats = STATS.to_string();
        for nn in 1..=phases {
            files.push((
                format!("plan/phase-{nn:02}.md"),
                format!("# Phase {nn:02}\n\n## Tasks\n\n1. Part {nn} of spec {i}. Gate: `cargo test -p spec{i} phase{nn}` passes.\n"),
            ));
            files.push((format!("review/phase-{nn:02}/00-request.md"), request(i, nn)));
            if nn < phases {
                let range = format!("{}..{}", sha(i, nn), sha(i, nn + 1));
                files.push((
                    format!("review/phase-{nn:02}/01-review.md"),
                    format!("# Review of {range}\n\nVerdict: approved {range}\n"),
                ));
                landed.push_str(&format!("attempt-01 phase-{nn:02} closed at {}\n", sha(i, nn + 1)));
                stats.push_str(&format!(
                    "| 2026-03-06 | Code Reviewer | opus | implementation:{nn:02}:Review | approved | - | 20k | 5m |\n"
                ));
            }
        }
        files.push(("landed.md".into(), landed));
        files.push(("stats.md".into(), stats));
        let moving = i % 2 == 0;
        for (rel, text) in &files {
            let content = FileContent::Text(text.as_str().into());
            if moving && rel != &format!("review/phase-{phases:02}/00-request.md") {
                base.insert(format!("{root}/{rel}"), content.clone());
            }
            head.insert(format!("{root}/{rel}"), content);
        }
        head.insert(
            format!("{root}/current-state.txt"),
            FileContent::Text(format!("implementation:{phases:02}:Review\n").into()),
        );
        if moving {
            base.insert(
                format!("{root}/current-state.txt"),
                FileContent::Text(format!("implementation:{phases:02}:Draft\n").into()),
            );
        }
    }
}
