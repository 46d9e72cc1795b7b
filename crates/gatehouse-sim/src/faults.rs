//! The simulated GitHub's fault switches and request log: every request
//! passes here first, to be answered with the fault a test switched on (a
//! 500, any status, a secondary or primary rate limit, GraphQL's
//! `RATE_LIMITED`, a slow answer, a missing field), held while a rate limit
//! it answered lasts, and logged. A stall ([`Sim::stall_after_writes`])
//! stands for the client's process dying after a write reached GitHub.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::routes::{Shared, error, lock, now};
use super::{Logged, Sim};

/// A crash staged by a test: the `after`th write from when it was set is
/// applied and never answered, and nothing after it is answered either,
/// until the test resumes (its client is gone by then).
#[derive(Debug, Default)]
pub(crate) struct Stall {
    /// 0: no stall is set.
    after: u32,
    seen: u32,
    stalled: bool,
}

impl Sim {
    /// Applies the `n`th write from now (a REST write under `/repos/` or a
    /// GraphQL mutation) without answering it, and holds every later
    /// request unanswered until [`Sim::resume`]: what GitHub sees of a
    /// client whose process was killed once that write reached GitHub.
    /// A test's stand-in for a crash, not a behaviour of GitHub's.
    pub fn stall_after_writes(&self, n: u32) {
        self.lock().stall = Stall { after: n, seen: 0, stalled: false };
    }

    /// Whether the staged write was applied and the stall holds.
    pub fn stalled(&self) -> bool {
        self.lock().stall.stalled
    }

    /// Answers requests again (those held stay unanswered: their client
    /// is gone).
    pub fn resume(&self) {
        self.lock().stall = Stall::default();
    }
}

/// Counts a write GitHub applied against the stall set; true when it is
/// the staged one.
fn stall_on(state: &Shared) -> bool {
    let mut s = lock(state);
    let stall = &mut s.stall;
    if stall.after == 0 || stall.stalled {
        return false;
    }
    stall.seen += 1;
    stall.stalled = stall.seen == stall.after;
    stall.stalled
}

/// How soon after a rate limit's answer a request may still arrive without
/// having been sent after the client read it: a job's reads go out
/// together, and on a loaded two-core machine one sent beside the limited
/// request was seen to reach the router over 50 ms later. A client that
/// retried on its own backoff (50 ms, doubling) instead of the wait GitHub
/// named is still caught well inside the 2-second waits the tests set.
const IN_FLIGHT_MS: u64 = 300;
fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The `x-ratelimit-reset` (Unix seconds) of a limit starting now and
/// lasting `secs` (0: the one already in effect), the requests until
/// then held.
fn reset_at(state: &Shared, secs: u64) -> u64 {
    let mut s = lock(state);
    if secs > 0 {
        s.limited_until_ms = s.limited_until_ms.max((now() + secs) * 1000);
        s.limited_since_ms = now_ms();
    }
    s.limited_until_ms.div_ceil(1000).max(now() + 1)
}

/// Whether a GraphQL request's query is a mutation; the request is rebuilt
/// around the body read.
async fn graphql_mutation(request: Request) -> (Request, bool) {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let mutation = serde_json::from_slice::<Value>(&bytes).ok().is_some_and(|v| {
        v.get("query").and_then(Value::as_str).is_some_and(|q| q.trim_start().starts_with("mutation"))
    });
    (Request::from_parts(parts, axum::body::Body::from(bytes)), mutation)
}

pub(crate) async fn faults_and_log(State(state): State<Shared>, request: Request, next: Next) -> Response {
    if lock(&state).stall.stalled {
        return std::future::pending().await;
    }
    let latency = lock(&state).latency;
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    let (request, mutation) = if path == "/graphql" { graphql_mutation(request).await } else { (request, false) };
    let target = format!("{method} {path}");
    enum Fault {
        Fail,
        RateLimit(u64, u16),
        Exhausted(u64),
        GraphQlLimited(u64),
        Slow(std::time::Duration),
        Status(u16),
        Omit(String),
    }
    // The App's own routes (`/app` and `/app/...`, JWT-authenticated) are
    // outside an installation's limits.
    let installation_call = path != "/app" && !path.starts_with("/app/");
    let content = installation_call && ((method != "GET" && path.starts_with("/repos/")) || mutation);
    let fault = {
        let mut s = lock(&state);
        let held = installation_call && s.limited_until_ms > now_ms();
        if held && now_ms() > s.limited_since_ms + IN_FLIGHT_MS {
            s.sent_while_limited += 1;
        }
        let f = &mut s.faults;
        let reset_after = f.reset_after_s.max(1);
        if held {
            Some(Fault::Exhausted(0))
        } else if !target.contains(&f.only) {
            None
        } else if f.fail_next > 0 {
            f.fail_next -= 1;
            Some(Fault::Fail)
        } else if f.rate_limit_next > 0 {
            f.rate_limit_next -= 1;
            Some(Fault::RateLimit(f.retry_after_s, f.rate_limit_status))
        } else if f.exhaust_next > 0 {
            f.exhaust_next -= 1;
            Some(Fault::Exhausted(reset_after))
        } else if f.graphql_rate_limited_next > 0 && target == "POST /graphql" {
            f.graphql_rate_limited_next -= 1;
            Some(Fault::GraphQlLimited(reset_after))
        } else if f.status_next > 0 {
            f.status_next -= 1;
            Some(Fault::Status(f.status))
        } else if f.slow_next > 0 {
            f.slow_next -= 1;
            Some(Fault::Slow(f.delay))
        } else if f.omit_next > 0 {
            f.omit_next -= 1;
            Some(Fault::Omit(f.omit_field.clone()))
        } else {
            None
        }
    };
    // A write GitHub acts on (no fault, or one that still applies it) counts
    // against the content limits, and is in flight until it is answered.
    let applied = matches!(fault, None | Some(Fault::Slow(_) | Fault::Omit(_)));
    let mut in_flight = None;
    let mut fault = fault;
    if content && applied {
        let mut s = lock(&state);
        let limits = s.secondary;
        match s.content.admit(&limits, std::time::Instant::now()) {
            Ok(()) => in_flight = Some(InFlight(state.clone())),
            Err(after) => fault = Some(Fault::RateLimit(after, 403)),
        }
    }
    let response = match fault {
        Some(Fault::Fail) => error(StatusCode::INTERNAL_SERVER_ERROR, "Server Error"),
        Some(Fault::Status(status)) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let message = match status.as_u16() {
                401 => "Bad credentials",
                404 => "Not Found",
                422 => "Validation Failed",
                _ => status.canonical_reason().unwrap_or("Error"),
            };
            error(status, message)
        }
        Some(Fault::RateLimit(after, status)) => {
            // "Rate limits for the REST API": a secondary limit is a 403 or
            // 429, with `retry-after` when GitHub names the wait.
            let status =
                StatusCode::from_u16(status).ok().filter(|s| s.as_u16() == 429).unwrap_or(StatusCode::FORBIDDEN);
            let mut r = error(
                status,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            );
            if after > 0 {
                r.headers_mut().insert("retry-after", after.into());
                let mut s = lock(&state);
                (s.limited_until_ms, s.limited_since_ms) = (now_ms() + after * 1000, now_ms());
            }
            r
        }
        Some(Fault::Exhausted(reset_after)) => {
            // "Rate limits for the REST API": over the primary limit, 403
            // with nothing remaining until `x-ratelimit-reset`.
            let reset = reset_at(&state, reset_after);
            let mut r = error(StatusCode::FORBIDDEN, "API rate limit exceeded for installation.");
            r.headers_mut().insert("x-ratelimit-reset", reset.into());
            r.headers_mut().insert("x-ratelimit-remaining", 0.into());
            return log(&state, method, path, r);
        }
        Some(Fault::GraphQlLimited(reset_after)) => {
            // "Rate limits and node limits for the GraphQL API": HTTP 200,
            // an error of type RATE_LIMITED, nothing remaining until reset.
            let reset = reset_at(&state, reset_after);
            let body = json!({ "data": null, "errors": [{
                "type": "RATE_LIMITED",
                "message": "API rate limit already exceeded for installation ID 1.",
            }] });
            let mut r = Json(body).into_response();
            r.headers_mut().insert("x-ratelimit-reset", reset.into());
            r.headers_mut().insert("x-ratelimit-remaining", 0.into());
            return log(&state, method, path, r);
        }
        Some(Fault::Slow(delay)) => {
            let response = next.run(request).await;
            tokio::time::sleep(delay).await;
            response
        }
        Some(Fault::Omit(field)) => omit(next.run(request).await, &field).await,
        None if installation_call && method != "GET" && path.starts_with("/repos/") => {
            let arrived = std::time::Instant::now();
            let response = next.run(request).await;
            lock(&state).write_spans.push((arrived, std::time::Instant::now()));
            response
        }
        None => next.run(request).await,
    };
    if content && in_flight.is_some() && stall_on(&state) {
        return std::future::pending().await;
    }
    let mut response = response;
    response.headers_mut().insert("x-ratelimit-remaining", 4999.into());
    log(&state, method, path, response)
}

/// A write admitted to the content log, in flight until this is dropped:
/// when it is answered, or when the client gave up on it and its handler
/// was dropped.
struct InFlight(Shared);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut s = lock(&self.0);
        s.content.in_flight = s.content.in_flight.saturating_sub(1);
    }
}

/// The answer without `field` wherever it appears in its JSON.
async fn omit(response: Response, field: &str) -> Response {
    fn strip(value: &mut Value, field: &str) {
        match value {
            Value::Object(map) => {
                map.remove(field);
                map.values_mut().for_each(|v| strip(v, field));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| strip(v, field)),
            _ => {}
        }
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "Server Error");
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, axum::body::Body::from(bytes));
    };
    strip(&mut value, field);
    let mut response = Json(value).into_response();
    *response.status_mut() = parts.status;
    for (name, value) in parts.headers.iter().filter(|(name, _)| *name != "content-length") {
        response.headers_mut().insert(name, value.clone());
    }
    response
}

fn log(state: &Shared, method: String, path: String, response: Response) -> Response {
    let logged = Logged { method, path, status: response.status().as_u16() };
    let mut s = lock(state);
    if let Some(watch) = &s.watch {
        let _ = watch.send(logged.clone());
    }
    s.log.push(logged);
    response
}
