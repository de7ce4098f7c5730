//! What the OAuth server keeps: its clients, the grants people gave them, and the credentials
//! issued under those grants. A credential is kept only as the digest of its value. Times are
//! kept to the microsecond, Firestore's precision: finer parts are dropped on write. Ids and
//! digests name Firestore documents, so they never hold a `/` (UUIDs, hex and base64url don't).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A client of the OAuth server: a GPT Action an operator added, or an MCP client that
/// registered itself (RFC 7591).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    pub id: String,
    /// What the consent page calls it.
    pub name: String,
    /// The digest of its secret; `None` for a public client, which proves itself with PKCE.
    pub secret_digest: Option<String>,
    /// Where codes may be sent, each compared exactly.
    pub redirect_uris: Vec<String>,
    /// Registered itself rather than added by the operator.
    pub registered: bool,
    pub created_at: DateTime<Utc>,
    /// When a client that registered itself goes if no person has completed a grant for it by
    /// then; `None` once one has, and for the operator's clients.
    #[serde(default)]
    pub expires_at: Option<DateTime<Utc>>,
}

/// A person's consent for one client to use one namespace, until it is revoked or expires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub id: String,
    pub client_id: String,
    /// The client's name when the person agreed, as the consent page showed it. A grant made
    /// by an earlier kioku has none: its client's record names it.
    #[serde(default)]
    pub client_name: Option<String>,
    /// The namespace's name, which the store keys memories by.
    pub namespace: String,
    /// How the namespace appears in logs: a bare token's name is the token itself.
    pub namespace_label: String,
    /// How the person signed in: `token`, or the OpenID Provider's issuer.
    pub signed_in_with: String,
    /// With an API token: its digest (hex SHA-256), so that the grant ends with the token. A
    /// grant made by an earlier kioku has none.
    #[serde(default)]
    pub token_digest: Option<String>,
    pub scope: String,
    /// The resource (RFC 8707) its tokens are for, when the client named one.
    pub resource: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Moved on each time the grant issues tokens; past it the grant is gone.
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialKind {
    AuthorizationCode,
    AccessToken,
    RefreshToken,
    /// A sign-in at the OpenID Provider under way: it is keyed by the `state` sent there.
    SignIn,
    /// A person signed in to the memory page: it is keyed by their cookie; used once signed out.
    PageSession,
    /// The pair a refresh token's rotation issued, sealed, for the few seconds a client's own
    /// race may present that refresh token again.
    RotatedPair,
}

impl CredentialKind {
    const ALL: [Self; 6] = [
        Self::AuthorizationCode,
        Self::AccessToken,
        Self::RefreshToken,
        Self::SignIn,
        Self::PageSession,
        Self::RotatedPair,
    ];

    /// Its name in a store: the one serde gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "authorization_code",
            Self::AccessToken => "access_token",
            Self::RefreshToken => "refresh_token",
            Self::SignIn => "sign_in",
            Self::PageSession => "page_session",
            Self::RotatedPair => "rotated_pair",
        }
    }

    /// The kind [`as_str`](Self::as_str) names, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

/// An issued secret, kept as the digest of its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// The digest of the value the holder presents: the key it is found by.
    pub digest: String,
    pub kind: CredentialKind,
    /// The grant it was issued under; a sign-in under way has none yet.
    pub grant_id: Option<String>,
    pub expires_at: DateTime<Utc>,
    /// Set once it was redeemed (a code exchanged, a refresh token rotated).
    pub used: bool,
    /// What it stands for, as JSON the OAuth server writes and reads; the store keeps it as is.
    pub body: String,
}

/// What redeeming a credential found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redeemed {
    /// Not used before; now it is. The credential as now stored, marked used.
    First(Credential),
    /// Already used: a replay.
    Again(Credential),
    /// No credential has this digest.
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kinds_stored_name_is_its_serde_name_and_names_it_back() {
        for kind in CredentialKind::ALL {
            let serde_name = serde_json::to_value(kind).unwrap();
            assert_eq!(serde_name, kind.as_str());
            assert_eq!(CredentialKind::from_name(kind.as_str()), Some(kind));
        }
        assert_eq!(CredentialKind::from_name("password"), None);
    }
}
