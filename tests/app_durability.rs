//! A delivery answered 202 is on disk: `gatehouse serve` on SQLite is
//! killed (SIGKILL, no shutdown) right after a burst of deliveries, and the
//! database reopened from its files holds every delivery that was
//! acknowledged, with its job (most of them still in the WAL, not yet
//! checkpointed into the database file, when the process dies).

#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::Command;

use common::*;
use serde_json::json;

const DELIVERIES: u64 = 400;
const CONNECTIONS: u64 = 16;

fn opened(n: u64) -> serde_json::Value {
    json!({
        "action": "opened", "number": n,
        "pull_request": { "number": n, "head": { "sha": format!("{n:040x}") } },
        "repository": { "full_name": "acme/docs" }, "installation": { "id": INSTALLATION }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_deliveries_survive_a_killed_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("gatehouse.db").display());
    let mut child = serve_env(Command::new(env!("CARGO_BIN_EXE_gatehouse")).arg("serve"), &db)
        .env("NO_COLOR", "1")
        .spawn()
        .expect("gatehouse serve starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr: SocketAddr = loop {
        let line = lines.next().expect("gatehouse serve logs where it listens").unwrap();
        if let Some(at) = line.find("127.0.0.1:").filter(|_| line.contains("gatehouse is serving")) {
            let addr: String =
                line[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':').collect();
            break addr.parse().unwrap();
        }
    };
    std::thread::spawn(move || for _ in lines {});

    let mut senders = Vec::new();
    for connection in 0..CONNECTIONS {
        senders.push(tokio::spawn(async move {
            let mut acknowledged = Vec::new();
            for n in (connection..DELIVERIES).step_by(CONNECTIONS as usize) {
                let id = format!("durable-{n}");
                if deliver(addr, "pull_request", &id, &opened(n + 1)).await == 202 {
                    acknowledged.push(id);
                }
            }
            acknowledged
        }));
    }
    let mut acknowledged = Vec::new();
    for sender in senders {
        acknowledged.extend(sender.await.unwrap());
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(acknowledged.len() as u64, DELIVERIES, "every delivery is acknowledged");

    let store = gatehouse::store::Store::connect(&db).await.expect("the database reopens");
    assert_eq!(store.deliveries().await.unwrap(), DELIVERIES as i64, "every acknowledged delivery was kept");
    assert_eq!(store.jobs().await.unwrap().len() as u64, DELIVERIES, "and its job");
}
