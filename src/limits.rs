//! What one request, and one namespace, may ask of the service.

use std::num::NonZeroU32;
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::domain::Namespace;
use crate::error::ApiError;

/// Longest request target (path and query string) accepted: a GET save carries its summary in
/// the query, and 5,000 characters of four UTF-8 bytes take 60,000 percent-encoded. Targets of
/// 65,535 bytes and more cannot be parsed at all (the `http` crate's limit) and get actix's
/// plain 400.
pub const MAX_URI_BYTES: usize = 65_000;
/// Most bytes of header names and values accepted, the request line aside.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// A token bucket per namespace: `per_minute` requests a minute, in bursts of up to as many.
pub struct RateLimit {
    limiter: Option<DefaultKeyedRateLimiter<String>>,
}

impl RateLimit {
    /// `0` turns rate limiting off.
    pub fn per_minute(per_minute: u32) -> Self {
        Self {
            limiter: NonZeroU32::new(per_minute).map(|n| RateLimiter::keyed(Quota::per_minute(n))),
        }
    }

    /// Takes one request from the namespace's bucket, or says how long until one is free.
    pub fn check(&self, ns: &Namespace) -> Result<(), Duration> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        limiter
            .check_key(&ns.name().to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_namespace_has_its_own_bucket() {
        let limit = RateLimit::per_minute(2);
        let (a, b) = (
            Namespace::named("a").unwrap(),
            Namespace::named("b").unwrap(),
        );
        assert!(limit.check(&a).is_ok() && limit.check(&a).is_ok());
        let wait = limit.check(&a).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert!(limit.check(&b).is_ok());
    }

    #[test]
    fn zero_turns_it_off() {
        let limit = RateLimit::per_minute(0);
        let ns = Namespace::named("a").unwrap();
        assert!((0..1_000).all(|_| limit.check(&ns).is_ok()));
    }
}
