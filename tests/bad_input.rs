//! Hostile and broken input: every case is a finding at its line, never a
//! panic; property tests feed the parsers arbitrary input.

use std::sync::Arc;

use gatehouse::docs::{brief::Brief, frontmatter, markdown, pathref, yaml};
use gatehouse::model::{ChangeSet, FileContent, Finding, RepoIndex, RepoTree};
use gatehouse::rules;
use proptest::prelude::*;

const PATH: &str = "dark-factory/briefs/SWARM-AR-pg-backup.md";

fn evaluate_brief(content: FileContent) -> Vec<Finding> {
    let mut changes = ChangeSet::default();
    changes.head.insert(PATH.into(), content);
    changes.repos.insert(".", None, Arc::new(RepoTree::new(vec![PATH.into()])));
    rules::evaluate(&changes).findings().cloned().collect()
}

fn text(s: &str) -> FileContent {
    FileContent::Text(s.into())
}

fn only(findings: &[Finding], rule: &str) -> Vec<(u32, String)> {
    findings.iter().filter(|f| f.rule == rule).map(|f| (f.span.line, f.message.clone())).collect()
}

#[test]
fn malformed_and_unterminated_frontmatter() {
    let f = evaluate_brief(text("---\nagent: SWARM-AR\nrepos_touched: [a/b\nlines_estimate: 1\n"));
    assert_eq!(
        only(&f, "brief/frontmatter"),
        vec![(1, "the frontmatter opened on line 1 is never closed by a `---` line".into())]
    );
    let f = evaluate_brief(text("---\nagent: SWARM-AR\nrepos_touched: [a/b\nlines_estimate: 1\n---\n"));
    let found = only(&f, "brief/frontmatter");
    assert_eq!(found.len(), 1);
    assert!((3..=4).contains(&found[0].0), "{found:?}");
    let f = evaluate_brief(text("# no frontmatter\n"));
    assert_eq!(only(&f, "brief/frontmatter")[0].0, 1);
}

#[test]
fn alias_bombs_and_deep_nesting_are_refused_at_their_line() {
    let mut bomb = String::from("---\nagent: SWARM-AR\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..9 {
        let aliases = vec![format!("*a{}", level - 1); 10].join(", ");
        bomb.push_str(&format!("a{level}: &a{level} [{aliases}]\n"));
    }
    bomb.push_str("---\n");
    let f = evaluate_brief(text(&bomb));
    let found = only(&f, "brief/frontmatter");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, 6);
    assert!(found[0].1.contains("more than 10000 values in all"), "{found:?}");
    let deep = format!("---\nagent: SWARM-AR\nx: {}{}\n---\n", "[".repeat(10_000), "]".repeat(10_000));
    let found = only(&evaluate_brief(text(&deep)), "brief/frontmatter");
    assert_eq!(found.len(), 1);
    assert!(found[0].1.contains("deeper than 32"), "{found:?}");
    let block: String = (0..5_000).map(|i| format!("{}- \n", "  ".repeat(i % 200))).collect();
    let found = only(&evaluate_brief(text(&format!("---\nx:\n{block}---\n"))), "brief/frontmatter");
    assert!(found.len() <= 1, "{found:?}");
}

#[test]
fn binary_invalid_utf8_and_oversized_documents() {
    let f = evaluate_brief(FileContent::from_bytes(b"---\nagent: \0\n", 1 << 20));
    assert_eq!(only(&f, "doc/unreadable"), vec![(1, "this is a binary file, not a text document".into())]);
    let f = evaluate_brief(FileContent::from_bytes(b"---\nagent: SWARM-AR\nbad: \xff\xfe\n---\n", 1 << 20));
    assert_eq!(only(&f, "doc/unreadable"), vec![(3, "line 3 is not valid UTF-8".into())]);

    // A 50 MB file on disk is classified from its size, never read.
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.md");
    std::fs::File::create(&big).unwrap().set_len(50 * 1024 * 1024).unwrap();
    let content = gatehouse::source::fs::read(tmp.path(), "big.md", 1024 * 1024).unwrap();
    assert_eq!(content, FileContent::TooLarge { bytes: 50 * 1024 * 1024, limit: 1024 * 1024 });
    let f = evaluate_brief(content);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rule, "doc/unreadable");
    assert!(f[0].message.contains("50 MiB (52428800 bytes), over the 1 MiB limit"), "{}", f[0].message);
}

#[test]
fn paths_that_leave_the_repository_are_findings() {
    let brief = "---\nagent: SWARM-AR\nrepos_touched: [a/b]\nadrs_referenced: []\nsuccess_criteria:\n  - \"`x` exits 0\"\nout_of_scope: [c]\nlines_estimate: 5\n---\nRead `/etc/passwd`, `../../secrets.env` and `a/b:../x.md`.\n";
    let f = evaluate_brief(text(brief));
    let found = only(&f, "brief/path-invalid");
    assert_eq!(found.len(), 3, "{f:?}");
    assert!(found.iter().all(|(line, _)| *line == 10));
    assert!(found[0].1.contains("absolute path"));
    assert!(found[1].1.contains("`..`"));
}

/// Fragments that steer generated text into the parsers' interesting corners.
fn documentish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_string()),
        Just("agent: SWARM-AR\n".to_string()),
        Just("repos_touched: [a/b, c]\n".to_string()),
        Just("adrs_referenced: [ADR-1]\n".to_string()),
        Just("success_criteria:\n  - ".to_string()),
        Just("lines_estimate: 400\n".to_string()),
        Just("> quoted ADR-1\n".to_string()),
        Just("```voting\n".to_string()),
        Just("`src/a.rs` ".to_string()),
        Just("(to-be-created: x)".to_string()),
        Just("&a ".to_string()),
        Just("*a ".to_string()),
        Just("[{".to_string()),
        Just("\"".to_string()),
        Just("\n".to_string()),
        Just("  ".to_string()),
        Just("# ".to_string()),
        "[a-zA-Z0-9 :/._-]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic(s in documentish()) {
        let _ = yaml::parse(&s, 1);
        let _ = frontmatter::split(&s);
        let _ = markdown::parse(&s, 1);
        let _ = gatehouse::rules::read_config(&s);
        let brief = Brief::parse(PATH, &s);
        let _ = brief.file_name();
        for span in &brief.markdown.code_spans {
            let _ = pathref::classify(&span.text, &["a/b"]);
        }
    }

    #[test]
    fn every_finding_points_into_the_document(s in documentish()) {
        let findings = evaluate_brief(text(&s));
        let lines = s.lines().count().max(1) as u32;
        for f in findings {
            prop_assert!(f.span.line >= 1 && f.span.line <= lines + 1, "{f:?} in a {lines}-line document");
            prop_assert!(!f.message.is_empty());
        }
    }

    #[test]
    fn any_bytes_classify(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        match FileContent::from_bytes(&bytes, 256) {
            FileContent::Text(t) => prop_assert_eq!(t.as_bytes(), &bytes[..]),
            FileContent::TooLarge { bytes: n, .. } => prop_assert!(n > 256),
            FileContent::Binary => prop_assert!(bytes.contains(&0)),
            FileContent::InvalidUtf8 { line } => prop_assert!(line >= 1),
            other => prop_assert!(false, "bytes classified as {other:?}"),
        }
    }

    #[test]
    fn path_lookup_agrees_with_the_listing(files in prop::collection::vec("[a-c]{1,2}(/[a-c]{1,2}){0,2}", 1..20), probe in "[a-c]{1,2}(/[a-c]{1,2}){0,2}/?") {
        let mut index = RepoIndex::default();
        index.insert("o/r", None, Arc::new(RepoTree::new(files.clone())));
        let found = index.lookup("o/r", None, &probe) == gatehouse::model::PathLookup::Exists;
        let dir = probe.trim_end_matches('/');
        let expected = files.iter().any(|f| f.starts_with(&format!("{dir}/")))
            || (!probe.ends_with('/') && files.contains(&probe));
        prop_assert_eq!(found, expected);
    }
}

#[cfg(unix)]
#[test]
fn plain_folders_never_open_fifos_or_follow_links() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let status = std::process::Command::new("mkfifo").arg(root.join("pipe.md")).status().unwrap();
    assert!(status.success());
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.md")).unwrap();
    std::os::unix::fs::symlink("pipe.md", root.join("inside.md")).unwrap();
    let read = |rel: &str| gatehouse::source::fs::read(root, rel, 1024 * 1024).unwrap();
    assert_eq!(read("pipe.md"), FileContent::NotAFile { kind: "a named pipe (FIFO)" });
    assert_eq!(read("zero.md"), FileContent::Link { target: "/dev/zero".into(), outside: true });
    assert_eq!(read("inside.md"), FileContent::Link { target: "pipe.md".into(), outside: false });
    assert_eq!(gatehouse::source::fs::list(root).unwrap(), ["inside.md", "pipe.md", "zero.md"]);
    let f = evaluate_brief(read("pipe.md"));
    assert_eq!(
        only(&f, "doc/unreadable"),
        vec![(1, "this is a named pipe (FIFO), not a regular file, so it was not read".into())]
    );
}
