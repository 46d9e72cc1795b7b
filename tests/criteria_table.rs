//! brief/untestable-criterion's judgement against the criteria corpus in
//! `fixtures/criteria/`. Three tables:
//! - the project's table, written from ADR-099's intent: `tune.tsv` (with
//!   the earlier `success-criteria.tsv`) and `measure.tsv`;
//! - the learned table, written in the forms read in public material
//!   (`PROVENANCE.md`): `learned-tune.tsv` and `learned-measure.tsv`;
//! - the held-out part of issue #54, `held-out.tsv`: never read while the
//!   judgement is tuned, so its figures measure it.
//!
//! Each row is labelled testable, untestable or ambiguous (not scored) from
//! ADR-099's sentence alone. The judgement is adjusted on the tune parts
//! only; of the other parts only the figures are printed, never the rows.
//! On the held-out part the rule may give an error to at most 1% of
//! testable criteria and a warning to at most 5% more, and must flag (an
//! error or a warning) at least 80% of untestable ones; on each measure
//! part errors on at most 2%, warnings on at most 5% more, and at least 75%
//! flagged. The figures of all parts are printed
//! (`cargo test --test criteria_table -- --nocapture`).

use gatehouse::rules::brief::{Verdict, assess_criterion};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Testable,
    Untestable,
    Ambiguous,
}

struct Row {
    file: &'static str,
    line: usize,
    label: Label,
    text: String,
}

fn read(file: &'static str) -> Vec<Row> {
    let path = format!("{}/fixtures/criteria/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let mut cols = l.splitn(3, '\t');
            let (label, _form, text) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
            let label = match label {
                "testable" => Label::Testable,
                "untestable" | "vague" => Label::Untestable,
                "ambiguous" => Label::Ambiguous,
                other => panic!("{file}:{}: label `{other}`", i + 1),
            };
            Row { file, line: i + 1, label, text: text.to_string() }
        })
        .collect()
}

/// What the rule did with one part of the corpus.
#[derive(Default)]
struct Figures {
    testable: usize,
    untestable: usize,
    ambiguous: usize,
    testable_errors: Vec<String>,
    testable_warnings: Vec<String>,
    testable_unread: usize,
    untestable_flagged: usize,
    /// Of those flagged, the ones given an error (the rest a warning).
    untestable_blocked: usize,
    untestable_unread: usize,
    untestable_passed: Vec<String>,
}

impl Figures {
    fn of(rows: &[Row]) -> Figures {
        let mut f = Figures::default();
        for row in rows {
            let a = assess_criterion(&row.text);
            let shown = format!("  {}:{} {:?}: {a:?}", row.file, row.line, row.text);
            match (row.label, a.verdict()) {
                (Label::Ambiguous, _) => f.ambiguous += 1,
                (Label::Testable, v) => {
                    f.testable += 1;
                    match v {
                        Verdict::Untestable => f.testable_errors.push(shown),
                        Verdict::Unsure => f.testable_warnings.push(shown),
                        Verdict::Unread => f.testable_unread += 1,
                        Verdict::Testable => {}
                    }
                }
                (Label::Untestable, v) => {
                    f.untestable += 1;
                    match v {
                        Verdict::Untestable => {
                            f.untestable_flagged += 1;
                            f.untestable_blocked += 1;
                        }
                        Verdict::Unsure => f.untestable_flagged += 1,
                        Verdict::Unread => f.untestable_unread += 1,
                        Verdict::Testable => f.untestable_passed.push(shown),
                    }
                }
            }
        }
        f
    }

    fn percent(n: usize, of: usize) -> f64 {
        100.0 * n as f64 / of.max(1) as f64
    }

    /// The part's figures.
    fn summary(&self, part: &str) -> String {
        format!(
            "{part}: {} testable, {} untestable, {} ambiguous (not scored); \
             errors on {} testable ({:.1}%), warnings on {} ({:.1}%), {} not judged (not English); \
             {} untestable flagged ({:.1}%, errors on {:.1}%), {} not judged, {} passed",
            self.testable,
            self.untestable,
            self.ambiguous,
            self.testable_errors.len(),
            Self::percent(self.testable_errors.len(), self.testable),
            self.testable_warnings.len(),
            Self::percent(self.testable_warnings.len(), self.testable),
            self.testable_unread,
            self.untestable_flagged,
            Self::percent(self.untestable_flagged, self.untestable),
            Self::percent(self.untestable_blocked, self.untestable),
            self.untestable_unread,
            self.untestable_passed.len(),
        )
    }

    /// The rows the rule misjudged, to tune on; never printed for a
    /// measure part, whose rows are not looked at one by one.
    fn misjudged(&self) -> String {
        format!(
            "testable given an error:\n{}\ntestable given a warning:\n{}\nuntestable passed:\n{}",
            self.testable_errors.join("\n"),
            self.testable_warnings.join("\n"),
            self.untestable_passed.join("\n"),
        )
    }
}

/// Asserts ADR-099's targets on a part the rule was not tuned on.
fn assert_targets(part: &str, f: &Figures) {
    let report = f.summary(part);
    assert!(f.testable_errors.len() * 50 <= f.testable, "errors on more than 2% of testable\n{report}");
    assert!(f.testable_warnings.len() * 20 <= f.testable, "warnings on more than 5% of testable\n{report}");
    assert!(f.untestable_flagged * 4 >= f.untestable * 3, "under 75% of untestable flagged\n{report}");
}

#[test]
fn the_measure_parts_meet_the_targets() {
    let project_tune: Vec<Row> = [read("tune.tsv"), read("success-criteria.tsv")].into_iter().flatten().collect();
    let parts = [
        ("project table, tune part", Figures::of(&project_tune)),
        ("project table, measure part", Figures::of(&read("measure.tsv"))),
        ("learned table, tune part", Figures::of(&read("learned-tune.tsv"))),
        ("learned table, measure part", Figures::of(&read("learned-measure.tsv"))),
    ];
    for (part, figures) in &parts {
        println!("{}", figures.summary(part));
        if part.ends_with("tune part") {
            println!("{}", figures.misjudged());
        }
        println!();
    }
    for (part, figures) in parts.iter().filter(|(part, _)| part.ends_with("measure part")) {
        assert!(
            figures.testable >= 100 && figures.untestable >= 50,
            "the {part} holds {} testable and {} untestable rows: want at least 100 and 50",
            figures.testable,
            figures.untestable
        );
        assert_targets(part, figures);
    }
}

/// Issue #54's targets on its held-out part, `held-out.tsv`: never tuned
/// on, so only its figures are printed. A testable criterion is blocked (given an error) in
/// at most 1% of rows and warned in at most 5% more; an untestable one is
/// flagged (an error or a warning) in at least 80%.
#[test]
fn the_held_out_part_meets_the_targets() {
    let f = Figures::of(&read("held-out.tsv"));
    let report = f.summary("held-out part");
    println!("{report}");
    assert!(f.testable >= 200 && f.untestable >= 100, "want at least 200 testable and 100 untestable rows\n{report}");
    assert!(f.testable_errors.len() * 100 <= f.testable, "errors on more than 1% of testable\n{report}");
    assert!(f.testable_warnings.len() * 20 <= f.testable, "warnings on more than 5% of testable\n{report}");
    assert!(f.untestable_flagged * 5 >= f.untestable * 4, "under 80% of untestable flagged\n{report}");
}

#[test]
fn each_table_has_300_rows_in_two_parts() {
    for (tune, measure) in [("tune.tsv", "measure.tsv"), ("learned-tune.tsv", "learned-measure.tsv")] {
        let rows = read(tune).len() + read(measure).len();
        assert!(rows >= 300, "{rows} rows in {tune} and {measure}: want at least 300");
    }
}

#[test]
fn the_issue_and_adr_examples() {
    for testable in [
        "p99 latency of `GET /search` stays under 200 ms at 50 requests per second",
        "the migration adds a `retention_days` column to the `backups` table",
        "the `backup_last_success_timestamp` metric is exported on `/metrics`",
        "endpoint returns 200 with the documented schema",
        "Search results are ordered by relevance score, highest first",
        // Issue #54's examples: criteria a test checks that a word list read
        // as vague.
        "`terraform validate` and `terraform plan` run clean",
        "Modals trap and restore focus correctly",
        "Users can complete a purchase with at most three clicks after reaching the cart",
        "Given a delivery whose configuration cannot be resolved, when it fails, then it is classified as a \
         configuration error and not retried",
    ] {
        assert_eq!(assess_criterion(testable).verdict(), Verdict::Testable, "{testable}");
    }
    // Certain: empty, or nothing a test could look at.
    for certain in [
        "",
        "the feature works",
        "is robust",
        "works well",
        "improve UX",
        "code is clean",
        "Make it better",
        "handles errors gracefully",
        "The code is idiomatic",
    ] {
        assert_eq!(assess_criterion(certain).verdict(), Verdict::Untestable, "{certain:?}");
    }
    // Something a test could look at, with only a quality, a catch-all, an
    // aspiration, a process step or a person's feelings said of it: a
    // warning, whatever numbers or code spans stand before the vague word.
    for vague in [
        "Documentation updated",
        "Memory leaks are minimised",
        "Marcus is comfortable with the design",
        "The error messages are friendlier",
        "The team reviews it",
        "All 12 screens look polished",
        "The API is 10x better",
        "The 404 page looks nice",
        "Edge cases in `src/parser.rs` are covered",
        "The `gatehouse check` output is less confusing",
        "`gatehouse explain` is helpful",
        "PR #412 merged to main",
        "The 3 on-call engineers are comfortable with `runbook.md`",
        "`PII` is handled appropriately",
    ] {
        assert_eq!(assess_criterion(vague).verdict(), Verdict::Unsure, "{vague}");
    }
    // A measure or a baseline after the word pins it down.
    for testable in [
        "Imports are 20% faster than v1 on the 1 GB fixture",
        "The parser's edge cases are covered by `tests/parser_edges.rs`",
        "the API is fast: p95 under 300 ms",
    ] {
        assert_eq!(assess_criterion(testable).verdict(), Verdict::Testable, "{testable}");
    }
    assert_eq!(assess_criterion("Die Dokumentation ist aktualisiert").verdict(), Verdict::Unread);
}
