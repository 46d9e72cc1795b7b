//! The HTTP/1 server in front of the receiver. It holds every client to a
//! header-read timeout (which is also how long an idle connection is kept)
//! and caps the open connections below the descriptor limit. The cap keeps
//! room for deliveries: at the cap a new connection takes the place of the
//! connection whose client shows the least sign of being GitHub (see
//! [`victim`]): idle ones and the slowest unverified bodies go first, so
//! clients that merely hold connections open or trickle bodies cannot lock
//! GitHub out; only when every connection has a verified request in
//! flight is the new one turned away.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::body::Incoming;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;

use crate::metrics::Metrics;
use crate::webhook::{BodyWatch, Floor, JUDGED_AFTER};

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
    /// The slowest a body may arrive, after a grace: slower ones get 408.
    pub body_floor: Floor,
    /// Bytes every body not yet verified may hold at once.
    pub body_memory: usize,
}

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            body_floor: Floor { bytes_per_sec: 4096, grace: Duration::from_secs(2) },
            body_memory: 64 * 1024 * 1024,
        }
    }
}

/// Connections the kernel queues for `accept` (capped by
/// `net.core.somaxconn`): a burst of new connections, as a flood that is
/// cut and comes back makes, past the queue has its SYNs dropped, and a
/// delivery among them waits a second for the retransmission.
const LISTEN_BACKLOG: u32 = 4096;

/// Listens on `addr` with [`LISTEN_BACKLOG`].
pub(crate) fn listen(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
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

/// A connection with no request in flight this long after it opened is
/// idle by choice (kept alive, or trickling its headers), not one whose
/// first request is on its way.
const SETTLED: Duration = Duration::from_secs(1);

/// One open connection, as the cap sees it.
struct Conn {
    opened: Instant,
    in_flight: AtomicUsize,
    /// The body its request is sending, if any.
    body: BodyWatch,
    /// Told to close to make room for a newer connection.
    shed: Notify,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Open {
    conns: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next: AtomicU64,
}

impl Conn {
    fn new() -> Conn {
        Conn { opened: Instant::now(), in_flight: AtomicUsize::new(0), body: BodyWatch::default(), shed: Notify::new() }
    }

    fn idle(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
    }
}

/// The connection that makes room for a new one, in this order: the oldest
/// settled idle one; the slowest unverified body read long enough to judge;
/// the oldest idle one; the slowest body. A delivery from GitHub sends its
/// headers and body at once, so it is rarely idle or slow for long.
fn victim(conns: &BTreeMap<u64, Arc<Conn>>, now: Instant) -> Option<u64> {
    let idle = |settled: bool| {
        let mut idle = conns.iter().filter(|(_, c)| c.idle());
        idle.find(|(_, c)| (now.saturating_duration_since(c.opened) >= SETTLED) == settled).map(|(id, _)| *id)
    };
    let slowest = |judged: bool| {
        let bodies = conns.iter().filter_map(|(id, c)| Some((*id, c.body.progress(now)?)));
        let bodies = bodies.filter(|(_, (_, age))| (*age >= JUDGED_AFTER) == judged);
        bodies.min_by(|a, b| a.1.0.total_cmp(&b.1.0)).map(|(id, _)| id)
    };
    idle(true).or_else(|| slowest(true)).or_else(|| idle(false)).or_else(|| slowest(false))
}

impl Open {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a connection when there is room, making room by shedding
    /// the [`victim`].
    fn admit(&self, max: usize, metrics: &Metrics) -> Option<(u64, Arc<Conn>)> {
        let mut conns = self.lock();
        if conns.len() >= max {
            let victim = victim(&conns, Instant::now())?;
            let shed = conns.remove(&victim).expect("found above");
            shed.shed.notify_one();
            metrics.connection_shed();
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn::new());
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
    let handler = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let in_flight = InFlight::enter(&counted);
        request.extensions_mut().insert(counted.body.clone());
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
                // A body still arriving is not verified yet: nothing of it is kept.
                if conn.idle() || conn.body.reading() {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection opened at `opened`, with `in_flight` requests and the
    /// body it is sending, if any.
    fn conn(opened: Instant, in_flight: usize, body: Option<(Instant, u64)>) -> Arc<Conn> {
        let body = body.map_or_else(BodyWatch::default, |(since, bytes)| BodyWatch::reading_since(since, bytes));
        Arc::new(Conn { opened, in_flight: AtomicUsize::new(in_flight), body, shed: Notify::new() })
    }

    fn open(conns: Vec<Arc<Conn>>) -> BTreeMap<u64, Arc<Conn>> {
        conns.into_iter().enumerate().map(|(id, c)| (id as u64, c)).collect()
    }

    #[test]
    fn the_oldest_settled_idle_connection_goes_before_any_body() {
        let t0 = Instant::now();
        let now = t0 + Duration::from_secs(10);
        let conns = open(vec![
            conn(t0, 1, Some((t0, 1))),
            conn(t0 + Duration::from_secs(1), 0, None),
            conn(t0 + Duration::from_secs(2), 0, None),
        ]);
        assert_eq!(victim(&conns, now), Some(1));
    }

    #[test]
    fn the_slowest_judged_body_goes_before_a_connection_just_opened_and_a_body_just_begun() {
        let t0 = Instant::now();
        let now = t0 + Duration::from_secs(10);
        let conns = open(vec![
            // 10 bytes in 10 s, 100 bytes in 10 s: the first is the slowest.
            conn(t0, 1, Some((t0, 10))),
            conn(t0, 1, Some((t0, 100))),
            // A delivery's connection that has not sent its headers yet.
            conn(now, 0, None),
            // A body begun 10 ms ago, nothing of it arrived yet.
            conn(now - Duration::from_millis(10), 1, Some((now - Duration::from_millis(10), 0))),
            // A verified delivery being stored: in flight, its body read.
            conn(t0, 1, None),
        ]);
        assert_eq!(victim(&conns, now), Some(0));
        let without_the_slowest: BTreeMap<_, _> = conns.iter().skip(1).map(|(i, c)| (*i, c.clone())).collect();
        assert_eq!(victim(&without_the_slowest, now), Some(1));
        let bodies_judged_gone: BTreeMap<_, _> = conns.iter().skip(2).map(|(i, c)| (*i, c.clone())).collect();
        assert_eq!(victim(&bodies_judged_gone, now), Some(2), "then the unsettled idle connection");
        let only_unjudged: BTreeMap<_, _> = conns.iter().skip(3).map(|(i, c)| (*i, c.clone())).collect();
        assert_eq!(victim(&only_unjudged, now), Some(3), "then the body just begun");
    }

    #[test]
    fn connections_whose_verified_requests_are_in_flight_are_never_shed() {
        let t0 = Instant::now();
        let conns = open(vec![conn(t0, 1, None), conn(t0, 2, None)]);
        assert_eq!(victim(&conns, t0 + Duration::from_secs(10)), None);
    }

    #[test]
    fn at_the_cap_a_new_connection_takes_the_slowest_bodys_place_and_tells_it_to_close() {
        let t0 = Instant::now() - Duration::from_secs(5);
        let open = Open::default();
        let metrics = Metrics::default();
        {
            let mut conns = open.lock();
            conns.insert(0, conn(t0, 1, Some((t0, 5000))));
            conns.insert(1, conn(t0, 1, Some((t0, 5))));
        }
        open.next.store(2, Ordering::Relaxed);
        let shed = open.lock()[&1].clone();
        let (id, _) = open.admit(2, &metrics).expect("room made");
        assert_eq!(id, 2);
        assert_eq!(open.lock().keys().copied().collect::<Vec<_>>(), vec![0, 2]);
        // The permit notify_one leaves is taken at once by the shed connection.
        let told = shed.shed.notified();
        assert!(ready_at_once(told), "the shed connection is told to close");
        assert!(metrics.render().contains("gatehouse_connections_closed_total{reason=\"shed\"} 1"));
    }

    /// Whether `future` is ready at its first poll.
    fn ready_at_once(future: impl std::future::Future) -> bool {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        future.as_mut().poll(&mut cx).is_ready()
    }
}
