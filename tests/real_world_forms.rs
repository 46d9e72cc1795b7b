//! Documents written the ways people write them, in every family: block and
//! flow YAML, quoted and plain scalars, comments, keys in any order, `\r\n`
//! line ends, a UTF-8 byte-order mark, text that is not English. Each case is
//! a repository tree under `fixtures/real-world/<family>/<case>/`, laid over
//! the family's `_shared/` tree (see `fixtures/real-world/README.md`).
//!
//! A clean case must give no error finding, and so must its copies with every
//! line ended by `\r\n` and with a byte-order mark before every text file; a
//! faulty case must give exactly the errors its row names (rule and line),
//! and the same with `\r\n` line ends.

mod local_repo;

use std::path::{Path, PathBuf};

use gatehouse::model::Severity;
use local_repo::copy_tree;

struct Case {
    /// `<family>/<case>` under `fixtures/real-world/`.
    dir: &'static str,
    /// How the documents are written.
    form: &'static str,
    /// The error findings the case must give, as `(rule, path, line)`.
    errors: &'static [(&'static str, &'static str, u32)],
}

const BRIEF: &str = "dark-factory/briefs/SWARM-AR-pg-backup.md";
const VOTING: &str = "dark-factory/guidelines/smoke-spec-path@v1.md";
const DECISION: &str = ".harnery/decisions/cache-ttl-2026-07-09-0c4e.json";
const STATE: &str = "fondue/specs/retry-queue/current-state.txt";
const CONFIG: &str = ".github/gatehouse.yml";

const BRIEFS: &[Case] = &[
    Case {
        dir: "brief/block-yaml-comments",
        form: "block YAML with comments, plain, double- and single-quoted scalars, keys reordered; paths in a \
               command, a link with a fragment, prose, a flagged new path; a date pattern, a glob and a URL",
        errors: &[],
    },
    Case {
        dir: "brief/flow-yaml-quoted",
        form: "the frontmatter as one flow mapping over several lines; a reference-style link to a path",
        errors: &[],
    },
    Case {
        dir: "brief/non-english",
        form: "German and Japanese prose, paths inside typographic and CJK quotes, a link with German text",
        errors: &[],
    },
    Case { dir: "brief/crlf-bom", form: "written with a byte-order mark and \\r\\n line ends", errors: &[] },
    Case {
        dir: "brief/faulty-link-and-second-path",
        form: "a missing link destination, a missing command path, a missing path after a flagged one",
        errors: &[
            ("brief/path-missing", BRIEF, 17),
            ("brief/path-missing", BRIEF, 17),
            ("brief/path-missing", BRIEF, 18),
        ],
    },
    Case {
        dir: "brief/unnamed-forms",
        form: "a quote in a GitHub alert, a `to-be-created:` flag hard-wrapped onto the next line, a command in a \
               `~~~bash` fence, links relative to the brief (`../`) and to the repository's root in a reference \
               definition",
        errors: &[],
    },
    Case {
        dir: "brief/faulty-fence-and-relative-links",
        form: "a link to the ADR's own file alone on a `Related:` line, a missing script in a ```` ```sh ```` \
               fence, missing `./` and `/` link targets",
        errors: &[
            ("brief/adr-not-honoured", BRIEF, 4),
            ("brief/path-missing", BRIEF, 16),
            ("brief/path-missing", BRIEF, 19),
            ("brief/path-missing", BRIEF, 19),
        ],
    },
    Case {
        dir: "brief/faulty-field-type",
        form: "`lines_estimate` as a quoted string",
        errors: &[("brief/field-type", BRIEF, 9)],
    },
];

const VOTINGS: &[Case] = &[
    Case {
        dir: "voting/block-yaml",
        form: "block YAML throughout, `target: null` on an original argument",
        errors: &[],
    },
    Case {
        dir: "voting/non-english-flow-comments",
        form: "propositions in Japanese (`。`) and Hindi (`।`), a full stop inside closing quotes, a comment in \
               the block, a vote written as a flow mapping with its keys reordered, a German rationale",
        errors: &[],
    },
    Case {
        dir: "voting/unicode-vendor-pins",
        form: "a persona with a letter outside ASCII and vendors' pins (`@20240620`, `:70b`), a vote `ts` with a \
               space before the time, GitHub pull request and commit addresses as `diff_snapshot_ref`",
        errors: &[],
    },
    Case {
        dir: "voting/faulty-cjk-two-sentences",
        form: "a Chinese proposition of two sentences with no space between them",
        errors: &[("voting/proposition", VOTING, 22)],
    },
];

const DECISIONS: &[Case] = &[
    Case {
        dir: "decision/pretty-reordered-french",
        form: "four-space indents, keys in another order, a French question, a zoned timestamp",
        errors: &[],
    },
    Case {
        dir: "decision/minified-crlf-bom",
        form: "minified over two \\r\\n lines after a byte-order mark, a Japanese question",
        errors: &[],
    },
    Case {
        dir: "decision/faulty-tier",
        form: "keys reordered, `tier` out of ADR 0007's range",
        errors: &[("decision/schema", DECISION, 6)],
    },
];

const SPECS: &[Case] = &[
    Case { dir: "spec/state-crlf", form: "`current-state.txt` ended by \\r\\n", errors: &[] },
    Case { dir: "spec/state-bom", form: "`current-state.txt` after a byte-order mark", errors: &[] },
    Case {
        dir: "spec/unnamed-forms",
        form: "a roster table without outer pipes and with alignment, labels emphasised with `__` and with the \
               colon outside the bold, a bold `**Verdict:**`, **Existing code** with its content on the label's line",
        errors: &[],
    },
    Case {
        dir: "spec/faulty-state-junk",
        form: "a byte-order mark, a state with trailing words, \\r\\n",
        errors: &[("spec/state-grammar", STATE, 1)],
    },
];

const CONFIGS: &[Case] = &[
    Case {
        dir: "config/block-comments-quoted",
        form: "block YAML with comments, a quoted rule id and a quoted `off`",
        errors: &[],
    },
    Case { dir: "config/flow", form: "one flow mapping", errors: &[] },
    Case {
        dir: "config/faulty-threshold",
        form: "a byte-order mark, a French comment, \\r\\n, a word where a number belongs",
        errors: &[("config/invalid", CONFIG, 4)],
    },
];

fn cases() -> impl Iterator<Item = &'static Case> {
    [BRIEFS, VOTINGS, DECISIONS, SPECS, CONFIGS].into_iter().flatten()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real-world")
}

/// How the case's files are rewritten before they are read.
#[derive(Clone, Copy, Debug)]
enum Variant {
    AsWritten,
    Crlf,
    Bom,
}

fn errors(case: &Case, variant: Variant) -> Vec<(String, String, u32)> {
    let tmp = tempfile::tempdir().unwrap();
    let head = tmp.path().join("head");
    std::fs::create_dir_all(&head).unwrap();
    let family = case.dir.split('/').next().unwrap();
    copy_tree(&root().join(family).join("_shared"), &head);
    copy_tree(&root().join(case.dir), &head);
    rewrite(&head, variant);
    let changes = gatehouse::source::fs::changeset(&head, None, None, &[]).unwrap();
    let report = gatehouse::rules::evaluate(&changes);
    let mut found: Vec<(String, String, u32)> = report
        .findings()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.rule.to_string(), f.path.clone(), f.span.line))
        .collect();
    found.sort();
    found
}

fn rewrite(dir: &Path, variant: Variant) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rewrite(&path, variant);
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let rewritten = match variant {
            Variant::AsWritten => continue,
            Variant::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
            Variant::Bom if text.starts_with('\u{feff}') => continue,
            Variant::Bom => format!("\u{feff}{text}"),
        };
        std::fs::write(&path, rewritten).unwrap();
    }
}

#[test]
fn every_form_gives_its_findings_and_no_others() {
    let mut failures = Vec::new();
    for case in cases() {
        assert!(root().join(case.dir).is_dir(), "{} has no folder", case.dir);
        let mut expected: Vec<(String, String, u32)> =
            case.errors.iter().map(|(rule, path, line)| (rule.to_string(), path.to_string(), *line)).collect();
        expected.sort();
        let variants: &[Variant] = if expected.is_empty() {
            &[Variant::AsWritten, Variant::Crlf, Variant::Bom]
        } else {
            &[Variant::AsWritten, Variant::Crlf]
        };
        for &variant in variants {
            let found = errors(case, variant);
            if found != expected {
                failures.push(format!(
                    "{} ({variant:?}; {}):\n  expected {expected:?}\n  found    {found:?}",
                    case.dir, case.form
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_case_folder_is_in_the_table() {
    let listed: Vec<&str> = cases().map(|c| c.dir).collect();
    for family in std::fs::read_dir(root()).unwrap() {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&family).unwrap() {
            let case = case.unwrap().path();
            let name = case.file_name().unwrap().to_string_lossy().to_string();
            if !case.is_dir() || name == "_shared" {
                continue;
            }
            let dir = format!("{}/{name}", family.file_name().unwrap().to_string_lossy());
            assert!(listed.contains(&dir.as_str()), "{dir} is not in the table of tests/real_world_forms.rs");
        }
    }
}
