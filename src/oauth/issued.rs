//! What an issued credential stands for, kept in its record's body so that checking it takes
//! one read.

use serde::{Deserialize, Serialize};

use super::oidc::PendingSignIn;
use super::request::AuthorizationParams;
use crate::store::Grant;

/// An authorization code: the grant it opens, and what the token request must repeat.
#[derive(Debug, Serialize, Deserialize)]
pub struct CodeBody {
    pub grant: Grant,
    pub redirect_uri: String,
    /// Whether the authorization request named the redirect URI; then the token request must
    /// too (RFC 6749, section 4.1.3).
    pub redirect_uri_given: bool,
    pub code_challenge: Option<String>,
}

/// An access or refresh token: its grant as it was issued, and the resource it is for.
#[derive(Debug, Serialize, Deserialize)]
pub struct TokenBody {
    pub grant: Grant,
    pub audience: String,
}

/// A sign-in at the OpenID Provider under way: what to check when the person comes back, and
/// the authorization request to answer then, or none for a sign-in to the memory page. Not
/// `Debug`: it holds the PKCE verifier.
#[derive(Serialize, Deserialize)]
pub struct SignInBody {
    pub pending: PendingSignIn,
    pub request: Option<AuthorizationParams>,
}
