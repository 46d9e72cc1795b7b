//! The receiver over real HTTP: signatures, deduplication, bad bodies, size
//! limits, probes. Nothing is stored unless the signature verifies.

mod common;

use common::*;
use serde_json::json;

fn opened() -> serde_json::Value {
    json!({
        "action": "opened", "number": 1,
        "pull_request": { "number": 1, "head": { "sha": "0123456789abcdef0123456789abcdef01234567" } },
        "repository": { "full_name": "acme/docs" }, "installation": { "id": INSTALLATION }
    })
}

async fn app_on(db: &Db) -> (gatehouse_sim::Sim, gatehouse::app::Running) {
    let sim = sim().await;
    let mut config = config(db, &sim.url());
    config.workers = 1;
    let app = start_app(config).await;
    (sim, app)
}

async fn signature_faults(db: Db) {
    let (_sim, app) = app_on(&db).await;
    let body = serde_json::to_vec(&opened()).unwrap();
    let good = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &body);
    let wrong = gatehouse::webhook::signature::sign(b"not-the-secret", &body);
    assert_eq!(post_raw(app.addr, "pull_request", Some("d1"), None, body.clone()).await, 401, "missing");
    assert_eq!(post_raw(app.addr, "pull_request", Some("d2"), Some(&wrong), body.clone()).await, 401, "wrong");
    assert_eq!(post_raw(app.addr, "pull_request", Some("d3"), Some("sha256=zz"), body.clone()).await, 401, "malformed");
    assert_eq!(post_raw(app.addr, "pull_request", Some("d4"), Some(&good), b"{}".to_vec()).await, 401, "other body");
    assert_eq!(app.store.deliveries().await.unwrap(), 0, "nothing stored before the signature verifies");
    assert_eq!(post_raw(app.addr, "pull_request", Some("d5"), Some(&good), body).await, 202);
    assert_eq!(app.store.deliveries().await.unwrap(), 1);
    let metrics = reqwest::get(format!("http://{}/metrics", app.addr)).await.unwrap().text().await.unwrap();
    assert!(
        metrics.contains("gatehouse_deliveries_total{event=\"pull_request\",outcome=\"unauthorized\"} 4"),
        "{metrics}"
    );
    let jobs: i64 = metrics
        .lines()
        .filter(|l| l.starts_with("gatehouse_jobs{"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(jobs, 1, "the one accepted delivery's job, in whatever state: {metrics}");
    app.kill();
}

async fn duplicates_and_bad_bodies(db: Db) {
    let (_sim, app) = app_on(&db).await;
    assert_eq!(deliver(app.addr, "pull_request", "same-id", &opened()).await, 202);
    assert_eq!(deliver(app.addr, "pull_request", "same-id", &opened()).await, 200, "a replay is acknowledged");
    assert_eq!(app.store.jobs().await.unwrap().len(), 1, "one job for one delivery");
    // Signed but not JSON: refused, nothing crashes.
    let garbage = b"\x00\xffnot json".to_vec();
    let sig = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &garbage);
    assert_eq!(post_raw(app.addr, "pull_request", Some("g1"), Some(&sig), garbage).await, 400);
    // Unknown events are acknowledged and ignored.
    assert_eq!(deliver(app.addr, "star", "u1", &json!({ "action": "created" })).await, 202);
    assert_eq!(
        deliver(app.addr, "ping", "p1", &json!({ "zen": "Keep it logically awesome.", "hook_id": 1 })).await,
        202
    );
    // No delivery id: refused.
    let body = serde_json::to_vec(&opened()).unwrap();
    let sig = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &body);
    assert_eq!(post_raw(app.addr, "pull_request", None, Some(&sig), body).await, 400);
    assert_eq!(app.store.jobs().await.unwrap().len(), 1);
    let health = reqwest::get(format!("http://{}/healthz", app.addr)).await.unwrap().status();
    let ready = reqwest::get(format!("http://{}/readyz", app.addr)).await.unwrap().status();
    assert_eq!((health.as_u16(), ready.as_u16()), (200, 200));
    app.kill();
}

#[tokio::test]
async fn bodies_over_25_mb_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_sim, app) = app_on(&Db::sqlite(&dir)).await;
    let body = vec![b' '; 25 * 1024 * 1024 + 1];
    let sig = gatehouse::webhook::signature::sign(SECRET.as_bytes(), &body);
    assert_eq!(post_raw(app.addr, "pull_request", Some("big"), Some(&sig), body).await, 413);
    assert_eq!(app.store.deliveries().await.unwrap(), 0);
    app.kill();
}

/// Sends `head` (request line and headers, no body) and returns the status
/// line of the answer; gives up after 20 seconds.
async fn status_line_for_head(addr: std::net::SocketAddr, head: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 256];
    let read = async {
        while !answer.contains(&b'\n') {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), read).await.expect("an answer before the body is sent");
    String::from_utf8_lossy(&answer).lines().next().unwrap_or("").to_string()
}

#[tokio::test]
async fn a_declared_length_over_25_mb_is_refused_before_the_body_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let (_sim, app) = app_on(&Db::sqlite(&dir)).await;
    let head = format!(
        "POST /webhook HTTP/1.1\r\nHost: gatehouse\r\nX-GitHub-Event: pull_request\r\nContent-Length: {}\r\n\r\n",
        25 * 1024 * 1024 + 1
    );
    assert_eq!(status_line_for_head(app.addr, &head).await, "HTTP/1.1 413 Payload Too Large");
    // Without a declared length there is nothing to check first: refused too.
    let chunked = "POST /webhook HTTP/1.1\r\nHost: gatehouse\r\nX-GitHub-Event: pull_request\r\nTransfer-Encoding: chunked\r\n\r\n";
    assert_eq!(status_line_for_head(app.addr, chunked).await, "HTTP/1.1 411 Length Required");
    let metrics = app.metrics.render();
    assert!(
        metrics.contains("gatehouse_deliveries_total{event=\"pull_request\",outcome=\"too_large\"} 1"),
        "{metrics}"
    );
    assert_eq!(app.store.deliveries().await.unwrap(), 0);
    app.kill();
}

#[tokio::test]
async fn metrics_label_only_the_events_the_app_knows() {
    let dir = tempfile::tempdir().unwrap();
    let (_sim, app) = app_on(&Db::sqlite(&dir)).await;
    for n in 0..30u8 {
        let made_up = format!("made_up_{}", char::from(b'a' + n % 26)).repeat(usize::from(n / 26) + 1);
        assert_eq!(post_raw(app.addr, &made_up, Some("x"), None, b"{}".to_vec()).await, 401);
    }
    assert_eq!(post_raw(app.addr, "pull_request", Some("x"), None, b"{}".to_vec()).await, 401);
    assert_eq!(
        deliver(app.addr, "ping", "p1", &json!({ "zen": "Half measures are as bad as nothing at all." })).await,
        202
    );
    let metrics = reqwest::get(format!("http://{}/metrics", app.addr)).await.unwrap().text().await.unwrap();
    let series: Vec<&str> = metrics.lines().filter(|l| l.starts_with("gatehouse_deliveries_total{")).collect();
    assert_eq!(
        series,
        [
            "gatehouse_deliveries_total{event=\"other\",outcome=\"unauthorized\"} 30",
            "gatehouse_deliveries_total{event=\"ping\",outcome=\"accepted\"} 1",
            "gatehouse_deliveries_total{event=\"pull_request\",outcome=\"unauthorized\"} 1",
        ]
    );
    app.kill();
}

#[tokio::test]
async fn rotated_secrets_are_all_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let mut config = config(&Db::sqlite(&dir), &sim.url());
    config.secrets = gatehouse::webhook::Secrets::parse(&format!("brand-new,{SECRET}"));
    let app = start_app(config).await;
    assert_eq!(deliver(app.addr, "pull_request", "r1", &opened()).await, 202);
    app.kill();
}

/// A TCP relay to PostgreSQL that can black-hole: cut every relayed
/// connection and hold new ones without an answer, as an unreachable
/// database host does.
struct Relay {
    addr: std::net::SocketAddr,
    down: tokio::sync::watch::Sender<bool>,
}

impl Relay {
    async fn to(target: String) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (down, is_down) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let mut is_down = is_down.clone();
                let target = target.clone();
                tokio::spawn(async move {
                    if *is_down.borrow() {
                        // Held open (the task owns it), never answered.
                        std::future::pending::<()>().await;
                    }
                    let Ok(mut server) = tokio::net::TcpStream::connect(&target).await else { return };
                    // Going down drops both ends: the relayed connection is cut.
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = is_down.wait_for(|d| *d) => {}
                    }
                });
            }
        });
        Relay { addr, down }
    }
}

#[tokio::test]
async fn readyz_answers_within_a_second_while_the_database_is_unreachable() {
    let Some(Db::Postgres { url, schema }) = Db::postgres() else { return };
    // postgres://user@host:port/db → the host:port the relay forwards to.
    let rest = url.split_once("://").unwrap().1;
    let authority = rest.split('/').next().unwrap();
    let target = authority.rsplit('@').next().unwrap().to_string();
    let relay = Relay::to(target.clone()).await;
    let db = Db::Postgres { url: url.replacen(&target, &relay.addr.to_string(), 1), schema };
    let (_sim, app) = app_on(&db).await;
    let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(5)).build().unwrap();
    let ready = || client.get(format!("http://{}/readyz", app.addr)).send();
    assert_eq!(ready().await.unwrap().status(), 200);
    relay.down.send(true).unwrap();
    // The pool waits 10 s for a connection; the probe gives up after 1 s.
    let started = std::time::Instant::now();
    let answer = ready().await.expect("/readyz answers while the database is unreachable");
    assert_eq!(answer.status(), 503);
    eprintln!("/readyz answered 503 in {:?} with the database unreachable", started.elapsed());
    app.kill();
}

macro_rules! both_engines {
    ($($name:ident),*) => {
        mod sqlite {
            $(#[tokio::test] async fn $name() {
                let dir = tempfile::tempdir().unwrap();
                super::$name(super::Db::sqlite(&dir)).await;
            })*
        }
        mod postgres {
            $(#[tokio::test] async fn $name() {
                let Some(db) = super::Db::postgres() else { return };
                super::$name(db).await;
            })*
        }
    };
}

both_engines!(signature_faults, duplicates_and_bad_bodies);
