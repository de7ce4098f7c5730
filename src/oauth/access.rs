//! The resource server's side: an access token presented to the API or to `/mcp` names the
//! namespace of its grant, if it is current and for that door (RFC 6750, RFC 8707).

use chrono::Utc;

use super::error::{ErrorCode, OAuthError, refuse};
use super::issued::TokenBody;
use super::resource::{self, Door};
use super::secret::{self, SecretKind};
use super::server::AuthorizationServer;
use super::token::read_body;
use crate::domain::Namespace;
use crate::store::{CredentialKind, StoreError};

impl AuthorizationServer {
    /// The namespace `bearer` opens at `door`: `Ok(None)` when it is not an access token of
    /// this server at all (then it is not looked up), `invalid_token` when it is expired,
    /// revoked or for another resource.
    pub async fn authenticate(
        &self,
        bearer: &str,
        door: Door,
    ) -> Result<Option<Namespace>, OAuthError> {
        if !SecretKind::AccessToken.matches(bearer) {
            return Ok(None);
        }
        let credential = self.store.credential(&secret::digest(bearer)).await?;
        let Some(credential) = credential.filter(|c| c.kind == CredentialKind::AccessToken) else {
            return refuse(
                ErrorCode::InvalidToken,
                "this access token is unknown or revoked",
            );
        };
        if credential.expires_at < Utc::now() {
            return refuse(
                ErrorCode::InvalidToken,
                "this access token has expired: refresh it",
            );
        }
        let body: TokenBody = read_body(&credential)?;
        if !resource::covers(&self.issuer, &body.audience, door) {
            return refuse(
                ErrorCode::InvalidToken,
                "this access token was issued for another resource",
            );
        }
        let namespace = Namespace::labelled(&body.grant.namespace, &body.grant.namespace_label)
            .map_err(|e| StoreError::failed("a grant's namespace is invalid", e))?;
        Ok(Some(namespace))
    }
}
