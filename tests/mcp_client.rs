//! `gatehouse mcp` driven by the official MCP client SDK (PyPI `mcp`):
//! `tests/mcp/client.py` lists the tools and calls every one (the SDK
//! validates each answer against the tool's output schema); this test
//! reads what it saw.
//!
//! The Python with `mcp` is `GATEHOUSE_MCP_PYTHON` (`.ci/run` sets it to the
//! venv it creates), else `python3` when it can import `mcp`. Without one
//! the test is skipped with a note; under `CI=true` it must run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

mod lsp_client;
use lsp_client::{BRIEF, workspace};

fn python() -> Option<PathBuf> {
    let candidate = std::env::var_os("GATEHOUSE_MCP_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let has_mcp = Command::new(&candidate).args(["-c", "import mcp"]).output().is_ok_and(|out| out.status.success());
    if has_mcp {
        return Some(candidate);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "no Python with the `mcp` package ({}): .ci/run creates a venv with it and sets GATEHOUSE_MCP_PYTHON",
        candidate.display()
    );
    eprintln!("note: no Python with the `mcp` package: skipping the MCP client test (pip install mcp)");
    None
}

const DEMO_AP: &str = "dark-factory/briefs/SWARM-AP-buzzy-features.md";
const DEMO_AR: &str = "dark-factory/briefs/SWARM-AR-pg-backup.md";

/// The demo repository's briefs committed in a checkout of their own, for `verify`.
fn demo_checkout(ws: &Path) -> PathBuf {
    let demo = ws.join("demo");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(demo.join("dark-factory/briefs")).unwrap();
    for brief in [DEMO_AP, DEMO_AR] {
        std::fs::copy(manifest.join("fixtures/demo-repo").join(brief), demo.join(brief)).unwrap();
    }
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"],
    ] {
        assert!(Command::new("git").arg("-C").arg(&demo).args(args).status().unwrap().success());
    }
    demo
}

const GATE_CONFIG: &str = "review:\n  core: { reviewers: [marcus, priya, lin], required: 2 }\n  advisory: [dana]\n";

#[test]
fn the_official_client_lists_and_calls_every_tool() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    workspace(ws);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let voting = "dark-factory/guidelines/backup-scripts@v1.md";
    std::fs::create_dir_all(ws.join("dark-factory/guidelines")).unwrap();
    std::fs::copy(manifest.join("fixtures/demo-repo").join(voting), ws.join(voting)).unwrap();
    std::fs::write(ws.join("gate.yml"), GATE_CONFIG).unwrap();
    let reviews = manifest.join("fixtures/gate/reviews.json");
    let commits = manifest.join("fixtures/gate/commits.json");
    let brief_text = std::fs::read_to_string(ws.join(BRIEF)).unwrap();
    let demo = demo_checkout(ws);
    let public_key = manifest.join("fixtures/attest/signing-key.pub.pem");
    let envelopes = manifest.join("fixtures/attest/demo-envelopes.json");
    let calls = json!([
        ["check", "check", { "all": true }],
        ["check_text", "check", { "path": BRIEF, "text": brief_text.replace("agent: SWARM-AR", "agnet: SWARM-AR") }],
        ["check_bad_repo", "check", { "repo": ws.join("nowhere") }],
        ["explain", "explain", { "rule": "brief/field-type" }],
        ["explain_unknown", "explain", { "rule": "brief/path-mising" }],
        ["rules", "rules", {}],
        ["new_brief", "new_brief", { "agent": "SWARM-AS", "slug": "restore-drill", "touches": ["gyrum-labs/infra"], "adrs": ["ADR-095"], "lines": 40 }],
        ["new_brief_written", "new_brief", { "agent": "SWARM-AT", "slug": "drill-log", "touches": ["gyrum-labs/infra"], "adrs": ["ADR-095"], "lines": 40, "write": true }],
        ["fix", "fix", { "all": true }],
        ["tally", "tally", { "file": voting }],
        ["gate_simulate", "gate_simulate", { "config": "gate.yml", "reviews": reviews, "commits": commits }],
        ["bad_arguments", "tally", { "file": voting, "fiel": 1 }],
        ["verify", "verify", { "repo": demo, "paths": [DEMO_AP, DEMO_AR], "keys": [public_key], "from": envelopes }],
        ["verify_no_key", "verify", { "repo": demo, "keys": [manifest.join("fixtures/attest/signing-key.pem")] }],
    ]);
    let calls_file = ws.join("calls.json");
    std::fs::write(&calls_file, calls.to_string()).unwrap();
    let result = ws.join("mcp-result.json");
    let status = Command::new(python)
        .arg(manifest.join("tests/mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_gatehouse"))
        .arg(ws)
        .arg(&calls_file)
        .arg(&result)
        .status()
        .unwrap();
    assert!(status.success(), "the client exited with {status}");
    let saw: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(saw["server"], "gatehouse");
    let tools = saw["tools"].as_object().unwrap();
    let names: Vec<&str> = tools.keys().map(String::as_str).collect();
    assert_eq!(names, ["check", "explain", "fix", "gate_simulate", "new_brief", "rules", "tally", "verify"]);
    for (name, tool) in tools {
        assert!(tool["description"].as_str().unwrap().contains("Call it"), "{name} says when to call it");
        assert_eq!(tool["input"]["type"], "object", "{name}");
        assert!(tool["output"].is_object(), "{name} has an output schema");
    }
    let call = |label: &str| -> &Value {
        let call = &saw["calls"][label];
        assert_eq!(call.get("exception"), None, "{label}: {call:#}");
        call
    };

    let check = call("check");
    assert_eq!(check["error"], false);
    let rules: Vec<&str> =
        check["structured"]["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"brief/field-type"), "{check:#}");
    let text = call("check_text");
    let rules: Vec<&str> =
        text["structured"]["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"brief/unknown-field") && rules.contains(&"brief/missing-field"), "{text:#}");
    let bad_repo = call("check_bad_repo");
    assert_eq!(bad_repo["error"], true);
    assert_eq!(bad_repo["text"][0], format!("{} is not a folder", ws.join("nowhere").display()));

    let explain = call("explain");
    assert!(explain["structured"]["text"].as_str().unwrap().starts_with("brief/field-type (error by default)"));
    let unknown = call("explain_unknown");
    assert_eq!(unknown["error"], true);
    let message = unknown["text"][0].as_str().unwrap();
    assert!(message.starts_with("no rule `brief/path-mising`; did you mean"), "the CLI's message: {message}");
    assert!(message.contains("brief/path-missing"), "{message}");

    let rules = call("rules");
    assert!(rules["structured"]["rules"].as_array().unwrap().len() > 30, "{rules:#}");

    let dry = call("new_brief");
    assert_eq!(dry["structured"]["written"], false, "{dry:#}");
    assert!(dry["structured"]["text"].as_str().unwrap().starts_with("---\nagent: SWARM-AS\n"), "{dry:#}");
    assert!(!ws.join("dark-factory/briefs/SWARM-AS-restore-drill.md").exists(), "not asked to write");
    let written = call("new_brief_written");
    assert_eq!(written["structured"]["written"], true, "{written:#}");
    let on_disk = std::fs::read_to_string(ws.join("dark-factory/briefs/SWARM-AT-drill-log.md")).unwrap();
    assert_eq!(written["structured"]["text"], on_disk);

    let fix = call("fix");
    let fixes = fix["structured"]["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 1, "{fix:#}");
    assert_eq!(fixes[0]["fix"]["edits"][0]["replacement"], "80");

    let tally = call("tally");
    assert_eq!(tally["error"], false, "{tally:#}");
    assert!(tally["structured"]["sections"].is_array(), "{tally:#}");
    let gate = call("gate_simulate");
    assert_eq!(gate["error"], false, "{gate:#}");
    assert!(gate["structured"]["passed"].is_boolean(), "{gate:#}");
    let verify = call("verify");
    assert_eq!(verify["error"], false, "{verify:#}");
    let documents = verify["structured"]["documents"].as_array().unwrap();
    let statuses: Vec<(&str, &str)> =
        documents.iter().map(|d| (d["path"].as_str().unwrap(), d["status"].as_str().unwrap())).collect();
    assert_eq!(statuses, [(DEMO_AP, "verified"), (DEMO_AR, "unattested")]);
    assert_eq!(documents[0]["approvals"][0]["login"], "gyrum-priya");
    let no_key = call("verify_no_key");
    assert_eq!(no_key["error"], true, "{no_key:#}");
    assert!(no_key["text"][0].as_str().unwrap().contains("not an Ed25519 public key"), "{no_key:#}");
    let bad = call("bad_arguments");
    assert_eq!(bad["error"], true, "{bad:#}");
    assert!(bad["text"][0].as_str().unwrap().contains("unknown field `fiel`"), "{bad:#}");
}
