//! `gatehouse lsp` at the protocol level: the built binary spawned, JSON-RPC
//! spoken over its stdio, one test (at least) for each request it serves.

use serde_json::{Value, json};

mod local_repo;
mod lsp_client;
use lsp_client::{ADR, ADR_TEXT, BRIEF, BRIEF_TEXT, Client, RETIRED_ADR, uri, workspace};

fn start() -> (tempfile::TempDir, Client) {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let client = Client::start(dir.path());
    (dir, client)
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics.iter().map(|d| d["code"].as_str().unwrap()).collect()
}

/// Where `needle` starts in `text`, as a protocol position.
fn position_of(text: &str, needle: &str) -> Value {
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` in the text"));
    let line = text[..at].matches('\n').count();
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({ "line": line, "character": col })
}

fn at(client: &Client, path: &str, text: &str, needle: &str) -> Value {
    json!({ "textDocument": { "uri": uri(&client.root.join(path)) }, "position": position_of(text, needle) })
}

#[test]
fn initialize_announces_what_the_server_serves_and_shutdown_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let mut client = Client::spawn(dir.path());
    let early = client.request("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], -32002, "before initialize: {early}");
    let answer =
        client.request("initialize", json!({ "processId": null, "rootUri": uri(dir.path()), "capabilities": {} }));
    let capabilities = &answer["result"]["capabilities"];
    assert_eq!(capabilities["textDocumentSync"], 1, "full sync: {answer}");
    for provider in ["hoverProvider", "definitionProvider", "codeActionProvider"] {
        assert_eq!(capabilities[provider], true, "{provider}: {answer}");
    }
    assert!(capabilities["completionProvider"].is_object(), "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "gatehouse");
    let again = client.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(again["error"]["code"], -32600, "{again}");
    assert!(client.stop().success());
}

#[test]
fn exit_without_shutdown_exits_one() {
    let (_dir, mut client) = start();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait().code(), Some(1));
}

#[test]
fn an_open_brief_gets_the_diagnostics_check_gives_and_loses_them_when_mended() {
    let (_dir, mut client) = start();
    client.open(BRIEF, BRIEF_TEXT);
    let diagnostics = client.diagnostics(BRIEF);
    assert_eq!(codes(&diagnostics), ["brief/field-type"], "{diagnostics:#?}");
    let d = &diagnostics[0];
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "gatehouse");
    assert_eq!(d["range"], json!({ "start": { "line": 8, "character": 16 }, "end": { "line": 8, "character": 20 } }));
    let message = d["message"].as_str().unwrap();
    assert!(message.starts_with("`lines_estimate` must be a positive integer, found a string\nhelp: "), "{message}");
    assert_eq!(d["data"]["rule"], "brief/field-type");

    // A mistake typed, then mended: each version's diagnostics follow.
    let typo = BRIEF_TEXT.replace("agent: SWARM-AR", "agent: SWARM-AR\nagnet: SWARM-AR");
    client.change(BRIEF, 2, &typo);
    let diagnostics = client.diagnostics_where(BRIEF, |d| d.len() == 2);
    assert_eq!(codes(&diagnostics), ["brief/unknown-field", "brief/field-type"], "{diagnostics:#?}");
    let mended = BRIEF_TEXT.replace("\"80\"", "80");
    client.change(BRIEF, 3, &mended);
    assert_eq!(client.diagnostics_where(BRIEF, |d| d.is_empty()), Vec::<Value>::new());
    assert!(client.stop().success());
}

#[test]
fn a_brief_is_checked_against_unsaved_edits_of_the_adr_it_cites() {
    let (_dir, mut client) = start();
    client.open(BRIEF, BRIEF_TEXT);
    assert_eq!(codes(&client.diagnostics(BRIEF)), ["brief/field-type"]);
    client.open(ADR, ADR_TEXT);
    client.change(ADR, 2, &ADR_TEXT.replace("not a playbook", "and a playbook too"));
    let diagnostics = client.diagnostics_where(BRIEF, |d| d.len() > 1);
    assert!(codes(&diagnostics).contains(&"brief/adr-misquoted"), "{diagnostics:#?}");
    assert!(client.stop().success());
}

#[test]
fn code_actions_are_the_verified_fixes_as_check_fix_makes_them() {
    let (_dir, mut client) = start();
    client.open(BRIEF, BRIEF_TEXT);
    client.diagnostics(BRIEF);
    let range = json!({ "start": { "line": 8, "character": 0 }, "end": { "line": 8, "character": 0 } });
    let answer = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&client.root.join(BRIEF)) }, "range": range, "context": { "diagnostics": [] } }),
    );
    let actions = answer["result"].as_array().unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(actions.len(), 1, "{answer}");
    assert_eq!(actions[0]["title"], "write `lines_estimate: 80` (brief/field-type)");
    assert_eq!(actions[0]["kind"], "quickfix");
    let edits = &actions[0]["edit"]["changes"][uri(&client.root.join(BRIEF))];
    assert_eq!(
        edits,
        &json!([{ "range": { "start": { "line": 8, "character": 16 }, "end": { "line": 8, "character": 20 } }, "newText": "80" }])
    );
    // No fix away from the finding.
    let elsewhere = json!({ "start": { "line": 1, "character": 0 }, "end": { "line": 1, "character": 3 } });
    let answer = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&client.root.join(BRIEF)) }, "range": elsewhere, "context": { "diagnostics": [] } }),
    );
    assert_eq!(answer["result"], json!([]));
    assert!(client.stop().success());
}

#[test]
fn hover_explains_findings_and_rule_ids_and_names_adrs() {
    let (_dir, mut client) = start();
    client.open(BRIEF, BRIEF_TEXT);
    client.diagnostics(BRIEF);
    let on_finding = client.request("textDocument/hover", at(&client, BRIEF, BRIEF_TEXT, "\"80\""));
    let text = on_finding["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("{on_finding}"));
    assert!(text.contains("**brief/field-type**: `lines_estimate` must be a positive integer"), "{text}");
    assert!(text.contains("brief/field-type (error by default)"), "the explain text: {text}");
    assert!(text.contains("Turn it off or change its level"), "{text}");

    let on_adr = client.request("textDocument/hover", at(&client, BRIEF, BRIEF_TEXT, "ADR-095. The"));
    let text = on_adr["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("{on_adr}"));
    assert!(text.contains("**ADR-095**: ADR-095: Backups are a host concern"), "{text}");
    assert!(text.contains("Status: accepted (docs/adr/ADR-095-backups.md)"), "{text}");

    let nothing = client.request("textDocument/hover", at(&client, BRIEF, BRIEF_TEXT, "bucket"));
    assert_eq!(nothing["result"], Value::Null, "{nothing}");

    let config = ".github/gatehouse.yml";
    let config_text = "rules:\n  brief/untestable-criterion: warning\n";
    std::fs::create_dir_all(client.root.join(".github")).unwrap();
    std::fs::write(client.root.join(config), config_text).unwrap();
    let on_rule = client.request("textDocument/hover", at(&client, config, config_text, "untestable"));
    let text = on_rule["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("{on_rule}"));
    assert!(text.contains("brief/untestable-criterion (error by default)"), "{text}");
    assert!(client.stop().success());
}

#[test]
fn a_codeowners_line_shows_its_owners_and_later_lines_and_a_rejected_line_is_a_diagnostic() {
    let (_dir, mut client) = start();
    let path = ".github/CODEOWNERS";
    let text = "*.md  @acme/docs\ndocs/adr/ @architect\n!README.md\n";
    std::fs::create_dir_all(client.root.join(".github")).unwrap();
    std::fs::write(client.root.join(path), text).unwrap();
    client.open(path, text);
    let diagnostics = client.diagnostics(path);
    assert_eq!(codes(&diagnostics), ["config/codeowners"], "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["range"]["start"], json!({ "line": 2, "character": 0 }));
    let on_line = client.request("textDocument/hover", at(&client, path, text, "*.md"));
    let shown = on_line["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("{on_line}"));
    assert!(shown.starts_with("`*.md`: @acme/docs (a team's members are read from GitHub by the App)"), "{shown}");
    assert!(shown.contains("- line 2 (`docs/adr/`) overrides it for `docs/adr/ADR-080-backup-playbook.md`, `docs/adr/ADR-095-backups.md`"), "{shown}");
    assert!(client.stop().success());
}

#[test]
fn definition_goes_to_the_adr_and_the_path_named() {
    let (_dir, mut client) = start();
    client.open(BRIEF, BRIEF_TEXT);
    let adr = client.request("textDocument/definition", at(&client, BRIEF, BRIEF_TEXT, "ADR-095]"));
    assert_eq!(adr["result"]["uri"], uri(&client.root.join(ADR)), "{adr}");
    assert_eq!(adr["result"]["range"]["start"]["line"], 2, "the status line: {adr}");
    let path = client.request("textDocument/definition", at(&client, BRIEF, BRIEF_TEXT, "backup.sh` to"));
    assert_eq!(path["result"]["uri"], uri(&client.root.join("scripts/backup.sh")), "{path}");
    let nothing = client.request("textDocument/definition", at(&client, BRIEF, BRIEF_TEXT, "bucket"));
    assert_eq!(nothing["result"], Value::Null);
    assert!(client.stop().success());
}

#[test]
fn completion_offers_adrs_fields_enum_values_and_paths_in_front_matter() {
    let (_dir, mut client) = start();
    let text = BRIEF_TEXT.replace("adrs_referenced: [ADR-095]", "adrs_referenced: [ADR-");
    client.open(BRIEF, &text);
    let mut position = position_of(&text, "adrs_referenced: [ADR-");
    position["character"] = json!("adrs_referenced: [ADR-".len());
    let doc = json!({ "uri": uri(&client.root.join(BRIEF)) });
    let answer = client.request("textDocument/completion", json!({ "textDocument": doc, "position": position }));
    let items = answer["result"].as_array().unwrap_or_else(|| panic!("{answer}"));
    let labels: Vec<&str> = items.iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["ADR-080", "ADR-095"], "{answer}");
    assert_eq!(items[0]["deprecated"], true);
    assert!(items[0]["detail"].as_str().unwrap().contains("retired"), "{answer}");
    assert_eq!(items[1]["detail"], "ADR-095: Backups are a host concern");

    // A key's position: the schema's fields.
    let fields = client
        .request("textDocument/completion", json!({ "textDocument": doc, "position": { "line": 1, "character": 0 } }));
    let labels: Vec<&str> = fields["result"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    for field in ["agent", "adrs_referenced", "success_criteria", "lines_estimate"] {
        assert!(labels.contains(&field), "{field} in {labels:?}");
    }

    // A path being typed: the files that exist.
    let path_text = text.replace("a UI button for restores", "scripts/ba");
    client.change(BRIEF, 2, &path_text);
    let mut position = position_of(&path_text, "scripts/ba");
    position["character"] = json!(position["character"].as_u64().unwrap() + "scripts/ba".len() as u64);
    let paths = client.request("textDocument/completion", json!({ "textDocument": doc, "position": position }));
    assert_eq!(paths["result"][0]["label"], "scripts/backup.sh", "{paths}");

    // Under `repos_touched`: the repositories the workspace's briefs name.
    let other = BRIEF.replace(".md", "-other.md");
    client.open(&other, &BRIEF_TEXT.replace("gyrum-labs/infra", "gyrum-labs/pipelines"));
    let repos_text = text.replace("repos_touched: [gyrum-labs/infra]", "repos_touched:\n  - ");
    client.change(BRIEF, 3, &repos_text);
    let mut position = position_of(&repos_text, "  - ");
    position["character"] = json!(4);
    let repos = client.request("textDocument/completion", json!({ "textDocument": doc, "position": position }));
    let labels: Vec<&str> = repos["result"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["gyrum-labs/pipelines"], "{repos}");

    // Outside the front matter: nothing.
    let body = client.request(
        "textDocument/completion",
        json!({ "textDocument": doc, "position": position_of(&path_text, "Extend") }),
    );
    assert_eq!(body["result"], json!([]));
    assert!(client.stop().success());
}

#[test]
fn a_changed_adr_on_disk_rechecks_the_open_briefs_that_cite_it() {
    let (dir, mut client) = start();
    client.open(BRIEF, BRIEF_TEXT);
    assert_eq!(codes(&client.diagnostics(BRIEF)), ["brief/field-type"]);
    std::fs::write(dir.path().join(ADR), ADR_TEXT.replace("Status: accepted", "Status: deprecated")).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&dir.path().join(ADR)), "type": 2 }] }),
    );
    let diagnostics = client.diagnostics_where(BRIEF, |d| d.len() > 1);
    assert!(codes(&diagnostics).iter().any(|c| c.contains("retired") || c.contains("superseded")), "{diagnostics:#?}");
    // The retired ADR deleted: the brief still answers.
    std::fs::remove_file(dir.path().join(RETIRED_ADR)).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&dir.path().join(RETIRED_ADR)), "type": 3 }] }),
    );
    client.diagnostics(BRIEF);
    assert!(client.stop().success());
}

#[test]
fn bad_input_gets_an_error_answer_or_a_diagnostic_and_the_server_keeps_serving() {
    let (dir, mut client) = start();
    client.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 77, \"method\": ");
    let malformed = client.answer(&Value::Null);
    assert_eq!(malformed["error"]["code"], -32700, "{malformed}");
    client.send_raw(br#"{"jsonrpc":"2.0","id":78,"method":"textDocument/hover","params":{"textDocument":7}}"#);
    let bad_params = client.answer(&json!(78));
    assert_eq!(bad_params["error"]["code"], -32602, "{bad_params}");
    let unknown = client.request("textDocument/frobnicate", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    // A 50 MB buffer and a binary one: each a diagnostic.
    let huge = format!("{BRIEF_TEXT}{}", "x".repeat(50 * 1024 * 1024));
    client.open(BRIEF, &huge);
    let diagnostics = client.diagnostics_where(BRIEF, |d| !d.is_empty());
    assert_eq!(codes(&diagnostics), ["doc/unreadable"], "{diagnostics:#?}");
    let binary = "dark-factory/briefs/SWARM-AS-binary.md";
    client.open(binary, "---\0\u{1}\u{2}");
    let diagnostics = client.diagnostics_where(binary, |d| !d.is_empty());
    assert_eq!(codes(&diagnostics), ["doc/unreadable"], "{diagnostics:#?}");

    // A document deleted while open: requests on it still answer; one
    // neither open nor on disk gets an error.
    std::fs::remove_file(dir.path().join(BRIEF)).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&dir.path().join(BRIEF)), "type": 3 }] }),
    );
    client.change(BRIEF, 2, BRIEF_TEXT);
    assert_eq!(
        codes(&client.diagnostics_where(BRIEF, |d| d.len() == 1 && d[0]["code"] == "brief/field-type")),
        ["brief/field-type"]
    );
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri(&dir.path().join(BRIEF)) } }));
    assert_eq!(client.diagnostics_where(BRIEF, |d| d.is_empty()), Vec::<Value>::new());
    let gone = client.request("textDocument/hover", at(&client, BRIEF, BRIEF_TEXT, "agent"));
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert!(gone["error"]["message"].as_str().unwrap().contains("neither open nor on disk"), "{gone}");
    assert!(client.stop().success());
}

#[test]
fn in_git_the_change_is_what_differs_from_the_merge_base() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    local_repo::git(dir.path(), &["init", "-q", "-b", "main"]);
    local_repo::git(dir.path(), &["add", "."]);
    local_repo::git(dir.path(), &["commit", "-q", "-m", "briefs"]);
    local_repo::git(dir.path(), &["checkout", "-q", "-b", "work"]);
    let mut client = Client::start(dir.path());
    // Unchanged since the merge base: the change earns nothing, and what the
    // brief held there is shown as information that does not block.
    client.open(BRIEF, BRIEF_TEXT);
    let held = client.diagnostics(BRIEF);
    assert_eq!(codes(&held), ["brief/field-type"], "{held:#?}");
    assert_eq!(held[0]["severity"], 3, "information: {held:#?}");
    let message = held[0]["message"].as_str().unwrap();
    assert!(message.starts_with("An error already on the base, so it does not block this change: "), "{message}");
    assert_eq!(held[0]["data"]["on_base"], true, "{held:#?}");
    let edited = BRIEF_TEXT.replace("agent: SWARM-AR", "agent: SWARM-AR\nagnet: SWARM-AR");
    client.change(BRIEF, 2, &edited);
    // The brief is part of the change now: its findings are the change's,
    // each shown once, with its own severity.
    let diagnostics = client.diagnostics_where(BRIEF, |d| d.iter().any(|d| d["code"] == "brief/unknown-field"));
    let mut found = codes(&diagnostics);
    found.sort();
    assert_eq!(found, ["brief/edited-after-merge", "brief/field-type", "brief/unknown-field"], "{diagnostics:#?}");
    assert!(diagnostics.iter().all(|d| d["data"]["on_base"].is_null()), "{diagnostics:#?}");
    let field_type = diagnostics.iter().find(|d| d["code"] == "brief/field-type").unwrap();
    assert_eq!(field_type["severity"], 1, "an error again: {field_type:#?}");
    assert!(client.stop().success());
}

#[test]
fn definition_goes_to_a_voting_section_and_a_spec_artefact() {
    let (dir, mut client) = start();
    let voting = "dark-factory/guidelines/backup-scripts@v1.md";
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.path().join("dark-factory/guidelines")).unwrap();
    std::fs::copy(manifest.join("fixtures/demo-repo").join(voting), dir.path().join(voting)).unwrap();
    let plan = "fondue/specs/retries/plan/plan.md";
    let plan_text = "# Plan\n\nThe first phase is plan/phase-01.md.\n";
    for (path, text) in [(plan, plan_text), ("fondue/specs/retries/plan/phase-01.md", "# Phase 1\n")] {
        std::fs::create_dir_all(dir.path().join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&dir.path().join(voting)), "type": 1 }] }),
    );
    let text = BRIEF_TEXT.replace("Extend", "Follow backup-scripts@v1#backup-dry-run. Extend");
    client.open(BRIEF, &text);
    let section = client.request("textDocument/definition", at(&client, BRIEF, &text, "scripts@v1#"));
    assert_eq!(section["result"]["uri"], uri(&dir.path().join(voting)), "{section}");
    let voting_text = std::fs::read_to_string(dir.path().join(voting)).unwrap();
    let line = voting_text.lines().position(|l| l == "section: backup-dry-run").unwrap();
    assert_eq!(section["result"]["range"]["start"]["line"], line, "{section}");
    let artefact = client.request("textDocument/definition", at(&client, plan, plan_text, "phase-01.md"));
    assert_eq!(artefact["result"]["uri"], uri(&dir.path().join("fondue/specs/retries/plan/phase-01.md")), "{artefact}");
    assert!(client.stop().success());
}

#[test]
fn a_repository_that_extends_its_organisation_s_policy_is_checked_with_the_file_the_environment_names() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let config = dir.path().join(".github/gatehouse.yml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "extends: acme/.github\n").unwrap();
    let org = tempfile::tempdir().unwrap();
    let policy = org.path().join("gatehouse.yml");
    std::fs::write(&policy, "review:\n  core: { reviewers: [gyrum-marcus, gyrum-priya, gyrum-lin] }\n").unwrap();

    // Without the organisation's file, the config cannot be merged and nothing else is checked.
    let mut client = Client::start(dir.path());
    client.open(BRIEF, BRIEF_TEXT);
    assert!(client.diagnostics(BRIEF).is_empty(), "the brief is not evaluated while the config is unread");
    assert!(client.stop().success());

    let mut client = Client::start_with(dir.path(), &[("GATEHOUSE_ORG_CONFIG", &policy)]);
    client.open(BRIEF, BRIEF_TEXT);
    assert_eq!(codes(&client.diagnostics(BRIEF)), ["brief/field-type"]);
    assert!(client.stop().success());
}
