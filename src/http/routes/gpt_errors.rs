//! The error answers every GPT operation documents in the schema.

use utoipa::IntoResponses;

use crate::error_code::ErrorBody;

/// The errors every GPT operation may answer; each body is an [`ErrorBody`].
#[derive(IntoResponses)]
#[allow(dead_code)] // documentation only: ApiError builds the real answers
pub enum GptErrors {
    /// A parameter is missing or invalid; `message` says which and how to fix it
    #[response(status = 400)]
    BadRequest(ErrorBody),
    /// No `Authorization: Bearer` token was sent
    #[response(status = 401)]
    Unauthorized(ErrorBody),
    /// The token is not known to this server
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// The request target is too long; send a shorter summary, or POST it where the schema lists `POST /`
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
