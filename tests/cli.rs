//! `gatehouse check` end to end, on temporary git repositories built here:
//! base/head commits, uncommitted edits, and `--all` on a plain folder.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod local_repo;
use local_repo::{ADR, GOOD, git, write};

const BRIEF: &str = "dark-factory/briefs/SWARM-AR-pg-backup.md";

/// A repository whose `main` holds an ADR, a script and a good brief; HEAD is
/// on a `feature` branch.
fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    write(dir, "docs/adr/ADR-095-backups.md", ADR);
    write(dir, "scripts/backup.sh", "#!/bin/sh\n");
    write(dir, BRIEF, GOOD);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    git(dir, &["checkout", "-qb", "feature"]);
    tmp
}

fn gatehouse(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse")).arg("check").arg("--repo").arg(dir).args(args).output().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn rules_at(v: &Value) -> Vec<(String, String, u64)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().into(), f["path"].as_str().unwrap().into(), f["line"].as_u64().unwrap()))
        .collect()
}

#[test]
fn committed_head_against_base() {
    let tmp = repo();
    let dir = tmp.path();
    write(
        dir,
        "dark-factory/briefs/SWARM-AS-restore.md",
        &GOOD.replace("SWARM-AR", "SWARM-AS").replace("`scripts/backup.sh`.", "`scripts/restore.sh`."),
    );
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "head"]);
    let out = gatehouse(dir, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(
        rules_at(&v),
        vec![("brief/path-missing".into(), "dark-factory/briefs/SWARM-AS-restore.md".into(), 13)],
        "only the new brief is checked, and only its bad path fires"
    );
    assert_eq!(v["checks"][0]["name"], "gatehouse/config");
    assert_eq!(v["checks"][0]["summary"], "the change does not touch `.github/gatehouse.yml`");
    assert_eq!(v["checks"][1]["name"], "gatehouse/briefs");
    assert_eq!(v["checks"][1]["conclusion"], "failure");
    assert_eq!(v["checks"][1]["documents"], 1);
    assert_eq!(v["checks"][1]["summary"], "1 document checked");
    let f = &v["findings"][0];
    for key in ["severity", "end_line", "message", "help", "fingerprint"] {
        assert!(!f[key].is_null(), "finding has {key}");
    }
    // The same comparison named explicitly.
    let explicit = gatehouse(dir, &["--base", "main", "--head", "HEAD", "--format", "json"]);
    assert_eq!(rules_at(&json(&explicit)), rules_at(&v));
}

#[test]
fn uncommitted_edits_are_the_head() {
    let tmp = repo();
    let dir = tmp.path();
    let clean = gatehouse(dir, &["--format", "json"]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(json(&clean)["checks"][1]["conclusion"], "neutral", "nothing changed yet");

    // Editing the merged brief in the working tree, without committing.
    write(dir, BRIEF, &GOOD.replace("lines_estimate: 80", "lines_estimate: lots"));
    let out = gatehouse(dir, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let mut found = rules_at(&json(&out));
    found.sort();
    assert_eq!(
        found,
        vec![("brief/edited-after-merge".into(), BRIEF.into(), 9), ("brief/field-type".into(), BRIEF.into(), 9),]
    );

    // An untracked new brief counts too.
    write(dir, BRIEF, GOOD);
    write(dir, "dark-factory/briefs/SWARM-AT-x.md", &GOOD.replace("SWARM-AR", "SWARM-AT").replace("80", "800"));
    let out = gatehouse(dir, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "a notice does not fail: {}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        rules_at(&json(&out)),
        vec![("brief/review-required".into(), "dark-factory/briefs/SWARM-AT-x.md".into(), 9)]
    );
}

#[test]
fn all_on_a_plain_folder_and_text_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "docs/adr/ADR-095-backups.md", ADR);
    write(dir, "scripts/backup.sh", "#!/bin/sh\n");
    write(
        dir,
        BRIEF,
        &GOOD.replace("  - a UI button for restores\n", "").replace("out_of_scope:\n", "out_of_scope: []\n"),
    );
    let out = gatehouse(dir, &["--all"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("warning[brief/out-of-scope-empty]: `out_of_scope` is empty"), "{text}");
    assert!(text.contains(&format!("--> {BRIEF}:7:15")), "{text}");
    assert!(text.contains("7 | out_of_scope: []\n  |               ^^\n"), "{text}");
    assert!(text.contains("= help: list what the agent must leave alone"), "{text}");
    assert!(
        text.contains("gatehouse/briefs       success  1 document checked; 0 errors, 1 warning, 0 notices"),
        "{text}"
    );

    // Without --all a plain folder is a setup failure.
    let out = gatehouse(dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository; pass --all"));
}

#[test]
fn config_comes_from_the_base() {
    let tmp = repo();
    let dir = tmp.path();
    write(dir, ".github/gatehouse.yml", "rules:\n  brief/review-required: off\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "config"]);
    git(dir, &["branch", "-f", "main", "HEAD"]);
    // The change turns the rule back on and adds a brief that would fire it.
    write(dir, ".github/gatehouse.yml", "rules:\n  brief/review-required: error\n");
    write(dir, "dark-factory/briefs/SWARM-AT-x.md", &GOOD.replace("SWARM-AR", "SWARM-AT").replace("80", "800"));
    let out = gatehouse(dir, &["--format", "json"]);
    let v = json(&out);
    assert_eq!(rules_at(&v), vec![], "the base config's `off` wins");
    assert_eq!(
        (&v["checks"][0]["name"], &v["checks"][0]["conclusion"]),
        (&Value::from("gatehouse/config"), &Value::from("success"))
    );
    assert_eq!(
        (&v["checks"][1]["name"], &v["checks"][1]["conclusion"]),
        (&Value::from("gatehouse/briefs"), &Value::from("success"))
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_invalid_config_fails_its_own_check_and_leaves_the_others_neutral() {
    let tmp = repo();
    let dir = tmp.path();
    write(dir, ".github/gatehouse.yml", "briefs:\n  review_treshold:\n    lines: 200\nrules:\n  brief/nope: off\n");
    write(dir, "dark-factory/briefs/SWARM-AT-x.md", &GOOD.replace("SWARM-AR", "SWARM-AT").replace("80", "lots"));
    let out = gatehouse(dir, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(
        rules_at(&v),
        vec![
            ("config/invalid".into(), ".github/gatehouse.yml".into(), 2),
            ("config/invalid".into(), ".github/gatehouse.yml".into(), 5)
        ],
        "the brief's wrong type is not reported: the briefs were not evaluated"
    );
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["check"] == "gatehouse/config"), "{v}");
    assert_eq!(
        v["findings"][0]["help"],
        "did you mean `review_threshold`? The keys of `briefs` are `paths`, `review_threshold`."
    );
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(
        (&checks[0]["name"], &checks[0]["conclusion"]),
        (&Value::from("gatehouse/config"), &Value::from("failure"))
    );
    assert_eq!(checks[0]["summary"], "`.github/gatehouse.yml` checked");
    for check in &checks[1..] {
        assert_eq!(check["conclusion"], "neutral", "{check}");
        assert_eq!(check["summary"], "not evaluated: the config is invalid", "{check}");
        assert_eq!(check["documents"], 0, "{check}");
    }
    let text = String::from_utf8(gatehouse(dir, &[]).stdout).unwrap();
    assert!(
        text.contains(
            "gatehouse/config       failure  `.github/gatehouse.yml` checked; 2 errors, 0 warnings, 0 notices\n"
        ),
        "{text}"
    );
    assert!(text.contains("gatehouse/voting       neutral  not evaluated: the config is invalid\n"), "{text}");
    assert!(text.contains("  = help: did you mean `review_threshold`?"), "{text}");
}

#[test]
fn the_pull_request_body_is_no_document() {
    let tmp = repo();
    let dir = tmp.path();
    let outside = tempfile::tempdir().unwrap();
    let body = outside.path().join("pr.md");
    std::fs::write(&body, "Brief: SWARM-AR-pg-backup\n").unwrap();
    let args = ["--repo-name", "gyrum-labs/infra", "--pr-body", body.to_str().unwrap()];
    let out = gatehouse(dir, &[&args[..], &["--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v = json(&out);
    let briefs = &v["checks"][1];
    assert_eq!(briefs["name"], "gatehouse/briefs");
    assert_eq!(briefs["documents"], 0, "{briefs}");
    assert_eq!(briefs["summary"], "no agent briefs changed; 1 cite in the pull request body checked");
    assert_eq!(briefs["conclusion"], "success", "the cite names a merged brief and the change stays inside it");
    let text = String::from_utf8(gatehouse(dir, &args).stdout).unwrap();
    assert!(
        text.contains(
            "gatehouse/briefs       success  no agent briefs changed; 1 cite in the pull request body checked; 0 errors"
        ),
        "{text}"
    );
    assert!(!text.contains("1 document checked"), "{text}");
}

#[test]
fn pr_body_repo_roots_and_setup_errors() {
    let tmp = repo();
    let dir = tmp.path();
    let infra = tempfile::tempdir().unwrap();
    write(infra.path(), "hosts/db.yml", "db: {}\n");
    let brief = GOOD
        .replace("[gyrum-labs/infra]", "[gyrum-labs/infra, gyrum-labs/hosts]")
        .replace("SWARM-AR", "SWARM-AU")
        .replace(
            "`scripts/backup.sh`.",
            "`scripts/backup.sh` and `gyrum-labs/hosts:hosts/db.yml` and `gyrum-labs/hosts:hosts/web.yml`.",
        );
    write(dir, "dark-factory/briefs/SWARM-AU-hosts.md", &brief);
    let unverified = json(&gatehouse(dir, &["--repo-name", "gyrum-labs/infra", "--format", "json"]));
    let rules: Vec<String> = rules_at(&unverified).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(
        rules,
        vec!["brief/review-required", "brief/path-unverifiable", "brief/path-unverifiable"],
        "two repos need review"
    );
    let root = format!("gyrum-labs/hosts={}", infra.path().display());
    let out = gatehouse(dir, &["--repo-name", "gyrum-labs/infra", "--repo-root", &root, "--format", "json"]);
    let rules: Vec<(String, String, u64)> = rules_at(&json(&out));
    let brief = "dark-factory/briefs/SWARM-AU-hosts.md".to_string();
    assert_eq!(
        rules,
        vec![("brief/review-required".into(), brief.clone(), 3), ("brief/path-missing".into(), brief, 13)],
        "the repository cut is reported on `repos_touched`"
    );

    let out = gatehouse(dir, &["--pr-body", "/nonexistent/body.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read --pr-body"));
    let out = gatehouse(dir, &["--base", "no-such-rev"]);
    assert_eq!(out.status.code(), Some(2));
    let out = gatehouse(dir, &["--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn rules_and_explain() {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse")).arg("rules").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.starts_with("brief/path-missing") && l.contains("error")), "{text}");
    let out =
        Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(["explain", "brief/untestable-criterion"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ADR-099") && text.contains("Fails:") && text.contains("Passes:"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(["explain", "brief/nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn paths_at_a_named_revision() {
    let tmp = repo();
    let dir = tmp.path();
    write(dir, "scripts/new.sh", "#!/bin/sh\n");
    let brief = GOOD.replace("SWARM-AR", "SWARM-AV").replace(
        "`scripts/backup.sh`.",
        "`gyrum-labs/infra@main:scripts/backup.sh`, `gyrum-labs/infra@main:scripts/new.sh`, `scripts/new.sh`.",
    );
    write(dir, "dark-factory/briefs/SWARM-AV-rev.md", &brief);
    let out = gatehouse(dir, &["--repo-name", "gyrum-labs/infra", "--format", "json"]);
    let v = json(&out);
    assert_eq!(rules_at(&v), vec![("brief/path-missing".into(), "dark-factory/briefs/SWARM-AV-rev.md".into(), 13)]);
    let message = v["findings"][0]["message"].as_str().unwrap();
    assert_eq!(message, "path `scripts/new.sh` does not exist in gyrum-labs/infra@main");
    assert_eq!(v["findings"][0]["column"], 70, "the second span on the line");
}

#[test]
fn an_implementation_pr_citing_a_brief() {
    let tmp = repo();
    let dir = tmp.path();
    let outside = tempfile::tempdir().unwrap();
    let body = outside.path().join("pr.md");
    std::fs::write(&body, "Adds the upload.\n\nBrief: SWARM-AR-pg-backup\nBrief: SWARM-ZZ-missing\n").unwrap();
    // 200 lines added and 1 deleted in a tracked file, 1 in an untracked one.
    let big: String = (0..200).map(|i| format!("echo {i}\n")).collect();
    write(dir, "scripts/backup.sh", &big);
    write(dir, "scripts/upload.sh", "#!/bin/sh\n");
    let out =
        gatehouse(dir, &["--repo-name", "gyrum-labs/infra", "--pr-body", body.to_str().unwrap(), "--format", "json"]);
    let v = json(&out);
    assert_eq!(
        rules_at(&v),
        vec![
            ("cite/brief-size".into(), "(pull request body)".into(), 3),
            ("cite/brief".into(), "(pull request body)".into(), 4),
        ]
    );
    assert_eq!(
        v["findings"][0]["message"],
        "this PR changes 202 lines, more than twice the brief's lines_estimate of 80"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn tally_one_voting_doc() {
    let doc =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo/dark-factory/guidelines/backup-scripts@v1.md");
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .arg("tally")
        .arg(&doc)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let states: Vec<&str> = v["sections"].as_array().unwrap().iter().map(|s| s["section"].as_str().unwrap()).collect();
    assert_eq!(states, vec!["backup-dry-run", "restore-runbook", "backup-retention"]);
    let text = Command::new(env!("CARGO_BIN_EXE_gatehouse")).arg("tally").arg(&doc).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("state            retirement-eligible (may retire: B)"), "{text}");
    assert!(text.contains("state            consensus-locked"), "{text}");
    let missing = Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(["tally", "/nonexistent.md"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn paths_at_a_tag_are_looked_up_like_branches_and_shas() {
    let tmp = repo();
    let dir = tmp.path();
    git(dir, &["tag", "v1.2", "main"]);
    git(dir, &["tag", "-a", "-m", "release", "release-1.3", "main"]);
    let brief = GOOD.replace("SWARM-AR", "SWARM-AW").replace(
        "`scripts/backup.sh`.",
        "`gyrum-labs/infra@v1.2:scripts/backup.sh`, `gyrum-labs/infra@release-1.3:scripts/backup.sh`,\n\
         `gyrum-labs/infra@v1.2:scripts/restore.sh`.",
    );
    write(dir, "dark-factory/briefs/SWARM-AW-tag.md", &brief);
    let v = json(&gatehouse(dir, &["--repo-name", "gyrum-labs/infra", "--format", "json"]));
    assert_eq!(rules_at(&v), vec![("brief/path-missing".into(), "dark-factory/briefs/SWARM-AW-tag.md".into(), 14)]);
    assert_eq!(v["findings"][0]["message"], "path `scripts/restore.sh` does not exist in gyrum-labs/infra@v1.2");
}

/// A git failure ends with git's own reason and what to do instead.
#[test]
fn git_failures_end_with_gits_reason_and_what_to_do() {
    let tmp = repo();
    let dir = tmp.path();
    let check = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
            .env("LC_ALL", "C")
            .arg("check")
            .arg("--repo")
            .arg(dir)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let help = "help: pass a branch, tag or commit id that";
    let stderr = check(&["--base", "nosuchrev"]);
    assert!(stderr.contains("`nosuchrev` is not a commit in"), "{stderr}");
    assert!(stderr.contains("git says: fatal: bad revision 'nosuchrev^{commit}'"), "{stderr}");
    assert!(stderr.trim_end().lines().last().unwrap().starts_with(help), "{stderr}");
    let stderr = check(&["--head", "main^{tree}"]);
    assert!(stderr.contains("expected commit type, but the object dereferences to tree type"), "{stderr}");
    assert!(stderr.trim_end().lines().last().unwrap().starts_with(help), "{stderr}");
    let stderr = check(&["--base=--output=x"]);
    assert!(stderr.contains("`--output=x` is not a revision: a revision does not start with `-`"), "{stderr}");

    git(dir, &["checkout", "-q", "--orphan", "lonely"]);
    git(dir, &["commit", "-qm", "unrelated"]);
    let stderr = check(&[]);
    assert!(
        stderr.contains(
            "HEAD and main have no common ancestor: `git merge-base HEAD main` failed: git printed no reason"
        ),
        "{stderr}"
    );
    assert!(stderr.trim_end().ends_with("help: pass --base REV"), "{stderr}");
}

#[test]
fn serve_with_a_bad_key_says_so_and_creates_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gatehouse.db");
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .arg("serve")
        .current_dir(dir.path())
        .env("GATEHOUSE_APP_ID", "1")
        .env("GATEHOUSE_PRIVATE_KEY", "not a key")
        .env_remove("GATEHOUSE_PRIVATE_KEY_PATH")
        .env("GATEHOUSE_WEBHOOK_SECRET", "s")
        .env("GATEHOUSE_DATABASE_URL", format!("sqlite://{}", db.display()))
        .env("GATEHOUSE_BIND", "127.0.0.1:0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.to_lowercase().contains("key"), "{stderr}");
    assert!(!db.exists(), "no database is created before the key is checked");
}

#[test]
fn a_folder_with_nothing_to_check_says_where_gatehouse_looked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    let out = gatehouse(dir.path(), &["--all"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("No governed document was found"), "{stdout}");
    assert!(stdout.contains("dark-factory/briefs/*.md") && stdout.contains("fondue/specs"), "{stdout}");
    let json = gatehouse(dir.path(), &["--all", "--format", "json"]);
    assert!(!String::from_utf8_lossy(&json.stdout).contains("No governed"), "JSON output stays JSON");
}

#[test]
fn a_brief_outside_the_configured_paths_is_named_with_the_path_that_would_find_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("briefs")).unwrap();
    let brief = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo/dark-factory/briefs/SWARM-AR-pg-backup.md"),
    )
    .unwrap();
    std::fs::write(dir.path().join("briefs/SWARM-AR-pg-backup.md"), brief).unwrap();
    let out = gatehouse(dir.path(), &["--all"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("No governed document was found"), "{stdout}");
    assert!(
        stdout.contains("briefs/SWARM-AR-pg-backup.md: add `briefs/*.md` to `briefs.paths`"),
        "the look-alike brief and the path that would find it: {stdout}"
    );
}

#[test]
fn text_shows_no_markdown_and_markdown_is_there_for_a_file_that_asks() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-repo");
    let text = gatehouse(&demo, &["--all"]);
    let text = String::from_utf8_lossy(&text.stdout);
    for markup in ["|---", "**", "| Section", "### "] {
        assert!(!text.contains(markup), "the text report shows `{markup}`:\n{text}");
    }
    assert!(text.contains("backup-dry-run    A +7.5 · B +0.5  10 (met)"), "tables as aligned columns:\n{text}");
    assert_eq!(text.matches("bootstrap unlock").count(), 1, "said once:\n{text}");
    let markdown = gatehouse(&demo, &["--all", "--format", "markdown"]);
    assert_eq!(markdown.status.code(), Some(1), "the exit status does not depend on the format");
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    assert!(markdown.starts_with("| Check | Conclusion | Summary |\n|---|---|---|\n"), "{markdown}");
    assert!(markdown.contains("\n### `gatehouse/voting`\n"), "{markdown}");
    assert!(markdown.contains("| backup-dry-run | **A** +7.5 · B +0.5 | 10 (met) |"), "{markdown}");
}

#[test]
fn owners_names_the_deciding_line_the_lines_it_overrides_and_the_rosters() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["owners", "infra/db/main.tf", "--repo", "fixtures/owners/repo", "--format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["codeowners"]["line"], 6);
    assert_eq!(v[0]["codeowners"]["owners"], serde_json::json!(["@acme/sre"]));
    assert_eq!(v[0]["overridden"][0]["pattern"], "*");
    assert_eq!(v[0]["rosters"][0]["all_of"], serde_json::json!([[1, ["@acme/dba"]]]));
    assert_eq!(v[0]["owners_required"], false);
}

#[test]
fn owners_at_a_checkouts_root_reads_the_base_not_the_working_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    write(dir, ".github/CODEOWNERS", "* @base-owner\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    git(dir, &["checkout", "-qb", "change"]);
    write(dir, ".github/CODEOWNERS", "* @edited-owner\n");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["owners", "src/lib.rs", "--repo"])
        .arg(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(".github/CODEOWNERS:1 `*`: @base-owner"), "{stdout}");
}
