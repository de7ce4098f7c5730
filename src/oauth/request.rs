//! The authorization request (RFC 6749, section 4.1.1, with PKCE and resource indicators):
//! its parameters as sent, and as validated. Errors about the client or its redirect URI are
//! shown to the person, and so are a self-registered client's; the others go back to the
//! client (section 4.1.2.1).

use serde::{Deserialize, Serialize};

use super::client;
use super::documents::Asker;
use super::error::{OAuthCode, OAuthError};
use super::redirect_uri;
use super::resource;
use super::secret;
use super::server::AuthorizationServer;
use crate::store::{Client, StoreError};

/// The one scope: save, load and forget the person's memories.
pub const SCOPE: &str = "memory";

/// The parameters of an authorization request, as sent; the consent form sends them back.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AuthorizationParams {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub state: Option<String>,
    pub scope: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub resource: Option<String>,
}

/// A request that can be answered: its client and redirect URI are known good.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    pub client: Client,
    pub redirect_uri: String,
    pub redirect_uri_given: bool,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub resource: Option<String>,
    pub audience: String,
}

/// Why a request cannot be answered.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Shown to the person: the client or redirect URI cannot be trusted with a redirect.
    #[error("{0}")]
    Shown(String),
    /// Sent back to the client's redirect URI.
    #[error("{}", .error)]
    Returned {
        to: Box<AuthorizationRequest>,
        error: OAuthError,
    },
    #[error(transparent)]
    Failed(OAuthError),
}

impl From<StoreError> for RequestError {
    fn from(err: StoreError) -> Self {
        Self::Failed(err.into())
    }
}

impl AuthorizationParams {
    /// Checks the request against the client it names and `server`.
    pub(super) async fn validate(
        &self,
        server: &AuthorizationServer,
        asker: &Asker<'_>,
    ) -> Result<AuthorizationRequest, RequestError> {
        let shown = |why: &str| Err(RequestError::Shown(why.to_owned()));
        let Some(client_id) = self.client_id.as_deref() else {
            return shown(
                "The link has no client_id: the app that sent you here is misconfigured.",
            );
        };
        let client = match server.documents.url(client_id) {
            // A client known by its metadata document (MCP 2025-11-25, "Client ID Metadata
            // Documents"), fetched now or kept from an earlier request.
            Some(url) => match server.documents.client(&url, asker).await {
                Ok(client) => client,
                Err(why) => {
                    return Err(RequestError::Shown(format!(
                        "The app's client metadata document cannot be used: {why}."
                    )));
                }
            },
            None => match client::find(server.store.as_ref(), client_id).await {
                Ok(Some(client)) => client,
                Ok(None) => return shown("No app with this client_id is registered here."),
                Err(err) => return Err(RequestError::Failed(err.into())),
            },
        };
        // RFC 6749, section 3.1.2.3: compared exactly, but for a loopback port; may be left out
        // only when the client has a single one.
        let redirect_uri = match (&self.redirect_uri, client.redirect_uris.as_slice()) {
            (Some(uri), registered)
                if registered
                    .iter()
                    .any(|known| redirect_uri::matches(known, uri)) =>
            {
                uri.clone()
            }
            (Some(_), _) => {
                return shown(
                    "The redirect_uri is not one registered for this app, so this server will not send you there.",
                );
            }
            (None, [only]) => only.clone(),
            (None, _) => return shown("The link has no redirect_uri, and the app has several."),
        };
        let mut request = AuthorizationRequest {
            redirect_uri_given: self.redirect_uri.is_some(),
            redirect_uri,
            state: self.state.clone(),
            code_challenge: self.code_challenge.clone(),
            resource: self.resource.clone(),
            audience: String::new(),
            client,
        };
        match self.returned_error(&request, &server.issuer) {
            Ok(audience) => {
                request.audience = audience;
                Ok(request)
            }
            // RFC 9700, section 4.11.2: anyone can register a client (or publish a document), so
            // redirecting its errors before the person has done anything would make this server
            // an open redirector to the client's URI. The operator's clients are trusted with it.
            Err(error) if request.client.registered => Err(RequestError::Shown(format!(
                "The app sent a request this server cannot answer: {error}."
            ))),
            Err(error) => Err(RequestError::Returned {
                to: Box::new(request),
                error,
            }),
        }
    }

    /// The token audience, or the error the client is sent.
    fn returned_error(
        &self,
        request: &AuthorizationRequest,
        issuer: &str,
    ) -> Result<String, OAuthError> {
        let refused = |code, why: String| OAuthError::refused(code, why);
        if self.response_type.as_deref() != Some("code") {
            return Err(refused(
                OAuthCode::UnsupportedResponseType,
                "response_type must be code".into(),
            ));
        }
        // RFC 7636, section 4.3; OAuth 2.1 drops `plain`.
        match (
            self.code_challenge.as_deref(),
            self.code_challenge_method.as_deref(),
        ) {
            (Some(challenge), Some("S256")) if secret::is_s256_challenge(challenge) => {}
            (Some(_), Some("S256")) => {
                return Err(refused(
                    OAuthCode::InvalidRequest,
                    "code_challenge must be 43 base64url characters (RFC 7636, S256)".into(),
                ));
            }
            (Some(_), _) => {
                return Err(refused(
                    OAuthCode::InvalidRequest,
                    "code_challenge_method must be S256".into(),
                ));
            }
            // A confidential client authenticates at the token endpoint instead (as GPT
            // Actions do); a public client has only PKCE to prove it is the same client.
            (None, _) if request.client.secret_digest.is_none() => {
                return Err(refused(
                    OAuthCode::InvalidRequest,
                    "this client is public: send a PKCE code_challenge with code_challenge_method S256".into(),
                ));
            }
            (None, _) => {}
        }
        let scope = self.scope.as_deref().unwrap_or(SCOPE);
        if scope
            .split(' ')
            .filter(|s| !s.is_empty())
            .any(|s| s != SCOPE)
        {
            return Err(refused(
                OAuthCode::InvalidScope,
                format!("the only scope is {SCOPE:?}"),
            ));
        }
        resource::audience(issuer, self.resource.as_deref()).ok_or_else(|| {
            refused(
                OAuthCode::InvalidTarget,
                format!(
                    "resource must be {issuer} or {issuer}{}",
                    resource::MCP_PATH
                ),
            )
        })
    }
}
