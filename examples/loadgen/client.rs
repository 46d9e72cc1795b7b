//! The load's HTTP/1.1 client: one keep-alive connection per sending task,
//! on hyper's connection-level client (no pool, no redirects, no URL work
//! per request), as wrk keeps one connection per slot. The generator
//! shares the cores with the receiver it measures, so what it spends comes
//! out of the receiver's figures: at 64 connections against `gatehouse
//! serve`, reqwest's pooled client had the generator take 0.37–0.43 of the
//! two cores at 9,181 deliveries/s (about 43 µs a request, the simulated
//! GitHub's share included; read from `/proc/PID/stat` every 2 s), this
//! client 0.28–0.41 at 10,823/s.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::body::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::Delivery;

/// Where the requests go: `http://HOST:PORT/PATH`.
#[derive(Clone, Debug)]
struct Endpoint {
    /// `HOST:PORT`, connected to and sent as `Host`.
    authority: String,
    path: String,
}

impl Endpoint {
    fn parse(url: &str) -> Result<Endpoint> {
        let uri: hyper::Uri = url.parse().with_context(|| format!("{url} is not a URL"))?;
        if uri.scheme_str() != Some("http") {
            bail!("{url}: the load generator speaks plain http only");
        }
        let authority = uri.authority().context("the URL names no host")?;
        let port = authority.port_u16().unwrap_or(80);
        let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
        Ok(Endpoint { authority: format!("{}:{port}", authority.host()), path })
    }
}

/// Opens a connection to `target`; its driver runs as a task of its own
/// and ends when the connection closes.
async fn connect(target: &Endpoint) -> Result<SendRequest<Full<Bytes>>> {
    let stream = TcpStream::connect(&target.authority)
        .await
        .with_context(|| format!("cannot connect to {}", target.authority))?;
    stream.set_nodelay(true)?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    Ok(sender)
}

/// Posts `delivery` on `sender`: whether it was answered 202.
async fn post(sender: &mut SendRequest<Full<Bytes>>, target: &Endpoint, delivery: &Delivery) -> Result<bool> {
    let request = hyper::Request::post(target.path.as_str())
        .header(HOST, target.authority.as_str())
        .header(CONTENT_TYPE, "application/json")
        .header("x-github-event", "pull_request")
        .header("x-github-delivery", delivery.id.as_str())
        .header("x-hub-signature-256", delivery.signature.as_str())
        .body(Full::new(delivery.body.clone()))?;
    sender.ready().await?;
    let response = sender.send_request(request).await?;
    let accepted = response.status().as_u16() == 202;
    // The answer's body is read to its end so that the connection is free
    // for the next request.
    http_body_util::BodyExt::collect(response.into_body()).await?;
    Ok(accepted)
}

/// Sends every delivery over `concurrency` connections, each sending its
/// share one after another; returns each one's latency (a reconnection
/// counted in it) and how many were not answered 202.
pub async fn send(url: &str, concurrency: usize, all: Vec<Delivery>) -> Result<(Vec<Duration>, usize)> {
    let target = Endpoint::parse(url)?;
    let all = Arc::new(all);
    let mut tasks = Vec::new();
    for task in 0..concurrency {
        let (target, all) = (target.clone(), all.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(all.len() / concurrency + 1);
            let mut failed = 0usize;
            let mut sender = None;
            for delivery in all.iter().skip(task).step_by(concurrency) {
                let sent = Instant::now();
                let accepted = match &mut sender {
                    Some(open) => post(open, &target, delivery).await,
                    None => match connect(&target).await {
                        Ok(open) => post(sender.insert(open), &target, delivery).await,
                        Err(err) => Err(err),
                    },
                };
                latencies.push(sent.elapsed());
                match accepted {
                    Ok(true) => {}
                    Ok(false) => failed += 1,
                    Err(_) => {
                        failed += 1;
                        sender = None;
                    }
                }
            }
            (latencies, failed)
        }));
    }
    let mut latencies = Vec::with_capacity(all.len());
    let mut failed = 0;
    for task in tasks {
        let (l, f) = task.await?;
        latencies.extend(l);
        failed += f;
    }
    Ok((latencies, failed))
}
