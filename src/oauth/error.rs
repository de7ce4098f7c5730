//! Why the authorization server refused: the error codes of RFC 6749 (section 5.2) and of the
//! RFCs that extend it, each with a description that says what to change.

use crate::store::StoreError;

use super::oidc::OidcError;

/// An error code an OAuth client branches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthCode {
    /// RFC 6749, section 5.2, and section 4.1.2.1 for the authorization endpoint.
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    UnsupportedResponseType,
    InvalidScope,
    AccessDenied,
    /// RFC 8707, section 2: a resource this server does not serve.
    InvalidTarget,
    /// RFC 7591, section 3.2.2.
    InvalidRedirectUri,
    InvalidClientMetadata,
    /// RFC 6750, section 3.1: an access token that is expired, revoked or for another resource.
    InvalidToken,
}

impl OAuthCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnauthorizedClient => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::UnsupportedResponseType => "unsupported_response_type",
            Self::InvalidScope => "invalid_scope",
            Self::AccessDenied => "access_denied",
            Self::InvalidTarget => "invalid_target",
            Self::InvalidRedirectUri => "invalid_redirect_uri",
            Self::InvalidClientMetadata => "invalid_client_metadata",
            Self::InvalidToken => "invalid_token",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// The request was refused; `description` never echoes a secret.
    #[error("{description}")]
    Refused {
        code: OAuthCode,
        description: String,
    },
    /// Asked again too soon: `what` (refreshes of one grant, approvals by one person) is past
    /// its rate; it may be asked again after `wait`.
    #[error("too many {what} of late")]
    Throttled {
        what: &'static str,
        wait: std::time::Duration,
    },
    /// A refresh token with no record and no current grant of the client's: a guess, or one
    /// that went with its grant; the token endpoint counts it against the client's address.
    #[error("this refresh token is unknown or revoked")]
    UnknownRefreshToken,
    #[error("the store failed")]
    Store(#[from] StoreError),
    #[error("the OpenID Provider could not sign the person in")]
    Upstream(#[from] OidcError),
}

impl OAuthError {
    pub fn refused(code: OAuthCode, description: impl Into<String>) -> Self {
        Self::Refused {
            code,
            description: description.into(),
        }
    }
}

/// Shorthand for the refusals the protocol modules write.
pub(super) fn refuse<T>(code: OAuthCode, description: impl Into<String>) -> Result<T, OAuthError> {
    Err(OAuthError::refused(code, description))
}
