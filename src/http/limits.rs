//! What one request may send: refuses over-long request targets and oversized headers before
//! any handler runs, and a body that arrives too slowly.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::HttpMessage;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use futures_util::{Stream, StreamExt};
use tokio::time::Sleep;

use super::error::ApiError;

/// Longest request target (path and query string) accepted: a GET save carries its summary in
/// the query, and 5,000 characters of four UTF-8 bytes take 60,000 percent-encoded. Targets of
/// 65,535 bytes and more cannot be parsed at all (the `http` crate's limit) and get actix's
/// plain 400.
pub const MAX_URI_BYTES: usize = 65_000;
/// Most bytes of header names and values accepted, the request line aside.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// Refuses an over-long request target (414) or oversized headers (431) before any handler
/// runs. Heads past actix's own limit (128 KiB) are refused by actix itself.
pub async fn request_size(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let uri = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    let headers: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    let refusal = if uri > MAX_URI_BYTES {
        Some(ApiError::UriTooLong(MAX_URI_BYTES))
    } else if headers > MAX_HEADER_BYTES {
        Some(ApiError::HeadersTooLarge(MAX_HEADER_BYTES))
    } else {
        None
    };
    match refusal {
        Some(err) => Ok(req.error_response(err).map_into_right_body()),
        None => next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body),
    }
}

/// Largest body taken from someone not signed in (a sign-in, a consent, a token request, a
/// client's metadata): each fits in a few KB. A larger one is refused once it passes this,
/// and the rest is never read, so that held connections cannot each hold much memory.
pub const FORM_BODY_BYTES: usize = 16 * 1024;

/// `payload` whole, if it holds at most `limit` bytes and arrives within [`BODY_SECS`]; a
/// larger one is refused as soon as it passes the limit, the rest unread.
pub async fn read_body(mut payload: web::Payload, limit: usize) -> Result<Bytes, ApiError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| match timed_out(&e) {
            true => ApiError::BodyTimeout(BODY_SECS),
            false => ApiError::MalformedJson(e.to_string()),
        })?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::BodyTooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// Seconds a request body may take to arrive, all of it: a client that trickles one keeps a
/// connection and a worker's attention only this long.
pub const BODY_SECS: u64 = 10;

/// Ends the request body with a timeout error once [`BODY_SECS`] have passed; whoever reads
/// the body answers 408.
pub async fn body_deadline(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let body = Deadline {
        inner: req.take_payload(),
        sleep: Box::pin(tokio::time::sleep(Duration::from_secs(BODY_SECS))),
        expired: false,
    };
    req.set_payload(Payload::Stream {
        payload: Box::pin(body),
    });
    next.call(req).await
}

/// A body stream that fails with [`io::ErrorKind::TimedOut`] at its deadline.
struct Deadline<S> {
    inner: S,
    sleep: Pin<Box<Sleep>>,
    expired: bool,
}

impl<S: Stream<Item = Result<Bytes, PayloadError>> + Unpin> Stream for Deadline<S> {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.expired {
            return Poll::Ready(None);
        }
        if let Poll::Ready(item) = self.inner.poll_next_unpin(cx) {
            return Poll::Ready(item);
        }
        if self.sleep.as_mut().poll(cx).is_ready() {
            self.expired = true;
            let late = io::Error::new(
                io::ErrorKind::TimedOut,
                "the request body arrived too slowly",
            );
            return Poll::Ready(Some(Err(PayloadError::Io(late))));
        }
        Poll::Pending
    }
}

/// Whether a body failed by passing its deadline.
pub fn timed_out(err: &PayloadError) -> bool {
    matches!(err, PayloadError::Io(e) if e.kind() == io::ErrorKind::TimedOut)
}
