//! The one place where errors become HTTP responses.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

use crate::auth::AuthError;
use crate::domain::ValidationError;
use crate::store::StoreError;

/// Seconds a client is asked to wait after a 503.
const RETRY_AFTER_SECS: u32 = 5;

/// Everything a request can fail with. Each becomes `{"status":"error","code","message"}`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error(transparent)]
    Validation(#[from] ValidationError),
    #[error(
        "The query string could not be read ({0}); send each parameter once, percent-encoded as UTF-8."
    )]
    MalformedQuery(String),
    #[error(
        "The JSON body could not be read ({0}); send an object such as {{\"mode\":\"save\",\"summary\":\"…\"}}."
    )]
    MalformedJson(String),
    #[error("Send the body as JSON, with `Content-Type: application/json`.")]
    UnsupportedMediaType,
    #[error("The request body is larger than {0} bytes; send a shorter summary.")]
    BodyTooLarge(usize),
    #[error("No such endpoint; memories are saved and loaded at `/`.")]
    NotFound,
    #[error(
        "This thread has reached the store's 1 MiB limit per thread; save to a new thread by leaving out thread_id."
    )]
    ThreadFull,
    #[error("Memory is unavailable right now; try again in a few seconds.")]
    Store(StoreError),
}

#[derive(Serialize)]
struct ErrorBody {
    status: &'static str,
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<usize>,
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::DocumentTooLarge => Self::ThreadFull,
            other => Self::Store(other),
        }
    }
}

impl ApiError {
    /// A stable, machine-readable name for the error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Auth(AuthError::MissingCredentials) => "missing_credentials",
            Self::Auth(AuthError::UnknownToken) => "unknown_token",
            Self::Validation(err) => match err {
                ValidationError::MissingMode => "missing_mode",
                ValidationError::UnknownMode => "unknown_mode",
                ValidationError::MissingSummary => "missing_summary",
                ValidationError::BlankSummary => "blank_summary",
                ValidationError::SummaryTooLong { .. } => "summary_too_long",
                ValidationError::SummaryControlCharacter(_) => "summary_control_character",
                ValidationError::InvalidThreadId(_) => "invalid_thread_id",
            },
            Self::MalformedQuery(_) => "malformed_query",
            Self::MalformedJson(_) => "malformed_json",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::BodyTooLarge(_) => "body_too_large",
            Self::NotFound => "not_found",
            Self::ThreadFull => "thread_full",
            Self::Store(_) => "store_unavailable",
        }
    }

    fn limit(&self) -> Option<usize> {
        match self {
            Self::Validation(ValidationError::SummaryTooLong { limit, .. }) => Some(*limit),
            Self::BodyTooLarge(limit) => Some(*limit),
            _ => None,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Auth(AuthError::MissingCredentials) => StatusCode::UNAUTHORIZED,
            Self::Auth(AuthError::UnknownToken) => StatusCode::FORBIDDEN,
            Self::Validation(_) | Self::MalformedQuery(_) | Self::MalformedJson(_) => {
                StatusCode::BAD_REQUEST
            }
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::ThreadFull => StatusCode::CONFLICT,
            Self::Store(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        match self {
            Self::Auth(_) => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            Self::Store(cause) => {
                // The cause is for operators; the caller gets the generic message.
                tracing::error!(error = %cause, "store call failed");
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECS));
            }
            _ => {}
        }
        response.json(ErrorBody {
            status: "error",
            code: self.code(),
            message: self.to_string(),
            limit: self.limit(),
        })
    }
}
