//! The webhook receiver: read the body within the limits for unverified
//! bodies, verify the HMAC on the raw bytes, then parse, dedup by
//! `X-GitHub-Delivery`, persist, and answer 202. Nothing is parsed or stored
//! before the signature verifies.

pub(crate) mod body;
pub mod envelope;
pub(crate) mod payloads;
pub mod signature;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::Notify;

use crate::metrics::Metrics;
use crate::store::{Accepted, Signed, Store};
pub use body::Floor;
use body::Unverified;
pub(crate) use body::{BodyLimits, BodyWatch, JUDGED_AFTER};
pub use signature::Secrets;

/// GitHub caps webhook payloads at 25 MB; anything declared larger is
/// refused (413) before it is read.
pub(crate) const MAX_BODY: usize = 25 * 1024 * 1024;

/// What the routes share.
#[derive(Clone, Debug)]
pub(crate) struct Receiver {
    pub store: Store,
    pub secrets: Arc<Secrets>,
    pub metrics: Arc<Metrics>,
    /// Wakes the workers when a job was stored.
    pub wake: Arc<Notify>,
    pub body_limits: BodyLimits,
    /// The App's bot login (`<slug>[bot]`) once GitHub named it: events it
    /// caused (its own review, its check runs) make no job.
    pub bot: Arc<std::sync::OnceLock<String>>,
    pub readiness: Arc<Readiness>,
}

/// What keeps the App from being ready besides its store: GitHub refusing
/// its credentials.
#[derive(Debug, Default)]
pub(crate) struct Readiness {
    refused: std::sync::Mutex<Option<String>>,
}

impl Readiness {
    pub(crate) fn credentials_refused(&self, reason: String) {
        *self.refused.lock().unwrap_or_else(|e| e.into_inner()) = Some(reason);
    }

    pub(crate) fn credentials_accepted(&self) {
        *self.refused.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn refused(&self) -> Option<String> {
        self.refused.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// `POST /webhook` (and `/api/github/webhooks`), `/healthz`, `/readyz`, `/metrics`.
pub(crate) fn router(receiver: Receiver) -> Router {
    Router::new()
        .route("/webhook", post(deliver))
        .route("/api/github/webhooks", post(deliver))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .with_state(receiver)
}

/// How long `/readyz` waits for the store: under the 1-second timeout of a
/// Kubernetes probe, whatever the pool's own connection timeout.
const READY_WITHIN: std::time::Duration = std::time::Duration::from_millis(800);

async fn ready(State(r): State<Receiver>) -> Response {
    if let Some(reason) = r.readiness.refused() {
        return (StatusCode::SERVICE_UNAVAILABLE, reason).into_response();
    }
    if tokio::time::timeout(READY_WITHIN, r.store.ping()).await.unwrap_or(false) {
        (StatusCode::OK, "ready").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "store unreachable").into_response()
    }
}

/// The counters, and the jobs by state when the store answers within the
/// readiness bound (a scrape never waits on a stalled database).
async fn metrics(State(r): State<Receiver>) -> impl IntoResponse {
    let mut text = r.metrics.render();
    if let Ok(Ok(c)) = tokio::time::timeout(READY_WITHIN, r.store.job_counts()).await {
        let states = [
            ("queued", c.queued),
            ("running", c.running),
            ("done", c.done),
            ("superseded", c.superseded),
            ("failed", c.failed),
        ];
        text.push_str(&crate::metrics::jobs_gauge(&states));
    }
    ([("content-type", "text/plain; version=0.0.4")], text)
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn deliver(State(r): State<Receiver>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    // The server gives each connection's requests its watch; a request
    // served otherwise (a test's router) is watched by nobody.
    let watch = parts.extensions.get::<BodyWatch>().cloned().unwrap_or_default();
    let event = header_str(&headers, "x-github-event").unwrap_or("");
    match body::read(&headers, body, &r.body_limits, &watch).await {
        Ok(unverified) => accept(&r, &headers, event, unverified).await.into_response(),
        Err(refusal) => {
            r.metrics.delivery(event, refusal.outcome());
            let mut response = (refusal.status(), refusal.message()).into_response();
            if refusal == body::Refusal::Busy {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            response
        }
    }
}

async fn accept(r: &Receiver, headers: &HeaderMap, event: &str, unverified: Unverified) -> (StatusCode, &'static str) {
    let signature = headers.get("x-hub-signature-256").map(|v| v.as_bytes());
    let Some(mac) = r.secrets.verify(signature, &unverified.bytes) else {
        r.metrics.delivery(event, "unauthorized");
        return (StatusCode::UNAUTHORIZED, "signature missing or invalid\n");
    };
    let body = unverified.verified();
    let Some(delivery) = header_str(headers, "x-github-delivery").filter(|d| !d.is_empty() && d.len() <= 100) else {
        r.metrics.delivery(event, "bad_request");
        return (StatusCode::BAD_REQUEST, "X-GitHub-Delivery missing\n");
    };
    if event.is_empty() {
        r.metrics.delivery(event, "bad_request");
        return (StatusCode::BAD_REQUEST, "X-GitHub-Event missing\n");
    }
    let mut work = match envelope::parse(event, &body) {
        Ok(work) => work,
        Err(err) => {
            tracing::info!(delivery, event, %err, "refused a delivery");
            r.metrics.delivery(event, "bad_request");
            return (StatusCode::BAD_REQUEST, "body is not a JSON payload\n");
        }
    };
    let own = r.bot.get().zip(work.sender.as_deref()).is_some_and(|(bot, sender)| bot.eq_ignore_ascii_case(sender));
    if own {
        tracing::debug!(delivery, event, "the App's own event: no job");
        work.jobs.clear();
    }
    // Before its job: the worker that claims the job reads the group here.
    if let Some(group) = &work.merge_group
        && let Err(err) = r.store.record_merge_group(group).await
    {
        tracing::error!(delivery, error = %err, "cannot store a merge group");
        r.metrics.delivery(event, "error");
        return (StatusCode::SERVICE_UNAVAILABLE, "cannot store the delivery\n");
    }
    let accepted = r.store.accept_signed(delivery, event, Signed { body: &body, mac: &mac.0 }, &work.jobs).await;
    match accepted {
        Ok(Accepted::Duplicate) => {
            r.metrics.delivery(event, "duplicate");
            (StatusCode::OK, "duplicate delivery\n")
        }
        Ok(Accepted::New { jobs }) => {
            if jobs > 0 {
                r.wake.notify_one();
            }
            r.metrics.delivery(event, "accepted");
            (StatusCode::ACCEPTED, "accepted\n")
        }
        Err(err) => {
            tracing::error!(delivery, error = %err, "cannot store a delivery");
            r.metrics.delivery(event, "error");
            (StatusCode::SERVICE_UNAVAILABLE, "cannot store the delivery\n")
        }
    }
}
