//! The stable, machine-readable name of every refusal, the same whichever door a request came
//! through; clients branch on it, so a name never changes.

use serde::Serialize;
use utoipa::ToSchema;

use crate::credentials::AuthError;
use crate::domain::ValidationError;
use crate::memory::MemoryError;

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

impl From<&AuthError> for ErrorCode {
    fn from(err: &AuthError) -> Self {
        match err {
            AuthError::MissingCredentials => Self::MissingCredentials,
            AuthError::UnknownToken => Self::UnknownToken,
            AuthError::NotAdmin => Self::NotAdmin,
        }
    }
}

impl From<&ValidationError> for ErrorCode {
    fn from(err: &ValidationError) -> Self {
        match err {
            ValidationError::MissingMode => Self::MissingMode,
            ValidationError::UnknownMode => Self::UnknownMode,
            ValidationError::MissingSummary => Self::MissingSummary,
            ValidationError::BlankSummary => Self::BlankSummary,
            ValidationError::SummaryTooLong { .. } => Self::SummaryTooLong,
            ValidationError::SummaryControlCharacter(_) => Self::SummaryControlCharacter,
            ValidationError::InvalidThreadId(_) => Self::InvalidThreadId,
            ValidationError::MissingThreadId => Self::MissingThreadId,
            ValidationError::InvalidFilter { .. } => Self::InvalidFilter,
        }
    }
}

impl From<&MemoryError> for ErrorCode {
    fn from(err: &MemoryError) -> Self {
        match err {
            MemoryError::Invalid(err) => err.into(),
            MemoryError::NothingToForget(_) => Self::NothingToForget,
            MemoryError::EntryTooLarge => Self::EntryTooLarge,
            MemoryError::Store(_) => Self::StoreUnavailable,
        }
    }
}
