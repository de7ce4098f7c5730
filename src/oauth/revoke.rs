//! Token revocation (RFC 7009): a client gives up a token, and with it the grant.

use super::error::OAuthError;
use super::issued::TokenBody;
use super::secret::{self, SecretKind};
use super::server::AuthorizationServer;
use super::token::{BasicCredentials, read_body};

impl AuthorizationServer {
    /// Revokes the grant `token` was issued under, if it is this client's. An unknown token is
    /// no error (RFC 7009, section 2.2), so the answer says nothing about which tokens exist.
    pub async fn revoke(
        &self,
        token: &str,
        form_id: Option<&str>,
        form_secret: Option<&str>,
        basic: Option<BasicCredentials>,
    ) -> Result<(), OAuthError> {
        self.limit
            .within(async {
                let client = self
                    .authenticate_client(form_id, form_secret, basic)
                    .await?;
                let ours = SecretKind::AccessToken.matches(token)
                    || SecretKind::RefreshToken.matches(token);
                if !ours {
                    return Ok(());
                }
                let Some(credential) = self.store.credential(&secret::digest(token)).await? else {
                    return Ok(());
                };
                let body: TokenBody = read_body(&credential)?;
                // Section 2.1: revoking either token of a grant ends the grant's other tokens too.
                if body.grant.client_id == client.id {
                    self.store.revoke_grant(&body.grant.id).await?;
                }
                Ok(())
            })
            .await
    }
}
