//! The stable, machine-readable name of every refusal, the same whichever door a request came
//! through; clients branch on it, so a name never changes.

use schemars::JsonSchema;
use serde::Serialize;
use utoipa::ToSchema;

use crate::credentials::AuthError;
use crate::domain::{Profile, TextField, ValidationError};
use crate::memory::MemoryError;

/// Every error answer: `{"status":"error","code":…,"message":…}`.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct ErrorBody {
    status: ErrorStatus,
    code: ErrorCode,
    /// What went wrong and what to change, in one sentence.
    message: String,
    /// The limit that was passed, where one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<usize>,
    /// With `profile_conflict`: the profile now current, to merge the rewrite into.
    #[serde(skip_serializing_if = "Option::is_none")]
    current: Option<Profile>,
}

#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ErrorStatus {
    Error,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: String, limit: Option<usize>) -> Self {
        Self {
            status: ErrorStatus::Error,
            code,
            message,
            limit,
            current: None,
        }
    }

    /// The answer to a failed memory operation, whichever door it came through.
    pub fn of_memory(err: &MemoryError) -> Self {
        let limit = match err {
            MemoryError::Invalid(
                ValidationError::TooLong { limit, .. }
                | ValidationError::QueryTooLong { limit, .. },
            ) => Some(*limit),
            _ => None,
        };
        let current = match err {
            MemoryError::ProfileConflict(current) => current.clone(),
            _ => None,
        };
        Self {
            current,
            ..Self::new(err.into(), err.to_string(), limit)
        }
    }
}

/// A stable, machine-readable name for each error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema, JsonSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    MissingCredentials,
    UnknownToken,
    InvalidToken,
    MissingMode,
    UnknownMode,
    MissingSummary,
    BlankSummary,
    SummaryTooLong,
    SummaryControlCharacter,
    BlankProfile,
    ProfileTooLong,
    ProfileControlCharacter,
    ProfileConflict,
    UnknownProfileVersion,
    InvalidParameters,
    InvalidThreadId,
    MissingThreadId,
    InvalidFilter,
    QueryTooLong,
    MalformedQuery,
    UnknownParameter,
    MalformedJson,
    UnsupportedMediaType,
    BodyTooLarge,
    BodyTimeout,
    NotFound,
    MethodNotAllowed,
    UnknownLanguage,
    UriTooLong,
    HeadersTooLarge,
    RateLimited,
    SignInThrottled,
    EntryTooLarge,
    NothingToForget,
    NotAdmin,
    UnknownNamespace,
    TokenInUrl,
    OriginNotAllowed,
    NotAcceptable,
    InvalidMcpRequest,
    StoreUnavailable,
}

impl ErrorCode {
    /// The codes only the admin API answers with.
    pub const ADMIN_ONLY: [Self; 3] = [Self::NotAdmin, Self::UnknownNamespace, Self::TokenInUrl];

    /// The HTTP status every door that speaks HTTP answers this refusal with.
    pub fn http_status(self) -> u16 {
        match self {
            Self::MissingCredentials | Self::InvalidToken => 401,
            Self::UnknownToken | Self::NotAdmin | Self::OriginNotAllowed => 403,
            Self::NotAcceptable => 406,
            Self::UnsupportedMediaType => 415,
            Self::BodyTooLarge | Self::EntryTooLarge => 413,
            Self::NotFound
            | Self::NothingToForget
            | Self::UnknownNamespace
            | Self::UnknownProfileVersion => 404,
            Self::ProfileConflict => 409,
            Self::MethodNotAllowed => 405,
            Self::BodyTimeout => 408,
            Self::UriTooLong => 414,
            Self::HeadersTooLarge => 431,
            Self::RateLimited | Self::SignInThrottled => 429,
            Self::StoreUnavailable => 503,
            Self::MissingMode
            | Self::UnknownMode
            | Self::MissingSummary
            | Self::BlankSummary
            | Self::SummaryTooLong
            | Self::SummaryControlCharacter
            | Self::BlankProfile
            | Self::ProfileTooLong
            | Self::ProfileControlCharacter
            | Self::InvalidParameters
            | Self::InvalidThreadId
            | Self::MissingThreadId
            | Self::InvalidFilter
            | Self::QueryTooLong
            | Self::MalformedQuery
            | Self::UnknownParameter
            | Self::MalformedJson
            | Self::UnknownLanguage
            | Self::TokenInUrl
            | Self::InvalidMcpRequest => 400,
        }
    }
}

impl From<&AuthError> for ErrorCode {
    fn from(err: &AuthError) -> Self {
        match err {
            AuthError::MissingCredentials => Self::MissingCredentials,
            AuthError::UnknownToken => Self::UnknownToken,
            AuthError::NotAdmin => Self::NotAdmin,
            AuthError::InvalidAccessToken { .. } => Self::InvalidToken,
        }
    }
}

impl From<&ValidationError> for ErrorCode {
    fn from(err: &ValidationError) -> Self {
        match err {
            ValidationError::MissingMode => Self::MissingMode,
            ValidationError::UnknownMode => Self::UnknownMode,
            ValidationError::MissingSummary => Self::MissingSummary,
            ValidationError::Blank(TextField::Summary) => Self::BlankSummary,
            ValidationError::Blank(TextField::Profile) => Self::BlankProfile,
            ValidationError::TooLong { field, .. } => match field {
                TextField::Summary => Self::SummaryTooLong,
                TextField::Profile => Self::ProfileTooLong,
            },
            ValidationError::ControlCharacter(TextField::Summary, _) => {
                Self::SummaryControlCharacter
            }
            ValidationError::ControlCharacter(TextField::Profile, _) => {
                Self::ProfileControlCharacter
            }
            ValidationError::InvalidParameters(_) => Self::InvalidParameters,
            ValidationError::InvalidThreadId(_) => Self::InvalidThreadId,
            ValidationError::MissingThreadId => Self::MissingThreadId,
            ValidationError::InvalidFilter { .. } => Self::InvalidFilter,
            ValidationError::QueryTooLong { .. } => Self::QueryTooLong,
        }
    }
}

impl From<&MemoryError> for ErrorCode {
    fn from(err: &MemoryError) -> Self {
        match err {
            MemoryError::Invalid(err) => err.into(),
            MemoryError::NothingToForget(_) => Self::NothingToForget,
            MemoryError::ProfileConflict(_) => Self::ProfileConflict,
            MemoryError::UnknownProfileVersion(_) => Self::UnknownProfileVersion,
            MemoryError::EntryTooLarge => Self::EntryTooLarge,
            MemoryError::Store(_) => Self::StoreUnavailable,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::ErrorCode;

    /// README's table of errors: each code it names, with the status it says.
    fn readme_table() -> BTreeMap<String, u16> {
        let mut listed = BTreeMap::new();
        for line in include_str!("../README.md").lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let [_, statuses, codes, ..] = cells[..] else {
                continue;
            };
            let Ok(statuses) = statuses
                .split(", ")
                .map(str::parse::<u16>)
                .collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            let codes: Vec<&str> = codes.split(", ").map(|c| c.trim_matches('`')).collect();
            for (i, code) in codes.iter().enumerate() {
                // One status for the row, or one for each code in turn.
                let status = statuses[if statuses.len() == codes.len() { i } else { 0 }];
                listed.insert((*code).to_owned(), status);
            }
        }
        listed
    }

    #[test]
    fn the_readme_lists_every_code_with_its_status() {
        let schema = serde_json::to_value(schemars::schema_for!(ErrorCode)).unwrap();
        let names: Vec<String> = serde_json::from_value(schema["enum"].clone()).unwrap();
        assert!(names.len() > 30, "{schema}");
        let expected: BTreeMap<String, u16> = names
            .into_iter()
            .map(|name| {
                let code: ErrorCode = serde_json::from_value(name.clone().into()).unwrap();
                (name, code.http_status())
            })
            .collect();
        assert_eq!(readme_table(), expected);
    }
}
