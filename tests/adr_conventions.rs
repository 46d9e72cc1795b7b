//! `gatehouse check --all` on decision folders kept the ways teams keep them
//! (`fixtures/adr-conventions/`: MADR, adr-tools, log4brains), with briefs
//! citing their records as `ADR-5`, `ADR-005` or `ADR-0005`: every record is
//! found, and the retired ones (superseded, rejected, deprecated) are flagged.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod local_repo;
use local_repo::{copy_tree, write};

fn conventions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/adr-conventions")
}

/// A brief citing `adrs` (each honoured by one sentence of `statements`).
fn brief(agent: &str, adrs: &[&str], statements: &[&str]) -> String {
    format!(
        "---\nagent: {agent}\nrepos_touched: [acme/service]\nadrs_referenced: [{}]\nsuccess_criteria:\n  - \
         \"`make check` exits 0\"\nout_of_scope:\n  - the admin console\nlines_estimate: 60\n---\n# {agent}: \
         follow the records\n\n{}\n",
        adrs.join(", "),
        statements.iter().map(|s| format!("- {s}\n")).collect::<String>()
    )
}

/// Lays a convention's folder (`from` under [`conventions`], at `to`), the
/// `extra` files and the `briefs` in a plain folder and runs `gatehouse check
/// --all` on it; the findings as `(rule, severity, message)`.
fn check((from, to): (&str, &str), extra: &[(&str, &str)], briefs: &[(&str, String)]) -> Vec<(String, String, String)> {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&conventions().join(from), &tmp.path().join(to));
    for (path, text) in extra {
        write(tmp.path(), path, text);
    }
    for (agent, text) in briefs {
        write(tmp.path(), &format!("dark-factory/briefs/{agent}-records.md"), text);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["check", "--all", "--format", "json", "--repo"])
        .arg(tmp.path())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap().to_string();
            (text("rule"), text("severity"), text("message"))
        })
        .collect()
}

fn errors(findings: &[(String, String, String)]) -> Vec<&(String, String, String)> {
    findings.iter().filter(|(rule, severity, _)| severity == "error" || rule == "brief/adr-superseded").collect()
}

#[test]
fn madr_records_are_found_by_any_id_form() {
    let clean = brief(
        "SWARM-MA",
        &["ADR-0", "ADR-1", "ADR-003"],
        &[
            "Record the decision in a new MADR file, as ADR-0 has every decision recorded.",
            "Sessions stay in Redis with the twelve-hour TTL (ADR-1).",
            "Per ADR-003, the issuer alone signs tokens with its Ed25519 private key.",
        ],
    );
    let findings = check(("madr", ""), &[], &[("SWARM-MA", clean)]);
    assert_eq!(errors(&findings), Vec::<&(String, String, String)>::new(), "{findings:?}");

    let retired = brief(
        "SWARM-MB",
        &["ADR-2", "ADR-0004"],
        &["Sign tokens with the shared HS256 secret (ADR-2).", "Render each page on the server, per ADR-0004."],
    );
    let findings = check(("madr", ""), &[], &[("SWARM-MB", retired)]);
    let superseded: Vec<&str> =
        findings.iter().filter(|(rule, ..)| rule == "brief/adr-superseded").map(|(.., m)| m.as_str()).collect();
    assert_eq!(
        superseded,
        vec![
            "ADR-2 is superseded by ADR-3",
            "ADR-0004 has status `rejected` (docs/decisions/0004-render-pages-on-the-server.md)"
        ],
        "{findings:?}"
    );
    assert!(!findings.iter().any(|(rule, ..)| rule == "brief/adr-missing"), "{findings:?}");
}

#[test]
fn madr_records_under_configured_adrs_paths_are_found() {
    let config = [(".github/gatehouse.yml", "adrs:\n  paths: [\"architecture/records/*.md\"]\n")];
    let cites = brief(
        "SWARM-MC",
        &["ADR-0001", "ADR-2"],
        &["Sessions stay in Redis with the twelve-hour TTL (ADR-0001).", "Keep the HS256 secret as ADR-2 decided it."],
    );
    let findings = check(("madr/docs/decisions", "architecture/records"), &config, &[("SWARM-MC", cites)]);
    assert!(!findings.iter().any(|(rule, ..)| rule == "brief/adr-missing"), "{findings:?}");
    assert!(
        findings.iter().any(|(rule, _, m)| rule == "brief/adr-superseded" && m == "ADR-2 is superseded by ADR-3"),
        "{findings:?}"
    );
}

#[test]
fn adr_tools_records_are_found_and_their_links_read() {
    let clean = brief(
        "SWARM-AT",
        &["ADR-1", "ADR-003", "ADR-0005"],
        &[
            "Write a numbered record in doc/adr for the new timer, as ADR-1 asks of each decision.",
            "The job logs to standard output and journald keeps it (ADR-003).",
            "See ADR-0005: the job is a systemd service started by a timer, with OnFailure set.",
        ],
    );
    let findings = check(("adr-tools", ""), &[], &[("SWARM-AT", clean)]);
    assert_eq!(errors(&findings), Vec::<&(String, String, String)>::new(), "amended is still in force: {findings:?}");

    let retired = brief(
        "SWARM-AU",
        &["ADR-2", "ADR-004"],
        &["Add the job to each host's crontab (ADR-2).", "Forward the job's logs with rsyslog, as ADR-004 decides."],
    );
    let findings = check(("adr-tools", ""), &[], &[("SWARM-AU", retired)]);
    let superseded: Vec<&str> =
        findings.iter().filter(|(rule, ..)| rule == "brief/adr-superseded").map(|(.., m)| m.as_str()).collect();
    assert_eq!(
        superseded,
        vec![
            "ADR-2 is superseded by ADR-5",
            "ADR-004 has status `deprecated` (doc/adr/0004-ship-logs-with-rsyslog.md)"
        ],
        "{findings:?}"
    );
    assert!(!findings.iter().any(|(rule, ..)| rule == "brief/adr-missing"), "{findings:?}");
}

#[test]
fn log4brains_records_are_found_and_on_hold_is_in_force() {
    let clean = brief(
        "SWARM-LB",
        &["ADR-01", "ADR-2"],
        &[
            "Publish the new record on the Log4brains site that CI builds (ADR-01).",
            "Flags stay in environment variables while ADR-2 is on hold for the audit log.",
        ],
    );
    let findings = check(("log4brains", ""), &[], &[("SWARM-LB", clean)]);
    assert_eq!(errors(&findings), Vec::<&(String, String, String)>::new(), "{findings:?}");
}

#[test]
fn npm_adr_status_logs_are_read_by_their_last_entry() {
    let clean = brief(
        "SWARM-NA",
        &["ADR-1", "ADR-0003"],
        &[
            "Write the decision as a numbered record with the `adr` tool (ADR-1).",
            "Invoice jobs are rows claimed with SKIP LOCKED, per ADR-0003.",
        ],
    );
    let findings = check(("npm-adr", ""), &[], &[("SWARM-NA", clean)]);
    assert_eq!(errors(&findings), Vec::<&(String, String, String)>::new(), "{findings:?}");

    let retired = brief(
        "SWARM-NB",
        &["ADR-2", "ADR-004"],
        &["Publish `invoice.requested` to RabbitMQ (ADR-2).", "Render each invoice to PDF, as ADR-004 decides."],
    );
    let findings = check(("npm-adr", ""), &[], &[("SWARM-NB", retired)]);
    let superseded: Vec<&str> =
        findings.iter().filter(|(rule, ..)| rule == "brief/adr-superseded").map(|(.., m)| m.as_str()).collect();
    assert_eq!(
        superseded,
        vec![
            "ADR-2 has status `superseded` (docs/adr/0002-queue-invoices-in-rabbitmq.md)",
            "ADR-004 has status `rejected` (docs/adr/0004-render-invoices-as-pdf.md)"
        ],
        "{findings:?}"
    );
}

/// No convention's folder: the repository holds only the files given.
const NO_FOLDER: (&str, &str) = ("(none)", "");

/// Every way the common tools write a record's status, each in a record of
/// its own that a brief cites: `None` when the record is in force, else the
/// `brief/adr-superseded` message. A spelling with front matter is the whole
/// record; the others are its status lines under a `# 7. …` title.
const STATUS_SPELLINGS: [(&str, &str, Option<&str>); 15] = [
    ("adr-tools, accepted", "## Status\n\nAccepted\n", None),
    (
        "adr-tools, its own spelling",
        "## Status\n\nSuperceded by [9. Next](0009-next.md)\n",
        Some("superseded by ADR-009"),
    ),
    ("Nygard, superseded", "## Status\n\nSuperseded by [9. Next](0009-next.md)\n", Some("superseded by ADR-009")),
    ("adr-tools, amended", "## Status\n\nAccepted\n\nAmended by [9. Next](0009-next.md)\n", None),
    ("adr-tools, amends", "## Status\n\nAccepted\n\nAmends [8. Old](0008-old.md)\n", None),
    ("adr-tools, deprecated", "## Status\n\nDeprecated\n", Some("has status `deprecated`")),
    (
        "npm adr, dated log",
        "## Status\n\n2024-02-01 proposed\n\n2024-03-12 superseded\n",
        Some("has status `superseded`"),
    ),
    ("npm adr, dated log accepted", "## Status\n\n2024-02-01 proposed\n2024-02-09 accepted\n", None),
    (
        "dated log with a colon",
        "## Status\n\n2024-02-01: Proposed\n2024-02-09: Rejected\n",
        Some("has status `rejected`"),
    ),
    ("MADR 2", "* Status: superseded by [ADR-0009](0009-next.md)\n", Some("superseded by ADR-009")),
    ("MADR 2, rejected", "* Status: rejected\n", Some("has status `rejected`")),
    ("log4brains, on hold", "- Status: on hold\n- Date: 2024-10-06\n", None),
    ("bold label", "**Status:** Superceded by ADR-9\n", Some("superseded by ADR-009")),
    // A word no tool writes is said, not read as in force.
    (
        "a status gatehouse does not read",
        "## Status\n\nWIP\n",
        Some("has status `wip`, which gatehouse reads as neither"),
    ),
    (
        "MADR 3 front matter",
        "---\nstatus: deprecated\ndate: 2024-01-02\n---\n# Keep the cache\n\n## Context and Problem Statement\n",
        Some("has status `deprecated`"),
    ),
];

#[test]
fn every_status_spelling_of_the_common_tools_is_read() {
    for (name, status, expected) in STATUS_SPELLINGS {
        let record = if status.starts_with("---") {
            status.to_string()
        } else {
            format!("# 7. Keep the cache\n\nDate: 2024-01-02\n\n{status}\n## Context\n\nThe cache stays warm.\n")
        };
        let cites = brief("SWARM-SP", &["ADR-007"], &["The cache stays warm across deploys (ADR-007)."]);
        let findings = check(NO_FOLDER, &[("doc/adr/0007-keep-the-cache.md", &record)], &[("SWARM-SP", cites)]);
        let superseded: Vec<&str> =
            findings.iter().filter(|(rule, ..)| rule == "brief/adr-superseded").map(|(.., m)| m.as_str()).collect();
        match expected {
            None => assert_eq!(superseded, Vec::<&str>::new(), "{name}: {findings:?}"),
            Some(said) => {
                assert_eq!(superseded.len(), 1, "{name}: {findings:?}");
                assert!(superseded[0].contains(said), "{name}: {superseded:?} should say {said}");
            }
        }
        assert!(!findings.iter().any(|(rule, ..)| rule == "brief/adr-missing"), "{name}: {findings:?}");
    }
}
