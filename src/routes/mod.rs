//! Thin HTTP handlers: read the request, validate into domain types, call the store.

pub mod admin;
mod docs;
pub mod forget;
mod health;
pub mod memory;
mod strict_query;

use actix_web::{HttpResponse, Route, web};
use utoipa::IntoResponses;

pub use docs::{openapi_json, openapi_yaml, prompt};
pub use forget::forget;
pub use health::{healthz, readyz};
pub use memory::{MemoryRequest, memory_get, memory_post};

use crate::error::{ApiError, ErrorBody};

pub async fn not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

/// A resource's answer to the methods it does not take; `allow` lists those it does.
pub fn method_not_allowed(allow: &'static str) -> Route {
    web::to(move || async move { Err::<HttpResponse, _>(ApiError::MethodNotAllowed(allow)) })
}

/// The errors every GPT operation may answer; each body is an [`ErrorBody`].
#[derive(IntoResponses)]
#[allow(dead_code)] // documentation only: ApiError builds the real answers
enum GptErrors {
    /// A parameter is missing or invalid; `message` says which and how to fix it
    #[response(status = 400)]
    BadRequest(ErrorBody),
    /// No `Authorization: Bearer` token was sent
    #[response(status = 401)]
    Unauthorized(ErrorBody),
    /// The token is not known to this server
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// The request target is too long; send long summaries with POST
    #[response(status = 414)]
    UriTooLong(ErrorBody),
    /// Too many requests; retry after `Retry-After` seconds
    #[response(status = 429, headers(("Retry-After" = u32, description = "Seconds to wait before retrying")))]
    TooManyRequests(ErrorBody),
    /// The request headers are too large
    #[response(status = 431)]
    HeadersTooLarge(ErrorBody),
    /// Memory is unavailable for a moment; retry after `Retry-After` seconds
    #[response(status = 503, headers(("Retry-After" = u32, description = "Seconds to wait before retrying")))]
    Unavailable(ErrorBody),
}
