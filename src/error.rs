//! The one place where errors become HTTP responses.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::AuthError;
use crate::domain::ValidationError;
use crate::store::StoreError;
use crate::transfer::TransferError;

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
    #[error("This endpoint does not take that method; it takes {0}.")]
    MethodNotAllowed(&'static str),
    #[error("`lang` must be `ja` or `en`.")]
    UnknownLanguage,
    #[error("The request target is longer than {0} bytes; send long summaries with POST.")]
    UriTooLong(usize),
    #[error("The request headers are larger than {0} bytes; send shorter headers.")]
    HeadersTooLarge(usize),
    #[error("Too many requests for this memory; try again in {0} seconds.")]
    RateLimited(u64),
    #[error(
        "This summary alone is larger than the store holds in one thread (1 MiB); save a shorter summary."
    )]
    EntryTooLarge,
    #[error(
        "Nothing to forget: {0}. Load the memory to see each thread's thread_id and each summary's timestamp."
    )]
    NothingToForget(&'static str),
    #[error("This token is not an admin token: /admin takes one of KIOKU_ADMIN_TOKENS.")]
    NotAdmin,
    #[error("No namespace {0} holds memories here; GET /admin/namespaces lists them.")]
    UnknownNamespace(String),
    #[error("Memory is unavailable right now; try again in a few seconds.")]
    Store(StoreError),
}

/// Every error answer: `{"status":"error","code":…,"message":…}`.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    status: ErrorStatus,
    code: ErrorCode,
    /// What went wrong and what to change, in one sentence.
    message: String,
    /// The limit that was passed, where one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<usize>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum ErrorStatus {
    Error,
}

/// A stable, machine-readable name for each error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    MissingCredentials,
    UnknownToken,
    MissingMode,
    UnknownMode,
    MissingSummary,
    BlankSummary,
    SummaryTooLong,
    SummaryControlCharacter,
    InvalidThreadId,
    MissingThreadId,
    InvalidFilter,
    MalformedQuery,
    MalformedJson,
    UnsupportedMediaType,
    BodyTooLarge,
    NotFound,
    MethodNotAllowed,
    UnknownLanguage,
    UriTooLong,
    HeadersTooLarge,
    RateLimited,
    EntryTooLarge,
    NothingToForget,
    NotAdmin,
    UnknownNamespace,
    StoreUnavailable,
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::DocumentTooLarge => Self::EntryTooLarge,
            other => Self::Store(other),
        }
    }
}

/// Exports over HTTP fail only for the store; a stored name kioku cannot use counts as one.
impl From<TransferError> for ApiError {
    fn from(err: TransferError) -> Self {
        match err {
            TransferError::Store(err) => err.into(),
            other => Self::Store(StoreError::Unavailable(other.to_string())),
        }
    }
}

impl ApiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Auth(AuthError::MissingCredentials) => ErrorCode::MissingCredentials,
            Self::Auth(AuthError::UnknownToken) => ErrorCode::UnknownToken,
            Self::Validation(err) => match err {
                ValidationError::MissingMode => ErrorCode::MissingMode,
                ValidationError::UnknownMode => ErrorCode::UnknownMode,
                ValidationError::MissingSummary => ErrorCode::MissingSummary,
                ValidationError::BlankSummary => ErrorCode::BlankSummary,
                ValidationError::SummaryTooLong { .. } => ErrorCode::SummaryTooLong,
                ValidationError::SummaryControlCharacter(_) => ErrorCode::SummaryControlCharacter,
                ValidationError::InvalidThreadId(_) => ErrorCode::InvalidThreadId,
                ValidationError::MissingThreadId => ErrorCode::MissingThreadId,
                ValidationError::InvalidFilter { .. } => ErrorCode::InvalidFilter,
            },
            Self::MalformedQuery(_) => ErrorCode::MalformedQuery,
            Self::MalformedJson(_) => ErrorCode::MalformedJson,
            Self::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            Self::BodyTooLarge(_) => ErrorCode::BodyTooLarge,
            Self::NotFound => ErrorCode::NotFound,
            Self::MethodNotAllowed(_) => ErrorCode::MethodNotAllowed,
            Self::UnknownLanguage => ErrorCode::UnknownLanguage,
            Self::UriTooLong(_) => ErrorCode::UriTooLong,
            Self::HeadersTooLarge(_) => ErrorCode::HeadersTooLarge,
            Self::RateLimited(_) => ErrorCode::RateLimited,
            Self::EntryTooLarge => ErrorCode::EntryTooLarge,
            Self::NothingToForget(_) => ErrorCode::NothingToForget,
            Self::NotAdmin => ErrorCode::NotAdmin,
            Self::UnknownNamespace(_) => ErrorCode::UnknownNamespace,
            Self::Store(_) => ErrorCode::StoreUnavailable,
        }
    }

    fn limit(&self) -> Option<usize> {
        match self {
            Self::Validation(ValidationError::SummaryTooLong { limit, .. }) => Some(*limit),
            Self::BodyTooLarge(limit) | Self::UriTooLong(limit) | Self::HeadersTooLarge(limit) => {
                Some(*limit)
            }
            _ => None,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Auth(AuthError::MissingCredentials) => StatusCode::UNAUTHORIZED,
            Self::Auth(AuthError::UnknownToken) => StatusCode::FORBIDDEN,
            Self::Validation(_)
            | Self::MalformedQuery(_)
            | Self::MalformedJson(_)
            | Self::UnknownLanguage => StatusCode::BAD_REQUEST,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            Self::UriTooLong(_) => StatusCode::URI_TOO_LONG,
            Self::HeadersTooLarge(_) => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Self::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::EntryTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::NothingToForget(_) | Self::UnknownNamespace(_) => StatusCode::NOT_FOUND,
            Self::NotAdmin => StatusCode::FORBIDDEN,
            Self::Store(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        match self {
            Self::Auth(_) | Self::NotAdmin => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            Self::Store(cause) => {
                // The cause is for operators; the caller gets the generic message.
                tracing::error!(error = %cause, "store call failed");
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECS));
            }
            Self::RateLimited(secs) => {
                response.insert_header((header::RETRY_AFTER, *secs));
            }
            Self::MethodNotAllowed(allow) => {
                response.insert_header((header::ALLOW, *allow));
            }
            _ => {}
        }
        response.json(ErrorBody {
            status: ErrorStatus::Error,
            code: self.code(),
            message: self.to_string(),
            limit: self.limit(),
        })
    }
}
