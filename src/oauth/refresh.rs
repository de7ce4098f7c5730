//! The refresh grant (RFC 6749, section 6): a refresh token exchanged for a new pair, once
//! (OAuth 2.1, section 4.3.1). A rotated token is kept only for the few seconds of a client's
//! own race ([`rotation`]); a replay after that is caught by the grant its token names, so a
//! grant's records do not grow however often it is refreshed.

use chrono::Utc;

use super::error::{OAuthCode, OAuthError, refuse};
use super::issued::TokenBody;
use super::rotation;
use super::secret;
use super::server::{AuthorizationServer, SIGNED_OUT, after};
use super::token::{TokenParams, TokenResponse, read_body};
use crate::store::{Client, CredentialKind, Grant, Redeemed};

const REPLAYED: &str = "this refresh token was used already; the grant is revoked";

impl AuthorizationServer {
    pub(super) async fn refresh(
        &self,
        client: &Client,
        params: &TokenParams,
    ) -> Result<TokenResponse, OAuthError> {
        let Some(token) = params.refresh_token.as_deref() else {
            return refuse(OAuthCode::InvalidRequest, "refresh_token is missing");
        };
        let invalid = |why: &str| refuse(OAuthCode::InvalidGrant, why.to_owned());
        let digest = secret::digest(token);
        // Checked before it is redeemed, so another client cannot spend it.
        let Some(credential) = self.store.credential(&digest).await? else {
            return self.unrecorded(client, token).await;
        };
        if credential.kind != CredentialKind::RefreshToken {
            return invalid("this is not a refresh token");
        }
        let body: TokenBody = read_body(&credential)?;
        if body.grant.client_id != client.id {
            return invalid("this refresh token was issued to another client");
        }
        // Used already: its expiry is then the end of the race window, not the grant's.
        if credential.used {
            return self.presented_again(token, &body.grant).await;
        }
        if credential.expires_at < Utc::now() {
            return invalid("this refresh token has expired: authorize again");
        }
        if !self.still_signed_in(&body.grant) {
            return invalid(SIGNED_OUT);
        }
        // Before it is redeemed, so that the client may present it again after the wait.
        self.pace
            .refresh(&body.grant.id)
            .map_err(|wait| OAuthError::Throttled {
                what: "refreshes of this grant",
                wait,
            })?;
        let race_ends = after(Utc::now(), self.lifetimes.refresh_race);
        match self.store.redeem(&digest, Some(race_ends)).await? {
            Redeemed::First(_) => {}
            Redeemed::Again(_) => return self.presented_again(token, &body.grant).await,
            Redeemed::Unknown => return invalid("this refresh token is unknown or revoked"),
        }
        let audience = match params.resource.as_deref() {
            None => body.audience,
            Some(_) => self.token_audience(&body.grant, params.resource.as_deref())?,
        };
        self.issue_tokens(body.grant, audience, Some(token)).await
    }

    /// A rotated refresh token presented again. RFC 9700, section 4.14.2: it leaked, and the
    /// whole grant goes; unless its rotation is seconds old, when it is the client's own race
    /// and gets what the rotation gave.
    async fn presented_again(
        &self,
        token: &str,
        grant: &Grant,
    ) -> Result<TokenResponse, OAuthError> {
        if !self.lifetimes.refresh_race.is_zero()
            && let Some(pair) = rotation::kept(self.store.as_ref(), token).await?
        {
            return Ok(TokenResponse::new(pair, Utc::now()));
        }
        self.store.revoke_grant(&grant.id).await?;
        refuse(OAuthCode::InvalidGrant, REPLAYED)
    }

    /// A refresh token with no record: unknown, or rotated long enough ago that its record is
    /// gone. Then the grant it names, if still current and the client's, holds a newer one, so
    /// this one was presented again after its rotation: the grant goes. Otherwise it is
    /// unknown, which the token endpoint counts against the client's address.
    async fn unrecorded(&self, client: &Client, token: &str) -> Result<TokenResponse, OAuthError> {
        let Some(grant_id) = secret::refresh_grant(token) else {
            return Err(OAuthError::UnknownRefreshToken);
        };
        match self.store.grant(grant_id).await? {
            Some(grant) if grant.client_id == client.id && grant.expires_at > Utc::now() => {
                self.store.revoke_grant(&grant.id).await?;
                refuse(OAuthCode::InvalidGrant, REPLAYED)
            }
            _ => Err(OAuthError::UnknownRefreshToken),
        }
    }
}
