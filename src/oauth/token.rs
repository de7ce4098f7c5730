//! The token endpoint (RFC 6749, section 3.2): a code or a refresh token exchanged for an
//! access token and a new refresh token, by an authenticated client (section 2.3).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::client;
use super::error::{OAuthCode, OAuthError, refuse};
use super::issued::{CodeBody, TokenBody};
use super::request::SCOPE;
use super::resource;
use super::rotation;
use super::secret;
use super::server::{AuthorizationServer, SIGNED_OUT, after};
use crate::store::{Client, Credential, CredentialKind, Grant, Redeemed, StoreError};

/// The form a token request sends.
#[derive(Debug, Default, Deserialize)]
pub struct TokenParams {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub redirect_uri: Option<String>,
    pub code_verifier: Option<String>,
    pub refresh_token: Option<String>,
    pub resource: Option<String>,
    pub scope: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
}

/// The client's id and secret from an `Authorization: Basic` header (RFC 6749, section 2.3.1).
pub struct BasicCredentials {
    pub id: String,
    pub secret: String,
}

/// A successful answer (RFC 6749, section 5.1).
#[derive(Debug, Serialize)]
pub struct TokenResponse {
    access_token: String,
    token_type: &'static str,
    expires_in: u64,
    refresh_token: String,
    scope: &'static str,
}

impl TokenResponse {
    /// The answer carrying `pair`, as of `now`.
    pub(super) fn new(pair: rotation::Pair, now: DateTime<Utc>) -> Self {
        let left = (pair.access_expires_at - now).num_seconds().max(0);
        Self {
            access_token: pair.access_token,
            token_type: "Bearer",
            expires_in: left.unsigned_abs(),
            refresh_token: pair.refresh_token,
            scope: SCOPE,
        }
    }
}

impl AuthorizationServer {
    /// Answers a token request from the client that `basic` or the form authenticates.
    pub async fn token(
        &self,
        params: TokenParams,
        basic: Option<BasicCredentials>,
    ) -> Result<TokenResponse, OAuthError> {
        self.limit.within(async {
            let client = self
                .authenticate_client(
                    params.client_id.as_deref(),
                    params.client_secret.as_deref(),
                    basic,
                )
                .await?;
            if params
                .scope
                .as_deref()
                .is_some_and(|scope| scope.split(' ').any(|s| !s.is_empty() && s != SCOPE))
            {
                return refuse(
                    OAuthCode::InvalidScope,
                    format!("the only scope is {SCOPE:?}"),
                );
            }
            match params.grant_type.as_deref() {
                Some("authorization_code") => self.exchange_code(&client, &params).await,
                Some("refresh_token") => self.refresh(&client, &params).await,
                Some(other) => refuse(
                    OAuthCode::UnsupportedGrantType,
                    format!(
                        "grant_type {other:?} is not supported: use authorization_code or refresh_token"
                    ),
                ),
                None => refuse(OAuthCode::InvalidRequest, "grant_type is missing"),
            }
        })
        .await
    }

    /// The client a request comes from: a confidential one proves it with its secret, a
    /// public one only names itself (RFC 6749, section 2.3; one method at a time).
    pub async fn authenticate_client(
        &self,
        form_id: Option<&str>,
        form_secret: Option<&str>,
        basic: Option<BasicCredentials>,
    ) -> Result<Client, OAuthError> {
        if basic.is_some() && (form_secret.is_some()) {
            return refuse(
                OAuthCode::InvalidRequest,
                "send the client secret in the Authorization header or in the form, not both",
            );
        }
        let (id, presented) = match &basic {
            Some(basic) => {
                if form_id.is_some_and(|id| id != basic.id) {
                    return refuse(
                        OAuthCode::InvalidRequest,
                        "client_id differs from the Authorization header's",
                    );
                }
                (Some(basic.id.as_str()), Some(basic.secret.as_str()))
            }
            None => (form_id, form_secret),
        };
        let unknown = || {
            refuse(
                OAuthCode::InvalidClient,
                "the client is unknown or its secret is wrong",
            )
        };
        let Some(id) = id else {
            return refuse(
                OAuthCode::InvalidClient,
                "name the client: client_id, or HTTP Basic authentication",
            );
        };
        let client = match self.documents.public_client(id) {
            Some(client) => client,
            None => match client::find(self.store.as_ref(), id).await? {
                Some(client) => client,
                None => return unknown(),
            },
        };
        let authenticated = match (&client.secret_digest, presented) {
            (Some(kept), Some(presented)) => secret::matches_digest(presented, kept),
            (None, None) => true,
            _ => false,
        };
        if authenticated { Ok(client) } else { unknown() }
    }

    async fn exchange_code(
        &self,
        client: &Client,
        params: &TokenParams,
    ) -> Result<TokenResponse, OAuthError> {
        let Some(code) = params.code.as_deref() else {
            return refuse(OAuthCode::InvalidRequest, "code is missing");
        };
        let invalid = |why: &str| refuse(OAuthCode::InvalidGrant, why.to_owned());
        let credential = match self.store.redeem(&secret::digest(code), None).await? {
            Redeemed::First(credential) => credential,
            // RFC 6749, section 4.1.2: a code used twice revokes what it was exchanged for.
            Redeemed::Again(credential) => {
                if let Some(grant) = &credential.grant_id {
                    self.store.revoke_grant(grant).await?;
                }
                return invalid("this code was used already; the tokens issued for it are revoked");
            }
            Redeemed::Unknown => return invalid("this code is unknown"),
        };
        if credential.kind != CredentialKind::AuthorizationCode {
            return invalid("this is not an authorization code");
        }
        if credential.expires_at < Utc::now() {
            return invalid("this code has expired: authorize again");
        }
        let body: CodeBody = read_body(&credential)?;
        if body.grant.client_id != client.id {
            return invalid("this code was issued to another client");
        }
        if !self.still_signed_in(&body.grant) {
            return invalid(SIGNED_OUT);
        }
        // RFC 6749, section 4.1.3.
        let redirect_matches = match &params.redirect_uri {
            Some(uri) => *uri == body.redirect_uri,
            None => !body.redirect_uri_given,
        };
        if !redirect_matches {
            return invalid("redirect_uri differs from the authorization request's");
        }
        // RFC 7636, section 4.6; and OAuth 2.1, section 4.1.3: a verifier without a challenge
        // is refused too, so PKCE cannot be stripped from a request.
        match (&body.code_challenge, params.code_verifier.as_deref()) {
            (Some(challenge), Some(verifier)) if secret::verifies_s256(verifier, challenge) => {}
            (None, None) => {}
            (Some(_), None) => return invalid("code_verifier is missing"),
            (None, Some(_)) => return invalid("this code was issued without a code_challenge"),
            (Some(_), Some(_)) => {
                return invalid("code_verifier does not match the code_challenge");
            }
        }
        let audience = self.token_audience(&body.grant, params.resource.as_deref())?;
        // Before the tokens: a client kept without them is harmless, the reverse is not.
        client::keep(self.store.as_ref(), client).await?;
        self.issue_tokens(body.grant, audience, None).await
    }

    /// The audience of the tokens: the resource the token request names (RFC 8707, section
    /// 2.2), which must be the authorized one when the authorization request named one.
    pub(super) fn token_audience(
        &self,
        grant: &Grant,
        requested: Option<&str>,
    ) -> Result<String, OAuthError> {
        let granted = grant
            .resource
            .clone()
            .unwrap_or_else(|| self.issuer.clone());
        let Some(requested) = requested else {
            return Ok(granted);
        };
        match resource::audience(&self.issuer, Some(requested)) {
            Some(audience) if audience == granted || granted == self.issuer => Ok(audience),
            _ => refuse(
                OAuthCode::InvalidTarget,
                format!("resource must be the one authorized: {granted}"),
            ),
        }
    }

    /// A new access token and refresh token under `grant`, which lasts as long as the refresh
    /// token from now; nothing if the grant was revoked meanwhile. For a refresh, the pair is
    /// kept for a client's race on the `rotated` refresh token.
    pub(super) async fn issue_tokens(
        &self,
        grant: Grant,
        audience: String,
        rotated: Option<&str>,
    ) -> Result<TokenResponse, OAuthError> {
        let now = Utc::now();
        let access = secret::issue_access(&self.access_key);
        let refresh = secret::issue_refresh(&grant.id);
        let grant_expires = after(now, self.lifetimes.refresh_token);
        let record = |value: &str, kind, expires_at| Credential {
            digest: secret::digest(value),
            kind,
            grant_id: Some(grant.id.clone()),
            expires_at,
            used: false,
            body: serde_json::to_string(&TokenBody {
                grant: grant.clone(),
                audience: audience.clone(),
            })
            .expect("a token's body serializes"),
        };
        let pair = rotation::Pair {
            access_expires_at: after(now, self.lifetimes.access_token),
            access_token: access,
            refresh_token: refresh,
        };
        let mut credentials = vec![
            record(
                &pair.access_token,
                CredentialKind::AccessToken,
                pair.access_expires_at,
            ),
            record(
                &pair.refresh_token,
                CredentialKind::RefreshToken,
                grant_expires,
            ),
        ];
        if let Some(rotated) = rotated
            && !self.lifetimes.refresh_race.is_zero()
        {
            let until = after(now, self.lifetimes.refresh_race);
            credentials.push(rotation::record(rotated, &pair, until));
        }
        if !self
            .store
            .issue(&grant.id, grant_expires, &credentials)
            .await?
        {
            return refuse(OAuthCode::InvalidGrant, "this grant was revoked");
        }
        Ok(TokenResponse::new(pair, now))
    }
}

/// What a stored credential stands for.
pub(super) fn read_body<T: serde::de::DeserializeOwned>(
    credential: &Credential,
) -> Result<T, OAuthError> {
    serde_json::from_str(&credential.body)
        .map_err(|e| StoreError::failed("a stored credential is unreadable", e).into())
}
