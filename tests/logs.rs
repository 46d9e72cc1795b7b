//! `gatehouse serve`'s logs where they go: stderr piped to a file or a
//! collector carries no colour codes, and `--log-format json`
//! (`GATEHOUSE_LOG_FORMAT`) writes one JSON object a line.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Command;

use common::*;

/// Runs `gatehouse serve` with `extra` flags and environment, its stderr
/// piped, until it logs that it is serving; returns every line up to that one.
fn serve_logs(args: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_gatehouse"));
    let db = format!("sqlite://{}", dir.path().join("gatehouse.db").display());
    serve_env(command.arg("serve").args(args), &db)
        .env_remove("NO_COLOR")
        .env_remove("GATEHOUSE_LOG_FORMAT")
        .envs(env.iter().copied());
    let mut child = command.spawn().expect("gatehouse serve starts");
    let mut lines = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.expect("log lines are UTF-8");
        let serving = line.contains("gatehouse is serving");
        lines.push(line);
        if serving {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(lines.iter().any(|l| l.contains("gatehouse is serving")), "serve stopped first: {lines:#?}");
    lines
}

#[test]
fn piped_text_logs_carry_no_colour_codes() {
    let lines = serve_logs(&[], &[]);
    assert!(lines.len() >= 2, "{lines:#?}");
    for line in &lines {
        assert!(!line.contains('\u{1b}'), "an escape code in {line:?}");
    }
}

#[test]
fn json_logs_are_one_object_a_line() {
    for (args, env) in [(&["--log-format", "json"][..], &[][..]), (&[][..], &[("GATEHOUSE_LOG_FORMAT", "json")][..])] {
        let lines = serve_logs(args, env);
        let events: Vec<serde_json::Value> = lines
            .iter()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?} is not JSON: {e}")))
            .collect();
        assert!(events.iter().all(|e| e["level"].is_string() && e["timestamp"].is_string()), "{lines:#?}");
        let serving =
            events.iter().find(|e| e["fields"]["message"] == "gatehouse is serving").expect("the serving line");
        assert_eq!(serving["level"], "INFO");
        assert!(serving["fields"]["addr"].as_str().is_some_and(|a| a.starts_with("127.0.0.1:")), "{serving}");
    }
}
