use super::*;

fn read(path: &str, text: &str) -> (u32, Option<String>, Option<u32>, bool) {
    let adr = Adr::parse(path, text).unwrap_or_else(|| panic!("{path} is an ADR"));
    let retired = adr.is_retired();
    (adr.number, adr.status, adr.superseded_by, retired)
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn reads_the_founding_documents_form() {
    assert_eq!(
        read("docs/adr/ADR-095-backups.md", "# ADR-095: Backups\n\n**Status:** Superseded\nSuperseded by: ADR-101\n"),
        (95, some("superseded"), Some(101), true)
    );
    assert_eq!(
        read(
            "docs/adr/backups.md",
            "# ADR-99: Briefs\nStatus: Accepted Date: 2026-04-25 Related: ADR-083 (superseded by nothing)\n\
             Supersedes: none. Amends: none. Superseded by: {{leave blank}}\n"
        ),
        (99, some("accepted"), None, false)
    );
    assert_eq!(read("decisions/briefs.md", "ADR-099: Agent briefs\n\nStatus: Accepted\n").0, 99);
    assert!(Adr::parse("docs/adr/README.md", "# Index\n").is_none());
}

#[test]
fn reads_adr_tools_records() {
    let text = "# 5. Use SQLite\n\nDate: 2024-03-01\n\n## Status\n\nSuperseded by [6. Use Postgres](0006-use-postgres.md)\n\n## Context\n\nWe need a store.\n";
    assert_eq!(read("doc/adr/0005-use-sqlite.md", text), (5, some("superseded"), Some(6), true));
    let text = "# 6. Use Postgres\n\nDate: 2024-04-01\n\n## Status\n\nAccepted\n\nSupersedes [5. Use SQLite](0005-use-sqlite.md)\n\nAmends [2. Hosting](0002-hosting.md)\n";
    let adr = Adr::parse("doc/adr/0006-use-postgres.md", text).unwrap();
    assert_eq!(
        (adr.number, adr.status.as_deref(), adr.supersedes.clone(), adr.is_retired()),
        (6, Some("accepted"), vec![5], false)
    );
    let text = "# 2. Hosting\n\n## Status\n\nAccepted\n\nAmended by [6. Use Postgres](0006-use-postgres.md)\n";
    assert_eq!(read("doc/adr/0002-hosting.md", text), (2, some("accepted"), None, false));
    let text = "# 3. Cache in Redis\n\n## Status\n\nDeprecated\n";
    assert_eq!(read("doc/adr/0003-cache-in-redis.md", text), (3, some("deprecated"), None, true));
    assert_eq!(read("doc/adr/notes.md", "# 7. Keep notes\n\n## Status\n\nProposed\n").0, 7);
}

#[test]
fn reads_adr_tools_own_spelling_and_dated_status_logs() {
    let text = "# 2. Cron\n\n## Status\n\nSuperceded by [4. Timers](0004-timers.md)\n";
    assert_eq!(read("doc/adr/0002-cron.md", text), (2, some("superseded"), Some(4), true));
    let text = "# 3. Cache\n\nDate: 2024-02-01\n\n## Status\n\n2024-02-01 proposed\n\n2024-02-09 accepted\n\n\
                2024-03-12 superseded by [7. No cache](0007-no-cache.md)\n\n## Context\n\n2024-04-01 rejected as noise\n";
    let adr = Adr::parse("docs/adr/0003-cache.md", text).unwrap();
    assert_eq!((adr.status.as_deref(), adr.superseded_by, adr.status_line), (Some("superseded"), Some(7), 11));
    let text = "# 4. Queue\n\n## Status\n\n2024-02-01 proposed\n2024-02-03: Accepted\n";
    assert_eq!(read("docs/adr/0004-queue.md", text), (4, some("accepted"), None, false));
    let text = "# 5. Logs\n\n## Status\n\n2024-02-01 Accepted\n\nAmended by [6. Journald](0006-journald.md)\n";
    assert_eq!(read("docs/adr/0005-logs.md", text), (5, some("accepted"), None, false));
}

#[test]
fn reads_madr_and_log4brains_records() {
    let text = "---\n# optional metadata\nstatus: \"superseded by ADR-0123\"\ndate: 2024-01-02\n---\n\n# Use dashes in file names\n\n## Context and Problem Statement\n\nStatus: accepted is what we had.\n";
    assert_eq!(read("docs/decisions/0005-use-dashes-in-filenames.md", text), (5, some("superseded"), Some(123), true));
    let text = "---\nstatus: accepted\n---\n# Use MADR\n";
    assert_eq!(read("docs/decisions/0000-use-madr.md", text), (0, some("accepted"), None, false));
    let text = "# Use plain JUnit5\n\n* Status: superseded by [ADR-0008](0008-use-assertj.md)\n* Date: 2018-02-01\n";
    assert_eq!(read("docs/adr/0007-use-plain-junit5.md", text), (7, some("superseded"), Some(8), true));
    let text = "# Keep the cache\n\n* Status: rejected\n";
    assert_eq!(read("docs/adr/0009-keep-the-cache.md", text), (9, some("rejected"), None, true));
    let text = "# Use Log4brains\n\n- Status: on hold\n- Date: 2024-10-06\n";
    assert_eq!(read("docs/adr/0004-use-log4brains.md", text), (4, some("on hold"), None, false));
    let text = "# Publish the log\n\n- Status: proposed\n\n```\nStatus: superseded\n```\n";
    assert_eq!(read("docs/adr/0010-publish.md", text), (10, some("proposed"), None, false));
}

#[test]
fn an_in_force_record_retires_what_it_supersedes() {
    let old = Adr::parse("doc/adr/0001-a.md", "# 1. A\n\n## Status\n\nAccepted\n").unwrap();
    let new =
        Adr::parse("doc/adr/0002-b.md", "# 2. B\n\n## Status\n\nAccepted\n\nSupersedes [1. A](0001-a.md)\n").unwrap();
    let proposed =
        Adr::parse("doc/adr/0004-d.md", "# 4. D\n\n## Status\n\nProposed\n\nSupersedes [3. C](0003-c.md)\n").unwrap();
    let third = Adr::parse("doc/adr/0003-c.md", "# 3. C\n\n## Status\n\nAccepted\n").unwrap();
    let adrs = index([old, new, proposed, third]);
    assert_eq!(adrs[&1].superseded_by, Some(2));
    assert!(adrs[&1].is_retired());
    assert!(!adrs[&3].is_retired(), "a proposal does not retire what it would supersede");
}

#[test]
fn finds_mentions_by_number() {
    let m = mentions("See ADR-095 and ADR 7, not MADR-3 or ADR-x or ADR-12b.");
    assert_eq!(m.iter().map(|m| m.number).collect::<Vec<_>>(), vec![95, 7]);
    assert_eq!(m[0].offset, 4);
    assert_eq!(parse_id("ADR-099"), Some(99));
    assert_eq!((parse_id("ADR-5"), parse_id("ADR-005"), parse_id("ADR-0005")), (Some(5), Some(5), Some(5)));
    assert_eq!(parse_id("ADR099"), None);
}

#[test]
fn folds_what_editors_type() {
    assert_eq!(fold("a  **b**\n  c"), "a b c");
    assert_eq!(
        fold("the brief\u{2019}s \u{201c}contract\u{201d} \u{2014} a\u{a0}rule -- kept"),
        "the brief's \"contract\" - a rule - kept"
    );
}

#[test]
fn a_successor_is_spelled_as_the_cited_id() {
    assert_eq!(spelled_like("ADR-5", 6), "ADR-6");
    assert_eq!(spelled_like("ADR-095", 96), "ADR-096");
    assert_eq!(spelled_like("ADR-0005", 6), "ADR-0006");
    assert_eq!(spelled_like("ADR-9", 10), "ADR-10", "a wider number is never cut");
}
