//! The GitHub Action (`action.yml`) run as GitHub's runner runs a composite
//! action ("Metadata syntax for GitHub Actions", "Variables" and "Workflow
//! commands" in GitHub's docs): each `run` step by bash in the workspace
//! (or its `working-directory`), its `env` with the `${{ inputs.* }}` and
//! `${{ github.* }}` expressions the action uses filled in, the documented
//! `GITHUB_*` variables and a `pull_request` event file, and what a step
//! appends to `$GITHUB_PATH` on the next step's `PATH`. The install step is
//! given the binary this build made through the action's `binary` input.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use gatehouse::docs::yaml::{self, Node};
use serde_json::{Value, json};

fn to_json(node: Node) -> Value {
    if let Some(entries) = node.as_map() {
        return Value::Object(entries.iter().map(|(k, v)| (k.name.to_string(), to_json(v))).collect());
    }
    if let Some(items) = node.as_seq() {
        return Value::Array(items.iter().map(to_json).collect());
    }
    Value::String(node.scalar_text().unwrap_or_default().to_string())
}

fn action() -> Value {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let tree = yaml::parse(&text, 1).expect("action.yml is YAML");
    to_json(tree.root())
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Lin")
        .env("GIT_AUTHOR_EMAIL", "lin@example.com")
        .env("GIT_COMMITTER_NAME", "Lin")
        .env("GIT_COMMITTER_EMAIL", "lin@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const ADR: &str = "# ADR-095: Backups\n\nStatus: Accepted\n\nBackups go to the bucket.\n";

fn brief(cites: &str) -> String {
    format!(
        "---\nagent: SWARM-AR\nrepos_touched: [acme/docs]\nadrs_referenced: [{cites}]\nsuccess_criteria:\n  - \"`scripts/backup.sh --dry-run` exits 0 and prints the bucket name\"\nout_of_scope:\n  - on-host pg_dump storage\nlines_estimate: 40\n---\n\n# Backups\n\nFollows {cites} for the bucket layout.\n"
    )
}

/// A checkout of a pull request: `main` with an ADR, the head branch
/// adding a brief that cites `cites`, `main` moved on after it branched
/// (the merge base is not the base tip). Returns (base tip, head).
fn checkout(dir: &Path, cites: &str) -> (String, String) {
    git(dir, &["init", "-q", "-b", "main"]);
    write(dir, "docs/adr/ADR-095-backups.md", ADR);
    write(dir, "README.md", "# docs\n");
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    git(dir, &["checkout", "-q", "-b", "change"]);
    write(dir, "dark-factory/briefs/SWARM-AR-backups.md", &brief(cites));
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "brief"]);
    let head = git(dir, &["rev-parse", "HEAD"]);
    git(dir, &["checkout", "-q", "main"]);
    write(dir, "README.md", "# docs\n\nMore.\n");
    git(dir, &["commit", "-q", "-am", "main moves on"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    git(dir, &["checkout", "-q", "--detach", &head]);
    (base, head)
}

/// What a run of the action left.
struct Ran {
    /// Each step's exit status, in order, until one failed.
    statuses: Vec<i32>,
    stdout: String,
    summary: String,
    outputs: BTreeMap<String, String>,
}

/// Fills in the expressions the action uses; any other expression fails
/// the test (the runner would evaluate it, this test would not).
fn expand(value: &str, inputs: &BTreeMap<String, String>, github: &BTreeMap<&str, String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("a closed expression") + start;
        let expr = rest[start + 3..end].trim();
        let filled = if let Some(name) = expr.strip_prefix("inputs.") {
            inputs.get(name).cloned().unwrap_or_else(|| panic!("no input {name}"))
        } else if let Some(name) = expr.strip_prefix("github.") {
            github.get(name).cloned().unwrap_or_else(|| panic!("no github.{name} in this test"))
        } else {
            panic!("an expression this test does not evaluate: {expr}")
        };
        out.push_str(&filled);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

fn run_action(workspace: &Path, event: &Value, given: &[(&str, &str)]) -> Ran {
    let action = action();
    assert_eq!(action["runs"]["using"], "composite");
    let temp = tempfile::tempdir().unwrap();
    let runner_temp = temp.path().join("runner-temp");
    std::fs::create_dir_all(&runner_temp).unwrap();
    let event_path = temp.path().join("event.json");
    std::fs::write(&event_path, serde_json::to_vec(event).unwrap()).unwrap();
    let files: BTreeMap<&str, PathBuf> = ["GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV"]
        .into_iter()
        .map(|name| {
            let path = temp.path().join(name.to_ascii_lowercase());
            std::fs::write(&path, "").unwrap();
            (name, path)
        })
        .collect();
    let mut inputs: BTreeMap<String, String> = action["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, spec)| (name.clone(), spec["default"].as_str().unwrap_or("").to_string()))
        .collect();
    for (name, value) in given {
        assert!(inputs.contains_key(*name), "the action has no input {name}");
        inputs.insert(name.to_string(), value.to_string());
    }
    let github: BTreeMap<&str, String> =
        [("action_repository", "gatehouse-dev/gatehouse".to_string()), ("action_ref", "v0.1.0".to_string())].into();
    let mut ran = Ran { statuses: Vec::new(), stdout: String::new(), summary: String::new(), outputs: BTreeMap::new() };
    for step in action["runs"]["steps"].as_array().unwrap() {
        assert_eq!(step["shell"], "bash", "{step}");
        let script = step["run"].as_str().expect("a run step");
        let dir = step["working-directory"]
            .as_str()
            .map_or(workspace.to_path_buf(), |d| workspace.join(expand(d, &inputs, &github)));
        // What earlier steps added to $GITHUB_PATH comes first on PATH.
        let added: Vec<String> =
            std::fs::read_to_string(&files["GITHUB_PATH"]).unwrap().lines().rev().map(str::to_string).collect();
        let path = added.into_iter().chain([std::env::var("PATH").unwrap()]).collect::<Vec<_>>().join(":");
        let mut command = Command::new("bash");
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(dir)
            .env_clear()
            .env("PATH", path)
            .env("HOME", temp.path())
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", &event_path)
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_REPOSITORY", "acme/docs")
            .env("GITHUB_SHA", event["pull_request"]["head"]["sha"].as_str().unwrap())
            .env("GITHUB_REF", "refs/pull/1/merge")
            .env("GITHUB_ACTION_PATH", env!("CARGO_MANIFEST_DIR"))
            .env("RUNNER_TEMP", &runner_temp)
            .env("RUNNER_OS", "Linux");
        for (name, file) in &files {
            command.env(name, file);
        }
        if let Some(env) = step["env"].as_object() {
            for (name, value) in env {
                command.env(name, expand(value.as_str().unwrap(), &inputs, &github));
            }
        }
        let out = command.output().unwrap();
        ran.stdout.push_str(&String::from_utf8_lossy(&out.stdout));
        let status = out.status.code().unwrap_or(-1);
        ran.statuses.push(status);
        if status != 0 {
            eprintln!("step {} failed: {}", step["name"], String::from_utf8_lossy(&out.stderr));
            break;
        }
    }
    ran.summary = std::fs::read_to_string(&files["GITHUB_STEP_SUMMARY"]).unwrap();
    for line in std::fs::read_to_string(&files["GITHUB_OUTPUT"]).unwrap().lines() {
        let (name, value) = line.split_once('=').expect("name=value");
        ran.outputs.insert(name.to_string(), value.to_string());
    }
    ran
}

/// A `pull_request.opened` event file as GitHub writes it (the fields the
/// action reads, among others).
fn event(base: &str, head: &str, body: &str) -> Value {
    json!({
        "action": "opened",
        "number": 1,
        "pull_request": {
            "number": 1, "state": "open", "draft": false, "title": "Backups", "body": body,
            "user": { "login": "lin", "type": "User" },
            "base": { "ref": "main", "sha": base, "repo": { "full_name": "acme/docs" } },
            "head": { "ref": "change", "sha": head, "repo": { "full_name": "acme/docs" } },
        },
        "repository": { "full_name": "acme/docs", "default_branch": "main" },
        "sender": { "login": "lin", "type": "User" },
    })
}

const BINARY: &str = env!("CARGO_BIN_EXE_gatehouse");

#[test]
fn a_failing_pull_request_is_annotated_summarised_and_written_as_sarif() {
    let repo = tempfile::tempdir().unwrap();
    let (base, head) = checkout(repo.path(), "ADR-404");
    let sarif = repo.path().join("gatehouse.sarif");
    let ran = run_action(
        repo.path(),
        &event(&base, &head, "Backups."),
        &[("binary", BINARY), ("sarif", sarif.to_str().unwrap())],
    );
    assert_eq!(ran.statuses, [0, 1], "installed, then the check fails: {}", ran.stdout);
    assert!(ran.stdout.contains("gatehouse "), "the installed version is printed: {}", ran.stdout);
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with("::error file=dark-factory/briefs/SWARM-AR-backups.md,line=")
                && l.contains("ADR-404")),
        "an annotation on the brief: {}",
        ran.stdout
    );
    assert!(ran.summary.starts_with("## gatehouse: errors block the merge\n"), "{}", ran.summary);
    let merge_base = git(repo.path(), &["merge-base", &base, &head]);
    assert!(ran.summary.contains(&format!("`{}..{}`", &merge_base[..7], &head[..7])), "{}", ran.summary);
    assert!(ran.summary.contains("ADR-404"), "{}", ran.summary);
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(written["version"], "2.1.0");
    assert!(!written["runs"][0]["results"].as_array().unwrap().is_empty(), "{written}");
    assert_eq!(ran.outputs.get("sarif-file").map(String::as_str), sarif.to_str());
    assert_ne!(ran.outputs.get("findings").map(String::as_str), Some("0"));
}

#[test]
fn a_passing_pull_request_passes_with_nothing_annotated() {
    let repo = tempfile::tempdir().unwrap();
    let (base, head) = checkout(repo.path(), "ADR-095");
    let ran = run_action(repo.path(), &event(&base, &head, "Backups."), &[("binary", BINARY)]);
    assert_eq!(ran.statuses, [0, 0], "{}", ran.stdout);
    assert!(!ran.stdout.contains("::error"), "{}", ran.stdout);
    assert!(ran.summary.starts_with("## gatehouse: the pull request passes\n"), "{}", ran.summary);
    assert!(!ran.outputs.contains_key("sarif-file"), "no SARIF unless asked");
}

#[test]
fn without_a_merge_base_the_action_says_how_to_check_out() {
    let repo = tempfile::tempdir().unwrap();
    let (_, head) = checkout(repo.path(), "ADR-095");
    let unknown = "0123456789abcdef0123456789abcdef01234567";
    let ran = run_action(repo.path(), &event(unknown, &head, ""), &[("binary", BINARY)]);
    assert_eq!(ran.statuses, [0, 2]);
    assert!(ran.stdout.contains("::error title=gatehouse::no merge base of 0123456789"), "{}", ran.stdout);
    assert!(ran.stdout.contains("check out with fetch-depth: 0"), "{}", ran.stdout);
    assert!(ran.summary.is_empty(), "{}", ran.summary);
}
