//! Reading a delivery's body before its signature is checked, under limits
//! that hold whatever unauthenticated clients send: the declared length is
//! checked before a byte is read, the bytes held by bodies not yet verified
//! come from one budget shared by every request, and a body must arrive
//! within a deadline.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, HttpBody};
use axum::http::{HeaderMap, StatusCode, header};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::MAX_BODY;

/// What unverified bodies may hold, shared by every request.
#[derive(Clone, Debug)]
pub struct BodyLimits {
    budget: Arc<Semaphore>,
    /// How long a body may take to arrive once its headers did.
    pub timeout: Duration,
}

impl BodyLimits {
    /// `budget` bytes for every unverified body at once; at least one body
    /// of the largest size GitHub sends always fits.
    pub fn new(budget: usize, timeout: Duration) -> BodyLimits {
        let budget = budget.clamp(MAX_BODY, u32::MAX as usize);
        BodyLimits { budget: Arc::new(Semaphore::new(budget)), timeout }
    }
}

/// A body read whole whose signature is not checked yet. Its bytes count
/// against the budget until it is dropped or [`Unverified::verified`].
pub struct Unverified {
    pub bytes: Vec<u8>,
    permit: OwnedSemaphorePermit,
}

impl Unverified {
    /// The body, its signature checked: its bytes leave the budget for
    /// unverified bodies.
    pub fn verified(self) -> Vec<u8> {
        drop(self.permit);
        self.bytes
    }
}

/// Why a body was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No `Content-Length` (GitHub always sends one), or a chunked body.
    LengthRequired,
    TooLarge,
    /// The budget for unverified bodies is spent.
    Busy,
    Timeout,
    /// The client broke off mid-body.
    Broken,
}

impl Refusal {
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::LengthRequired => StatusCode::LENGTH_REQUIRED,
            Refusal::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::Busy => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::Timeout => StatusCode::REQUEST_TIMEOUT,
            Refusal::Broken => StatusCode::BAD_REQUEST,
        }
    }

    /// The `/metrics` outcome label.
    pub fn outcome(self) -> &'static str {
        match self {
            Refusal::LengthRequired => "length_required",
            Refusal::TooLarge => "too_large",
            Refusal::Busy => "busy",
            Refusal::Timeout => "timeout",
            Refusal::Broken => "bad_request",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Refusal::LengthRequired => "a Content-Length header is required\n",
            Refusal::TooLarge => "the body is over GitHub's 25 MB limit\n",
            Refusal::Busy => "too many bodies in flight; retry later\n",
            Refusal::Timeout => "the body did not arrive in time\n",
            Refusal::Broken => "the body was cut short\n",
        }
    }
}

/// Reads a body of the length `headers` declare: refused before reading
/// when the length is missing, over [`MAX_BODY`] or past the budget.
pub async fn read(headers: &HeaderMap, body: Body, limits: &BodyLimits) -> Result<Unverified, Refusal> {
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
    let receive = async {
        while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            let Ok(data) = frame.map_err(|_| Refusal::Broken)?.into_data() else { continue };
            if bytes.len() + data.len() > len {
                return Err(Refusal::TooLarge);
            }
            bytes.extend_from_slice(&data);
        }
        if bytes.len() < len { Err(Refusal::Broken) } else { Ok(()) }
    };
    tokio::time::timeout(limits.timeout, receive).await.map_err(|_| Refusal::Timeout)??;
    Ok(Unverified { bytes, permit })
}
