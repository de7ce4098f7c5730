//! What one request may send: refuses over-long request targets and oversized headers before
//! any handler runs.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

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
