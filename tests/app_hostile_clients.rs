//! The webhook server under clients that never sign anything: many large
//! unsigned bodies at once, connections left idle or trickling their
//! headers, more connections than the server has descriptors. The memory
//! and descriptor cases and a slow-body flood run `gatehouse serve` as its own process, to read
//! its peak memory from /proc and to give it a descriptor limit of its own.

#![cfg(target_os = "linux")]

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command};
use std::time::Duration;

use common::*;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The memory limit of deploy/k8s/gatehouse.yaml.
const POD_MEMORY: u64 = 256 * 1024 * 1024;

/// `gatehouse serve` as a child process, killed when dropped.
struct Served {
    child: Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Served {
    /// Starts `gatehouse serve` on SQLite, run through `prefix` (e.g.
    /// `prlimit`), with `env` on top of its identity; waits until it listens.
    fn start(prefix: &[&str], env: &[(&str, &str)]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let bin = env!("CARGO_BIN_EXE_gatehouse");
        let mut command = match prefix.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(bin);
                command
            }
            None => Command::new(bin),
        };
        let db = format!("sqlite://{}", dir.path().join("gatehouse.db").display());
        serve_env(command.arg("serve"), &db).env("NO_COLOR", "1");
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("gatehouse serve starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("gatehouse serve logs where it listens").unwrap();
            if line.contains("gatehouse is serving") {
                let at = line.find("127.0.0.1:").expect("the address in the log");
                let addr: String =
                    line[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':').collect();
                break addr.parse().unwrap();
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Served { child, addr, _dir: dir }
    }

    /// A field of /proc/PID/status, in bytes (`VmHWM`: the peak resident set).
    fn status_bytes(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find_map(|l| l.strip_prefix(&format!("{field}:"))).unwrap();
        line.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap() * 1024
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn opened() -> serde_json::Value {
    json!({
        "action": "opened", "number": 1,
        "pull_request": { "number": 1, "head": { "sha": "0123456789abcdef0123456789abcdef01234567" } },
        "repository": { "full_name": "acme/docs" }, "installation": { "id": INSTALLATION }
    })
}

/// An HTTP/1.1 client's first bytes, with no end to the headers.
const REQUEST_LINE: &[u8] = b"POST /webhook HTTP/1.1\r\nHost: gatehouse\r\n";

/// True once the server closed `stream` (end of file or a reset); gives up
/// after 20 seconds, which no timeout under test comes near.
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    let read = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsigned_bodies_at_once_stay_under_the_pod_memory_limit() {
    let served = Served::start(&[], &[]);
    let body = axum::body::Bytes::from(vec![b'x'; 24 * 1024 * 1024]);
    let client = reqwest::Client::new();
    let sends = (0..32).map(|n| {
        let request = client
            .post(format!("http://{}/webhook", served.addr))
            .header("x-github-event", "pull_request")
            .header("x-github-delivery", format!("unsigned-{n}"))
            .body(body.clone());
        tokio::spawn(async move { request.send().await.map(|r| r.status().as_u16()) })
    });
    let mut statuses = Vec::new();
    for send in sends.collect::<Vec<_>>() {
        // A refusal sent before the body was read may cut the upload short.
        if let Ok(status) = send.await.unwrap() {
            statuses.push(status);
        }
    }
    let peak = served.status_bytes("VmHWM");
    assert!(peak < POD_MEMORY, "peak resident set {} MiB, over the pod's 256 MiB", peak >> 20);
    assert!(statuses.iter().all(|s| [401, 503].contains(s)), "{statuses:?}");
    let metrics = reqwest::get(format!("http://{}/metrics", served.addr)).await.unwrap().text().await.unwrap();
    let count = |outcome: &str| {
        let series = format!("gatehouse_deliveries_total{{event=\"pull_request\",outcome=\"{outcome}\"}} ");
        metrics.lines().find_map(|l| l.strip_prefix(&series)).map_or(0, |n| n.parse::<u32>().unwrap())
    };
    assert_eq!(count("unauthorized") + count("busy"), 32, "{metrics}");
    assert!(count("unauthorized") >= 1 && count("busy") >= 1, "{metrics}");
    eprintln!("32 unsigned 24 MB bodies: peak resident set {} MiB; {metrics}", peak >> 20);
}

#[tokio::test]
async fn a_delivery_gets_through_when_idle_clients_hold_every_descriptor() {
    // 128 descriptors: the server caps its connections at 64 below that.
    let served = Served::start(&["prlimit", "--nofile=128:128", "--"], &[]);
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(TcpStream::connect(served.addr).await.unwrap());
    }
    let body = serde_json::to_vec(&opened()).unwrap();
    let signature = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &body);
    let status = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
        .post(format!("http://{}/webhook", served.addr))
        .header("x-github-event", "pull_request")
        .header("x-github-delivery", "through-the-crowd")
        .header("x-hub-signature-256", signature)
        .body(body)
        .send()
        .await
        .expect("the delivery is answered")
        .status();
    assert_eq!(status, 202);
    let metrics = reqwest::get(format!("http://{}/metrics", served.addr)).await.unwrap().text().await.unwrap();
    let shed = metrics
        .lines()
        .find_map(|l| l.strip_prefix("gatehouse_connections_closed_total{reason=\"shed\"} "))
        .map(|n| n.parse::<u32>().unwrap());
    assert!(shed.is_some_and(|n| n >= 100), "{metrics}");
}

#[tokio::test]
async fn idle_and_trickling_connections_are_closed_after_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.limits.header_timeout = Duration::from_millis(300);
    let app = start_app(config).await;

    let mut silent = TcpStream::connect(app.addr).await.unwrap();
    let mut keep_alive = TcpStream::connect(app.addr).await.unwrap();
    keep_alive.write_all(b"GET /healthz HTTP/1.1\r\nHost: gatehouse\r\n\r\n").await.unwrap();
    let mut trickling = TcpStream::connect(app.addr).await.unwrap();
    trickling.write_all(REQUEST_LINE).await.unwrap();
    let (mut reader, mut writer) = trickling.into_split();
    let trickle = tokio::spawn(async move {
        // One header byte every 50 ms, for as long as the server listens.
        while writer.write_all(b"x").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    assert!(closed_by_server(&mut silent).await, "a silent connection stays open");
    assert!(closed_by_server(&mut keep_alive).await, "an idle keep-alive connection stays open");
    let mut buf = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(20), reader.read_to_end(&mut buf)).await;
    assert!(closed.is_ok(), "a connection trickling its headers stays open");
    trickle.abort();
    assert_eq!(deliver(app.addr, "pull_request", "after-the-idlers", &opened()).await, 202);
    app.kill();
}

#[tokio::test]
async fn connections_past_the_cap_replace_the_oldest_idle_one() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.limits.max_connections = 4;
    // Long enough that only the cap closes a connection during the test.
    config.limits.header_timeout = Duration::from_secs(120);
    let app = start_app(config).await;
    let mut idle = Vec::new();
    for _ in 0..6 {
        idle.push(TcpStream::connect(app.addr).await.unwrap());
        // Accepted in order, so the oldest is known.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(closed_by_server(&mut idle[0]).await, "the oldest idle connection made room");
    assert!(closed_by_server(&mut idle[1]).await, "the next oldest made room");
    assert_eq!(deliver(app.addr, "pull_request", "past-the-cap", &opened()).await, 202);
    let metrics = app.metrics.render();
    assert!(metrics.contains("gatehouse_connections_closed_total{reason=\"shed\"} 3"), "{metrics}");
    app.kill();
}

/// Reads what the server answers on `stream` until it closes it (or 20
/// seconds pass, which no limit under test comes near).
async fn answer(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut buf)).await;
    String::from_utf8_lossy(&buf).into_owned()
}

/// A request head declaring a body of `len` bytes.
fn slow_head(len: usize) -> Vec<u8> {
    format!(
        "POST /webhook HTTP/1.1\r\nHost: gatehouse\r\nX-GitHub-Event: pull_request\r\nX-GitHub-Delivery: slow\r\n\
         Content-Length: {len}\r\n\r\n"
    )
    .into_bytes()
}

#[tokio::test]
async fn a_body_slower_than_the_floor_is_cut_with_408_and_a_quick_one_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.limits.body_floor = gatehouse::webhook::Floor { bytes_per_sec: 1024, grace: Duration::from_millis(500) };
    let app = start_app(config).await;

    // Ten bytes a second: under the floor once the grace is over.
    let mut slow = TcpStream::connect(app.addr).await.unwrap();
    slow.write_all(&slow_head(100_000)).await.unwrap();
    let (mut reader, mut writer) = slow.into_split();
    let trickle = tokio::spawn(async move {
        while writer.write_all(b"x").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let mut cut = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), reader.read_to_end(&mut cut)).await;
    trickle.abort();
    let cut = String::from_utf8_lossy(&cut);
    assert!(cut.starts_with("HTTP/1.1 408"), "{cut}");

    // 100 KB in pieces of 10 KB every 50 ms (200 KB/s): read whole, and
    // refused for its missing signature, not for its pace.
    let mut quick = TcpStream::connect(app.addr).await.unwrap();
    quick.write_all(&slow_head(100_000)).await.unwrap();
    for _ in 0..10 {
        quick.write_all(&[b'x'; 10_000]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answered = answer(&mut quick).await;
    assert!(answered.starts_with("HTTP/1.1 401"), "{answered}");
    let metrics = app.metrics.render();
    assert!(metrics.contains("gatehouse_deliveries_total{event=\"pull_request\",outcome=\"too_slow\"} 1"), "{metrics}");
    app.kill();
}

/// At the cap, each new connection takes the place of a slow body, so a
/// delivery gets through however many slow bodies hold connections; the
/// floor is off, so only the cap acts. (`cargo run --release --example
/// loadgen -- --flood 2000` measures the wait and the memory under a
/// 2,000-connection flood that reconnects.)
#[tokio::test]
async fn a_signed_delivery_takes_a_slow_bodys_place_at_the_cap() {
    const CAP: usize = 16;
    const FLOOD: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.limits.max_connections = CAP;
    config.limits.body_floor = gatehouse::webhook::Floor { bytes_per_sec: 0, grace: Duration::ZERO };
    let app = start_app(config).await;
    let mut flood = Vec::new();
    for _ in 0..FLOOD {
        // Connected, so queued for accept ahead of the delivery below.
        let mut stream = TcpStream::connect(app.addr).await.unwrap();
        stream.write_all(&slow_head(100_000)).await.unwrap();
        stream.write_all(b"x").await.unwrap();
        flood.push(stream);
    }
    let signed = deliver(app.addr, "pull_request", "past-the-slow-bodies", &opened()).await;
    assert_eq!(signed, 202);
    // Every connection past the cap shed one: the flood's and the delivery's.
    let metrics = app.metrics.render();
    let shed = format!("gatehouse_connections_closed_total{{reason=\"shed\"}} {}", FLOOD + 1 - CAP);
    assert!(metrics.contains(&shed), "{metrics}");
    // A shed connection is closed without an answer; the others still wait
    // for their bodies (the body timeout is 30 s).
    let reads = flood.into_iter().map(|mut stream| {
        tokio::spawn(async move {
            let mut buf = [0u8; 64];
            match tokio::time::timeout(Duration::from_secs(2), stream.read(&mut buf)).await {
                Ok(Ok(0) | Err(_)) => Some(true),
                Ok(Ok(_)) => None,
                Err(_) => Some(false),
            }
        })
    });
    let mut closed = 0;
    for read in reads.collect::<Vec<_>>() {
        let read = read.await.unwrap();
        assert!(read.is_some(), "a slow body was answered");
        closed += usize::from(read == Some(true));
    }
    assert_eq!(closed, FLOOD + 1 - CAP, "the shed connections are closed");
    app.kill();
}
