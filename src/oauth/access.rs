//! The resource server's side: an access token presented to the API or to `/mcp` names the
//! namespace of its grant, if it is current and for that door (RFC 6750, RFC 8707).

use chrono::Utc;

use super::error::OAuthError;
use super::issued::TokenBody;
use super::resource;
use super::secret::{self, SecretKind};
use super::server::{AuthorizationServer, SIGNED_OUT};
use super::token::read_body;
use crate::domain::{Caller, Door, Namespace, Writer};
use crate::store::{CredentialKind, StoreError};

/// What an access token presented at a door comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// The token opens this namespace, for the app of its grant.
    Granted(Caller),
    /// Not shaped as this server's access tokens: not looked up.
    NotOurs,
    /// Shaped as one, but unknown here or revoked: a guess, for all anyone can tell.
    Unknown,
    /// Issued here, but expired or for another resource: its holder once signed in, so it is
    /// no guess. Says which.
    Unusable(&'static str),
}

impl AuthorizationServer {
    /// What `bearer` comes to at `door` (see [`Access`]).
    pub async fn authenticate(&self, bearer: &str, door: Door) -> Result<Access, OAuthError> {
        self.limit.within(async {
            if !SecretKind::AccessToken.matches(bearer) {
                return Ok(Access::NotOurs);
            }
            let credential = self.store.credential(&secret::digest(bearer)).await?;
            let Some(credential) = credential.filter(|c| c.kind == CredentialKind::AccessToken) else {
                // Signed here: its record went with its expiry or its grant, so it is no guess.
                if secret::issued_here(bearer, &self.access_key) {
                    return Ok(Access::Unusable(
                        "this access token has expired or was revoked: refresh it, or sign in again",
                    ));
                }
                return Ok(Access::Unknown);
            };
            if credential.expires_at < Utc::now() {
                return Ok(Access::Unusable(
                    "this access token has expired: refresh it",
                ));
            }
            let body: TokenBody = read_body(&credential)?;
            if !resource::covers(&self.issuer, &body.audience, door) {
                return Ok(Access::Unusable(
                    "this access token was issued for another resource",
                ));
            }
            if !self.still_signed_in(&body.grant) {
                return Ok(Access::Unusable(SIGNED_OUT));
            }
            let namespace = Namespace::labelled(&body.grant.namespace, &body.grant.namespace_label)
                .map_err(|e| StoreError::failed("a grant's namespace is invalid", e))?;
            let grant = body.grant;
            let writer = Writer::App {
                name: grant.client_name.unwrap_or_else(|| grant.client_id.clone()),
                client_id: grant.client_id,
            };
            Ok(Access::Granted(Caller { namespace, writer }))
        })
        .await
    }
}
