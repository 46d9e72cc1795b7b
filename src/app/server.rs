//! The HTTP/1 server in front of the receiver. It holds every client to a
//! header-read timeout (which is also how long an idle connection is kept)
//! and caps the open connections below the descriptor limit. The cap keeps
//! room for deliveries: at the cap a new connection takes the place of the
//! oldest one with no request in flight (idle, or still sending its
//! headers), so clients that merely hold connections open cannot lock
//! GitHub out; only when every connection is mid-request is the new one
//! turned away.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;

use crate::metrics::Metrics;

/// Limits the webhook server holds every client to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Open connections at most; lowered to stay below the descriptor limit.
    pub max_connections: usize,
    /// A request's headers must arrive within this, counted from the
    /// connection's start or its previous response: an idle connection is
    /// closed after it too.
    pub header_timeout: Duration,
    /// A body must arrive within this once its headers did.
    pub body_timeout: Duration,
    /// Bytes every body not yet verified may hold at once.
    pub body_memory: usize,
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            body_memory: 64 * 1024 * 1024,
        }
    }
}

/// Descriptors kept out of the connection cap: the database pool, `git`,
/// the listener and logs.
const DESCRIPTOR_RESERVE: usize = 64;

/// The configured cap, lowered to stay below the process's descriptor limit.
fn connection_cap(configured: usize) -> usize {
    match descriptor_limit() {
        Some(limit) => configured.min(limit.saturating_sub(DESCRIPTOR_RESERVE)).max(1),
        None => configured.max(1),
    }
}

/// The soft limit on open files (`ulimit -n`), from `/proc/self/limits`.
fn descriptor_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find_map(|l| l.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// One open connection, as the cap sees it.
#[derive(Default)]
struct Conn {
    in_flight: AtomicUsize,
    /// Told to close to make room for a newer connection.
    shed: Notify,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Open {
    conns: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next: AtomicU64,
}

impl Open {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a connection when there is room, making room by shedding
    /// the oldest connection with no request in flight.
    fn admit(&self, max: usize, metrics: &Metrics) -> Option<(u64, Arc<Conn>)> {
        let mut conns = self.lock();
        if conns.len() >= max {
            let idle = conns.iter().find(|(_, c)| c.in_flight.load(Ordering::SeqCst) == 0).map(|(id, _)| *id)?;
            let shed = conns.remove(&idle).expect("found above");
            shed.shed.notify_one();
            metrics.connection_shed();
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn::default());
        conns.insert(id, conn.clone());
        Some((id, conn))
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }
}

/// Counts a request in flight on its connection while it lives.
struct InFlight(Arc<Conn>);

impl InFlight {
    fn enter(conn: &Arc<Conn>) -> InFlight {
        conn.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(conn.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves `app` on `listener` until `stop` turns true, then lets the
/// requests in flight finish.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServerLimits,
    metrics: Arc<Metrics>,
    mut stop: watch::Receiver<bool>,
) {
    let cap = connection_cap(limits.max_connections);
    tracing::info!(max_connections = cap, header_timeout = ?limits.header_timeout, "the webhook server is listening");
    let open = Arc::new(Open::default());
    let mut tasks = JoinSet::new();
    loop {
        while tasks.try_join_next().is_some() {}
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|s| *s) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(err) => {
                // Out of descriptors, most likely: give connections time to close.
                tracing::warn!(error = %err, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some((id, conn)) = open.admit(cap, &metrics) else {
            metrics.connection_refused();
            continue;
        };
        let (app, open, stop) = (app.clone(), open.clone(), stop.clone());
        tasks.spawn(async move {
            connection(stream, app, &conn, limits.header_timeout, stop).await;
            open.remove(id);
        });
    }
    drop(listener);
    while tasks.join_next().await.is_some() {}
}

async fn connection(
    stream: TcpStream,
    app: Router,
    conn: &Arc<Conn>,
    header_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let service = TowerToHyperService::new(app);
    let counted = conn.clone();
    let handler = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_flight = InFlight::enter(&counted);
        let response = service.call(request);
        async move {
            let response = response.await;
            drop(in_flight);
            response
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let served = builder.serve_connection(TokioIo::new(stream), handler);
    let mut served = std::pin::pin!(served);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = served.as_mut() => break,
            _ = conn.shed.notified(), if !stopping => {
                if conn.in_flight.load(Ordering::SeqCst) == 0 {
                    break;
                }
            }
            _ = stop.wait_for(|s| *s), if !stopping => {
                stopping = true;
                served.as_mut().graceful_shutdown();
            }
        }
    }
}
