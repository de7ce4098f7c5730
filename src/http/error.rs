//! The one place where errors become HTTP responses: `{"status":"error","code","message"}`,
//! with the status, headers and stable code each deserves.

use std::time::Duration;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, ResponseError};

use crate::credentials::AuthError;
use crate::domain::ValidationError;
use crate::error_chain::ErrorChain;
use crate::error_code::{ErrorBody, ErrorCode};
use crate::gate::Refusal;
use crate::memory::MemoryError;
use crate::oauth::{OAuthCode, OAuthError};
use crate::store::StoreError;
use crate::transfer::TransferError;

/// Seconds a client is asked to wait after a 503.
const RETRY_AFTER_SECS: u32 = 5;

/// The HTTP status of an error `code`, as the API, the page and the OAuth server answer it.
pub fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).expect("ErrorCode::http_status names a status")
}

/// `wait` in whole seconds for `Retry-After`, rounded up so that a client that waits them is
/// let in.
pub fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// `answer`, saying in `Retry-After` when to come back.
pub fn retry_after(mut answer: HttpResponse, wait: Duration) -> HttpResponse {
    answer
        .headers_mut()
        .insert(header::RETRY_AFTER, retry_after_secs(wait).into());
    answer
}

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error(
        "The query string could not be read ({0}); send each parameter once, percent-encoded as UTF-8."
    )]
    MalformedQuery(String),
    #[error(
        "`{name}` is not a parameter of this endpoint; check its spelling. It takes: {}.",
        known.join(", ")
    )]
    UnknownParameter {
        name: String,
        known: &'static [&'static str],
    },
    #[error(
        "The JSON body could not be read ({0}); send an object such as {{\"mode\":\"save\",\"summary\":\"…\"}}."
    )]
    MalformedJson(String),
    #[error("Send the body as JSON, with `Content-Type: application/json`.")]
    UnsupportedMediaType,
    #[error("The request body is larger than {0} bytes; send a shorter summary.")]
    BodyTooLarge(usize),
    #[error("The request body took longer than {0} seconds to arrive; send it at once.")]
    BodyTimeout(u64),
    #[error("No such endpoint; memories are saved and loaded at `/`.")]
    NotFound,
    #[error("This endpoint does not take that method; it takes {0}.")]
    MethodNotAllowed(&'static str),
    #[error("`lang` must be `ja` or `en`.")]
    UnknownLanguage,
    #[error(
        "The request target is longer than {0} bytes; send a shorter summary, or send it in a POST body if the schema lists `POST /`."
    )]
    UriTooLong(usize),
    #[error("The request headers are larger than {0} bytes; send shorter headers.")]
    HeadersTooLarge(usize),
    #[error("Too many requests for this memory; try again in {0} seconds.")]
    RateLimited(u64),
    #[error(
        "Too many failed sign-ins from this address; try again in {0} seconds with a token this server knows."
    )]
    SignInThrottled(u64),
    /// An admin URL named a bare token's namespace by its name, the token itself; the label
    /// to name it by instead.
    #[error(
        "This namespace's name is an API token, and URLs land in request logs: name it by its label, {0}, instead (and consider replacing the token)."
    )]
    TokenInUrl(String),
    #[error("No namespace {0} holds memories here; GET /admin/namespaces lists them.")]
    UnknownNamespace(String),
    /// The MCP transport refused a request before any tool ran (the SDK's own checks).
    #[error("{message}")]
    McpTransport { code: ErrorCode, message: String },
    /// A failure of the store, or of an export, outside the memory operations.
    #[error("Memory is unavailable right now; try again in a few seconds.")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The gate's refusals, as the API answers them.
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Credentials(err) => Self::Auth(err),
            Refusal::Off => Self::NotFound,
            Refusal::Throttled(wait) => Self::SignInThrottled(retry_after_secs(wait)),
            Refusal::RateLimited(wait) => Self::RateLimited(wait.as_secs() + 1),
            Refusal::Unavailable(err) => Self::Unavailable(err),
        }
    }
}

impl From<ValidationError> for ApiError {
    fn from(err: ValidationError) -> Self {
        Self::Memory(err.into())
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        Self::Memory(err.into())
    }
}

/// A namespace named by the request is bad input; anything else went wrong on this side.
impl From<TransferError> for ApiError {
    fn from(err: TransferError) -> Self {
        match err {
            TransferError::Store(err) => err.into(),
            TransferError::Invalid(err) => err.into(),
            other => Self::Unavailable(other.into()),
        }
    }
}

impl ApiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Auth(err) => err.into(),
            Self::Memory(err) => err.into(),
            Self::MalformedQuery(_) => ErrorCode::MalformedQuery,
            Self::UnknownParameter { .. } => ErrorCode::UnknownParameter,
            Self::MalformedJson(_) => ErrorCode::MalformedJson,
            Self::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            Self::BodyTooLarge(_) => ErrorCode::BodyTooLarge,
            Self::BodyTimeout(_) => ErrorCode::BodyTimeout,
            Self::NotFound => ErrorCode::NotFound,
            Self::MethodNotAllowed(_) => ErrorCode::MethodNotAllowed,
            Self::UnknownLanguage => ErrorCode::UnknownLanguage,
            Self::UriTooLong(_) => ErrorCode::UriTooLong,
            Self::HeadersTooLarge(_) => ErrorCode::HeadersTooLarge,
            Self::RateLimited(_) => ErrorCode::RateLimited,
            Self::SignInThrottled(_) => ErrorCode::SignInThrottled,
            Self::TokenInUrl(_) => ErrorCode::TokenInUrl,
            Self::UnknownNamespace(_) => ErrorCode::UnknownNamespace,
            Self::McpTransport { code, .. } => *code,
            Self::Unavailable(_) => ErrorCode::StoreUnavailable,
        }
    }

    fn body(&self) -> ErrorBody {
        match self {
            Self::Memory(err) => ErrorBody::of_memory(err),
            Self::BodyTooLarge(limit) | Self::UriTooLong(limit) | Self::HeadersTooLarge(limit) => {
                ErrorBody::new(self.code(), self.to_string(), Some(*limit))
            }
            _ => ErrorBody::new(self.code(), self.to_string(), None),
        }
    }

    /// Whether the fault is on this side: the caller is asked to retry, and the operator sees
    /// the cause in the log.
    fn unavailable(&self) -> bool {
        matches!(
            self,
            Self::Memory(MemoryError::Store(_)) | Self::Unavailable(_)
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        status_of(self.code())
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        match self {
            // RFC 6750, section 3.1.
            Self::Auth(AuthError::InvalidAccessToken { .. }) => {
                response
                    .insert_header((header::WWW_AUTHENTICATE, r#"Bearer error="invalid_token""#));
            }
            Self::Auth(_) => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            Self::RateLimited(secs) | Self::SignInThrottled(secs) => {
                response.insert_header((header::RETRY_AFTER, *secs));
            }
            Self::MethodNotAllowed(allow) => {
                response.insert_header((header::ALLOW, *allow));
            }
            _ if self.unavailable() => {
                // The cause is for operators; the caller gets the generic message.
                tracing::error!(error = %ErrorChain(self), "store call failed");
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECS));
            }
            _ => {}
        }
        response.json(self.body())
    }
}

/// A body an OAuth endpoint could not read whole, as OAuth refuses it (`code`): too large, too
/// slow or cut off.
pub fn unread(code: OAuthCode, err: &ApiError) -> OAuthFailure {
    let why = match err {
        ApiError::BodyTooLarge(limit) => format!("the body is larger than {limit} bytes"),
        ApiError::BodyTimeout(secs) => format!("the body took longer than {secs} seconds"),
        _ => "the body could not be read".to_owned(),
    };
    OAuthFailure::Unread(OAuthError::refused(code, why))
}

/// A refusal of an OAuth endpoint, in OAuth's shape (RFC 6749, section 5.2) and never cached.
#[derive(Debug, thiserror::Error)]
pub enum OAuthFailure {
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    /// The client's address stored as much as it may before signing in (`crate::throttle`);
    /// it may again after the wait.
    #[error("this address may store no more for {0:?}")]
    Throttled(Duration),
    /// The client's address presented as many unknown refresh tokens as it may
    /// (`crate::throttle`); it may again after the wait.
    #[error("this address guessed refresh tokens too often for {0:?}")]
    Guessing(Duration),
    /// A body refused before it was read whole: the answer closes the connection, so that the
    /// rest of the body is neither read nor kept.
    #[error(transparent)]
    Unread(OAuthError),
}

impl ResponseError for OAuthFailure {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::OAuth(OAuthError::Refused {
                code: OAuthCode::InvalidClient | OAuthCode::InvalidToken,
                ..
            }) => StatusCode::UNAUTHORIZED,
            Self::OAuth(OAuthError::Refused { .. } | OAuthError::UnknownRefreshToken)
            | Self::Unread(_) => StatusCode::BAD_REQUEST,
            Self::OAuth(OAuthError::Store(_) | OAuthError::Upstream(_)) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::Throttled(_) | Self::Guessing(_) | Self::OAuth(OAuthError::Throttled { .. }) => {
                StatusCode::TOO_MANY_REQUESTS
            }
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        response
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::PRAGMA, "no-cache"));
        if let Self::Unread(_) = self {
            response.force_close();
        }
        let (code, description) = match self {
            Self::OAuth(OAuthError::Refused { code, description })
            | Self::Unread(OAuthError::Refused { code, description }) => {
                (code.as_str(), description.clone())
            }
            Self::OAuth(unknown @ OAuthError::UnknownRefreshToken) => {
                (OAuthCode::InvalidGrant.as_str(), unknown.to_string())
            }
            Self::OAuth(OAuthError::Throttled { what, wait }) => {
                let secs = retry_after_secs(*wait);
                response.insert_header((header::RETRY_AFTER, secs));
                (
                    "temporarily_unavailable",
                    format!("too many {what} of late; try again in {secs} seconds"),
                )
            }
            Self::OAuth(cause) | Self::Unread(cause) => {
                tracing::error!(error = %ErrorChain(cause), "an OAuth request failed");
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECS));
                (
                    "temporarily_unavailable",
                    "try again in a few seconds".into(),
                )
            }
            Self::Throttled(wait) | Self::Guessing(wait) => {
                let secs = retry_after_secs(*wait);
                response.insert_header((header::RETRY_AFTER, secs));
                let what = match self {
                    Self::Guessing(_) => "unknown refresh tokens",
                    _ => "registrations",
                };
                (
                    "temporarily_unavailable",
                    format!(
                        "too many {what} from this address of late; try again in {secs} seconds"
                    ),
                )
            }
        };
        if self.status_code() == StatusCode::UNAUTHORIZED {
            // RFC 6749, section 5.2: a client that failed to authenticate is told how to.
            response.insert_header((header::WWW_AUTHENTICATE, r#"Basic realm="kioku""#));
        }
        response.json(serde_json::json!({ "error": code, "error_description": description }))
    }
}
