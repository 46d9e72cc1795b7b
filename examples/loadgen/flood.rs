//! **flood**: a separate `gatehouse serve` process (default limits) under
//! a slow-body flood: `--flood N` connections each send a request head
//! declaring 100 KB, then one body byte a second, and connect again when
//! the server closes them (after 0.5 to 1.5 s), for `--flood-secs`.
//! Once the flood has run past the body grace, a signed delivery is sent
//! every second on a new connection, as GitHub opens one; the table gives
//! how long each took to connect and to be answered, the bodies cut and
//! the connections shed, and the server's resident set.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use gatehouse::webhook::signature;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::served::Served;
use super::{SECRET, ms, percentile};

/// The flood runs this long before the first delivery: past the 2 s body
/// grace, so the floor cuts and the cap sheds from the start.
const SETTLE: Duration = Duration::from_secs(4);

fn slow_head() -> &'static [u8] {
    b"POST /webhook HTTP/1.1\r\nHost: gatehouse\r\nX-GitHub-Event: pull_request\r\nX-GitHub-Delivery: slow\r\n\
      Content-Length: 100000\r\n\r\n"
}

/// One connection of the flood, reconnecting after `pause` until `until`;
/// returns how many times it connected.
async fn flooder(addr: SocketAddr, pause: Duration, until: tokio::time::Instant) -> u64 {
    let mut connected = 0;
    tokio::time::sleep(pause).await;
    while tokio::time::Instant::now() < until {
        if let Ok(mut stream) = TcpStream::connect(addr).await
            && stream.write_all(slow_head()).await.is_ok()
        {
            connected += 1;
            let mut buf = [0u8; 256];
            loop {
                tokio::select! {
                    read = stream.read(&mut buf) => if !matches!(read, Ok(n) if n > 0) { break },
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {
                        if stream.write_all(b"x").await.is_err() { break }
                    }
                    _ = tokio::time::sleep_until(until) => return connected,
                }
            }
        }
        tokio::time::sleep(pause).await;
    }
    connected
}

/// Sends one signed delivery on a new connection; returns the time to
/// connect, the time to the answer's end and its status line.
async fn delivery(addr: SocketAddr, n: usize, body: &[u8]) -> Result<(Duration, Duration, String)> {
    let signature = signature::sign(SECRET.as_bytes(), body);
    let mut request = format!(
        "POST /webhook HTTP/1.1\r\nHost: gatehouse\r\nConnection: close\r\nX-GitHub-Event: pull_request\r\n\
         X-GitHub-Delivery: during-the-flood-{n}\r\nX-Hub-Signature-256: {signature}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let sent = Instant::now();
    let mut stream = TcpStream::connect(addr).await?;
    let connected = sent.elapsed();
    stream.write_all(&request).await?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await??;
    let status = String::from_utf8_lossy(&answer).lines().next().unwrap_or("no answer").to_string();
    Ok((connected, sent.elapsed(), status))
}

pub async fn main(binary: &Path, connections: usize, secs: u64) -> Result<()> {
    let sim = super::github().await?;
    let served = Served::start(binary, tempfile::tempdir()?, &sim.url(), 4, &[])?;
    let idle_rss = served.memory("VmRSS")?;
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    let pause = |n: usize| Duration::from_millis(500 + (n % 11) as u64 * 100);
    let flood: Vec<_> = (0..connections).map(|n| tokio::spawn(flooder(served.addr, pause(n), until))).collect();
    tokio::time::sleep(SETTLE).await;
    let mut answered = Vec::new();
    let mut n = 0;
    while tokio::time::Instant::now() + Duration::from_secs(2) < until {
        let (base, head) = super::one_brief_pr(n);
        sim.open_pr("load/flood", n as u64 + 1, base, head, "One brief.");
        let event = sim.pull_request_event("load/flood", n as u64 + 1, "opened");
        let body = super::payload::github_sized(event, "load/flood", n);
        answered.push(delivery(served.addr, n, &body).await?);
        n += 1;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let mut connects = 0;
    for flooder in flood {
        connects += flooder.await?;
    }
    let too_slow = served.counter("gatehouse_deliveries_total{event=\"pull_request\",outcome=\"too_slow\"}").await?;
    let shed = served.counter("gatehouse_connections_closed_total{reason=\"shed\"}").await?;
    let peak = served.memory("VmHWM")?;
    let accepted = answered.iter().filter(|(_, _, status)| status.starts_with("HTTP/1.1 202")).count();
    let mut waits: Vec<Duration> = answered.iter().map(|(_, w, _)| *w).collect();
    waits.sort();
    let slowest_connect = answered.iter().map(|(c, _, _)| *c).max().unwrap_or_default();
    println!(
        "flood: {connections} slow-body connections for {secs} s ({connects} connects), {} signed deliveries \
         on new connections from {} s on, against {} serve (default limits)",
        answered.len(),
        SETTLE.as_secs(),
        binary.display()
    );
    println!("  deliveries answered 202        {accepted} of {}", answered.len());
    println!(
        "  connect + answer ms            p50 {:.1}, max {:.1} (slowest connect {:.1})",
        ms(percentile(&waits, 0.5)),
        ms(waits.last().copied().unwrap_or_default()),
        ms(slowest_connect)
    );
    println!("  flood bodies cut (408)         {too_slow}");
    println!("  connections shed at the cap    {shed}");
    println!("  server resident set            {} MiB before, {} MiB peak", idle_rss >> 20, peak >> 20);
    for (_, wait, status) in answered.iter().filter(|(_, _, s)| !s.starts_with("HTTP/1.1 202")) {
        println!("  not accepted after {:.1} ms: {status}", ms(*wait));
    }
    Ok(())
}
