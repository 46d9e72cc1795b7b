//! A minimal Language Server Protocol client for the tests: spawns the
//! built `gatehouse lsp`, frames JSON-RPC over its stdio, and waits for the
//! answers and notifications it sends. Also the workspace the tests open.

#![allow(dead_code)] // Each test binary uses part of it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const BRIEF: &str = "dark-factory/briefs/SWARM-AR-backup.md";
pub const ADR: &str = "docs/adr/ADR-095-backups.md";
pub const RETIRED_ADR: &str = "docs/adr/ADR-080-backup-playbook.md";

/// A brief whose only finding is `lines_estimate` written as a string
/// (brief/field-type, with a verified fix).
pub const BRIEF_TEXT: &str = "---
agent: SWARM-AR
repos_touched: [gyrum-labs/infra]
adrs_referenced: [ADR-095]
success_criteria:
  - \"`scripts/backup.sh --dry-run` exits 0\"
out_of_scope:
  - a UI button for restores
lines_estimate: \"80\"
---
# SWARM-AR: off-host backups

Implement ADR-095. The ADR is explicit:

> Backups are a host concern, not a playbook.

Extend `scripts/backup.sh` to upload to the bucket.
";

pub const ADR_TEXT: &str = "# ADR-095: Backups are a host concern

Status: accepted

Backups are a host concern, not a playbook.
";

/// Writes the workspace (a plain folder: no git) into `dir`.
pub fn workspace(dir: &Path) {
    let files = [
        (BRIEF, BRIEF_TEXT),
        (ADR, ADR_TEXT),
        (
            RETIRED_ADR,
            "# ADR-080: Backups run from a playbook\n\nStatus: superseded by ADR-095\n\nBackups run from the playbook.\n",
        ),
        ("scripts/backup.sh", "#!/bin/sh\n"),
    ];
    for (path, text) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
}

/// The `file:` URI of an absolute path (the tests' paths are plain ASCII).
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications read while waiting for something else, oldest first.
    pub notes: Vec<Value>,
    pub root: PathBuf,
}

const WAIT: Duration = Duration::from_secs(20);

impl Client {
    /// Starts the server in `root` without initializing it.
    pub fn spawn(root: &Path) -> Client {
        Client::spawn_with(root, &[])
    }

    /// Starts the server in `root` with the variables `envs` set, without
    /// initializing it.
    pub fn spawn_with(root: &Path, envs: &[(&str, &Path)]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
            .arg("lsp")
            .envs(envs.iter().copied())
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the built gatehouse starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut out) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, incoming, next_id: 0, notes: Vec::new(), root: root.to_path_buf() }
    }

    /// Starts the server in `root` and initializes it with `root` as the workspace.
    pub fn start(root: &Path) -> Client {
        Client::start_with(root, &[])
    }

    /// [`Client::start`] with the variables `envs` set.
    pub fn start_with(root: &Path, envs: &[(&str, &Path)]) -> Client {
        let mut client = Client::spawn_with(root, envs);
        let answer =
            client.request("initialize", json!({ "processId": null, "rootUri": uri(root), "capabilities": {} }));
        assert!(answer.get("result").is_some(), "initialize answered {answer}");
        client.notify("initialized", json!({}));
        client
    }

    pub fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(&serde_json::to_vec(message).unwrap());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns the whole answer (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.answer(&json!(id))
    }

    /// Waits for the answer to request `id`, keeping notifications read meanwhile.
    pub fn answer(&mut self, id: &Value) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let message = self.next(deadline).unwrap_or_else(|| panic!("no answer to request {id}"));
            if message.get("method").is_none() && message.get("id") == Some(id) {
                return message;
            }
            if message.get("method").is_some() {
                self.notes.push(message);
            }
        }
    }

    fn next(&mut self, deadline: Instant) -> Option<Value> {
        self.incoming.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()
    }

    pub fn open(&mut self, path: &str, text: &str) {
        let uri = uri(&self.root.join(path));
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "markdown", "version": 1, "text": text } }),
        );
    }

    pub fn change(&mut self, path: &str, version: i32, text: &str) {
        let uri = uri(&self.root.join(path));
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    /// The next diagnostics published for `path` that `accept` takes.
    pub fn diagnostics_where(&mut self, path: &str, accept: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = uri(&self.root.join(path));
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let pending = std::mem::take(&mut self.notes);
            let mut rest = Vec::new();
            let mut found = None;
            for note in pending {
                if found.is_none()
                    && note["method"] == "textDocument/publishDiagnostics"
                    && note["params"]["uri"] == uri.as_str()
                {
                    let list = note["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
                    if accept(&list) {
                        found = Some(list);
                        continue;
                    }
                    seen.push(list);
                    continue;
                }
                rest.push(note);
            }
            self.notes = rest;
            if let Some(list) = found {
                return list;
            }
            match self.next(deadline) {
                Some(message) => self.notes.push(message),
                None => panic!("no diagnostics as expected for {path}; published: {seen:#?}"),
            }
        }
    }

    /// The next diagnostics published for `path`.
    pub fn diagnostics(&mut self, path: &str) -> Vec<Value> {
        self.diagnostics_where(path, |_| true)
    }

    /// `shutdown`, then `exit`: the exit status.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let answer = self.request("shutdown", Value::Null);
        assert_eq!(answer["result"], Value::Null, "{answer}");
        self.notify("exit", Value::Null);
        self.wait()
    }

    pub fn wait(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(input: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
