//! Reading a delivery's body before its signature is checked, under limits
//! that hold whatever unauthenticated clients send: the declared length is
//! checked before a byte is read, the bytes held by bodies not yet verified
//! come from one budget shared by every request, and a body must arrive
//! within a deadline and, after a short grace, no slower than a floor.
//! How far each body is along is kept where the connection cap can see
//! it ([`BodyWatch`]), so at the cap the slowest body is shed first.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, HttpBody};
use axum::http::{HeaderMap, StatusCode, header};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::MAX_BODY;

/// What unverified bodies may hold, shared by every request.
#[derive(Clone, Debug)]
pub(crate) struct BodyLimits {
    budget: Arc<Semaphore>,
    /// How long a body may take to arrive once its headers did.
    pub timeout: Duration,
    /// Once `floor.grace` has passed, a body must have arrived at
    /// `floor.bytes_per_sec` at least over the time since.
    pub floor: Floor,
}

/// The slowest a body may arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Floor {
    /// 0: no floor.
    pub bytes_per_sec: u64,
    pub grace: Duration,
}

impl Floor {
    /// When a body that has sent `received` bytes is too slow, counted from
    /// its start.
    fn due(&self, received: usize) -> Option<Duration> {
        let rate = self.bytes_per_sec;
        (rate > 0).then(|| self.grace + Duration::from_secs_f64(received as f64 / rate as f64))
    }
}

impl BodyLimits {
    /// `budget` bytes for every unverified body at once; at least one body
    /// of the largest size GitHub sends always fits.
    pub(crate) fn new(budget: usize, timeout: Duration, floor: Floor) -> BodyLimits {
        let budget = budget.clamp(MAX_BODY, u32::MAX as usize);
        BodyLimits { budget: Arc::new(Semaphore::new(budget)), timeout, floor }
    }
}

/// How far the body being read on one connection is along, shared by the
/// connection cap (which sheds the slowest) and the reader.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyWatch(Arc<Mutex<Option<Reading>>>);

#[derive(Clone, Copy, Debug)]
struct Reading {
    since: Instant,
    bytes: u64,
}

/// A body is judged by its rate once it has had this long to arrive: a
/// body whose first bytes are on their way is not yet the slowest.
pub(crate) const JUDGED_AFTER: Duration = Duration::from_millis(100);

impl BodyWatch {
    fn with<T>(&self, f: impl FnOnce(&mut Option<Reading>) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Is a body being read (not yet whole, so not yet verified)?
    pub(crate) fn reading(&self) -> bool {
        self.with(|r| r.is_some())
    }

    /// How fast the body being read arrives (bytes a second, over at least
    /// [`JUDGED_AFTER`]: a body just begun has not had time to send much)
    /// and how long it has been read.
    pub(crate) fn progress(&self, now: Instant) -> Option<(f64, Duration)> {
        let reading = self.with(|r| *r)?;
        let age = now.saturating_duration_since(reading.since);
        Some((reading.bytes as f64 / age.max(JUDGED_AFTER).as_secs_f64(), age))
    }

    fn begin(&self) -> Watching<'_> {
        self.with(|r| *r = Some(Reading { since: Instant::now(), bytes: 0 }));
        Watching(self)
    }
}

/// Ends the watch on a body when its reading ends, whichever way.
struct Watching<'w>(&'w BodyWatch);

impl Watching<'_> {
    fn advance(&self, bytes: usize) {
        self.0.with(|r| {
            if let Some(r) = r {
                r.bytes += bytes as u64;
            }
        });
    }
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        self.0.with(|r| *r = None);
    }
}

/// A body read whole whose signature is not checked yet. Its bytes count
/// against the budget until it is dropped or [`Unverified::verified`].
pub(crate) struct Unverified {
    pub bytes: Vec<u8>,
    permit: OwnedSemaphorePermit,
}

impl Unverified {
    /// The body, its signature checked: its bytes leave the budget for
    /// unverified bodies.
    pub(crate) fn verified(self) -> Vec<u8> {
        drop(self.permit);
        self.bytes
    }
}

/// Why a body was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No `Content-Length` (GitHub always sends one), or a chunked body.
    LengthRequired,
    TooLarge,
    /// The budget for unverified bodies is spent.
    Busy,
    Timeout,
    /// The body arrived slower than the floor.
    TooSlow,
    /// The client broke off mid-body.
    Broken,
}

impl Refusal {
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Refusal::LengthRequired => StatusCode::LENGTH_REQUIRED,
            Refusal::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::Busy => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::Timeout | Refusal::TooSlow => StatusCode::REQUEST_TIMEOUT,
            Refusal::Broken => StatusCode::BAD_REQUEST,
        }
    }

    /// The `/metrics` outcome label.
    pub(crate) fn outcome(self) -> &'static str {
        match self {
            Refusal::LengthRequired => "length_required",
            Refusal::TooLarge => "too_large",
            Refusal::Busy => "busy",
            Refusal::Timeout => "timeout",
            Refusal::TooSlow => "too_slow",
            Refusal::Broken => "bad_request",
        }
    }

    pub(crate) fn message(self) -> &'static str {
        match self {
            Refusal::LengthRequired => "a Content-Length header is required\n",
            Refusal::TooLarge => "the body is over GitHub's 25 MB limit\n",
            Refusal::Busy => "too many bodies in flight; retry later\n",
            Refusal::Timeout => "the body did not arrive in time\n",
            Refusal::TooSlow => "the body arrived too slowly\n",
            Refusal::Broken => "the body was cut short\n",
        }
    }
}

/// Reads a body of the length `headers` declare: refused before reading
/// when the length is missing, over [`MAX_BODY`] or past the budget; its
/// progress is kept in `watch` while it is read.
pub(crate) async fn read(
    headers: &HeaderMap,
    body: Body,
    limits: &BodyLimits,
    watch: &BodyWatch,
) -> Result<Unverified, Refusal> {
    if headers.contains_key(header::TRANSFER_ENCODING) {
        return Err(Refusal::LengthRequired);
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or(Refusal::LengthRequired)?;
    if declared > MAX_BODY as u64 {
        return Err(Refusal::TooLarge);
    }
    let len = declared as usize;
    let permit = limits.budget.clone().try_acquire_many_owned(len as u32).map_err(|_| Refusal::Busy)?;
    // The capacity is reserved, not touched: memory is used as bytes arrive.
    let mut bytes = Vec::with_capacity(len);
    let mut body = std::pin::pin!(body);
    let watching = watch.begin();
    let started = tokio::time::Instant::now();
    let receive = async {
        loop {
            let frame = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx));
            let frame = match limits.floor.due(bytes.len()) {
                Some(due) => tokio::time::timeout_at(started + due, frame).await.map_err(|_| Refusal::TooSlow)?,
                None => frame.await,
            };
            let Some(frame) = frame else { break };
            let Ok(data) = frame.map_err(|_| Refusal::Broken)?.into_data() else { continue };
            if bytes.len() + data.len() > len {
                return Err(Refusal::TooLarge);
            }
            bytes.extend_from_slice(&data);
            watching.advance(data.len());
        }
        if bytes.len() < len { Err(Refusal::Broken) } else { Ok(()) }
    };
    tokio::time::timeout(limits.timeout, receive).await.map_err(|_| Refusal::Timeout)??;
    Ok(Unverified { bytes, permit })
}

#[cfg(test)]
impl BodyWatch {
    /// A watch on a body begun at `since` that has sent `bytes`.
    pub(crate) fn reading_since(since: Instant, bytes: u64) -> BodyWatch {
        BodyWatch(Arc::new(Mutex::new(Some(Reading { since, bytes }))))
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use axum::body::Bytes;
    use hyper::body::Frame;
    use tokio::sync::mpsc;

    use super::*;

    /// A body whose pieces arrive when the test sends them; it ends when
    /// the sender is dropped.
    struct Pieces(mpsc::UnboundedReceiver<Bytes>);

    impl HttpBody for Pieces {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            self.0.poll_recv(cx).map(|piece| piece.map(|b| Ok(Frame::data(b))))
        }
    }

    fn body(len: usize) -> (HeaderMap, Body, mpsc::UnboundedSender<Bytes>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, len.into());
        (headers, Body::new(Pieces(rx)), tx)
    }

    fn limits(bytes_per_sec: u64, grace: Duration) -> BodyLimits {
        BodyLimits::new(MAX_BODY, Duration::from_secs(60), Floor { bytes_per_sec, grace })
    }

    #[tokio::test]
    async fn a_body_stalled_under_the_floor_is_cut_as_too_slow_once_its_grace_and_bytes_are_spent() {
        let limits = limits(1000, Duration::from_millis(200));
        let (headers, body, tx) = body(100_000);
        tx.send(Bytes::from(vec![b'x'; 100])).unwrap();
        let watch = BodyWatch::default();
        let started = Instant::now();
        let read = read(&headers, body, &limits, &watch).await;
        // 200 ms of grace, then 100 bytes at 1000 bytes a second buy 100 ms more.
        assert!(started.elapsed() >= Duration::from_millis(300), "cut after {:?}", started.elapsed());
        assert_eq!(read.err(), Some(Refusal::TooSlow));
        assert_eq!(Refusal::TooSlow.status(), StatusCode::REQUEST_TIMEOUT);
        assert!(!watch.reading(), "the watch ends with the reading");
        drop(tx);
    }

    #[tokio::test]
    async fn a_body_arriving_faster_than_the_floor_is_read_whole() {
        let limits = limits(1000, Duration::from_millis(200));
        let (headers, body, tx) = body(10_000);
        let sender = tokio::spawn(async move {
            // Each piece buys a second, and comes 20 ms after the last.
            for _ in 0..10 {
                tx.send(Bytes::from(vec![b'x'; 1000])).unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        let read = read(&headers, body, &limits, &BodyWatch::default()).await;
        assert_eq!(read.map(|body| body.bytes.len()).ok(), Some(10_000));
        sender.await.unwrap();
    }

    #[tokio::test]
    async fn without_a_floor_a_stalled_body_waits_for_its_timeout_alone() {
        let limits = limits(0, Duration::ZERO);
        let (headers, body, tx) = body(2);
        tx.send(Bytes::from_static(b"x")).unwrap();
        let sender = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            tx.send(Bytes::from_static(b"y")).unwrap();
        });
        let read = read(&headers, body, &limits, &BodyWatch::default()).await;
        assert_eq!(read.map(|body| body.bytes).ok(), Some(b"xy".to_vec()));
        sender.await.unwrap();
    }

    #[tokio::test]
    async fn the_watch_shows_a_body_being_read_and_its_rate() {
        let limits = limits(0, Duration::ZERO);
        let (headers, body, tx) = body(1000);
        tx.send(Bytes::from(vec![b'x'; 500])).unwrap();
        let watch = BodyWatch::default();
        let reading = tokio::spawn({
            let watch = watch.clone();
            async move { read(&headers, body, &limits, &watch).await.map(|b| b.bytes.len()) }
        });
        while watch.progress(Instant::now()).is_none_or(|(rate, _)| rate == 0.0) {
            tokio::task::yield_now().await;
        }
        let (rate, _) = watch.progress(Instant::now()).unwrap();
        // 500 bytes over at least JUDGED_AFTER (100 ms): 5,000 bytes a second at most.
        assert!(rate > 0.0 && rate <= 5000.0, "{rate}");
        tx.send(Bytes::from(vec![b'x'; 500])).unwrap();
        drop(tx);
        assert_eq!(reading.await.unwrap().ok(), Some(1000));
        assert!(watch.progress(Instant::now()).is_none());
    }
}
