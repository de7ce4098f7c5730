//! The authorization endpoint's outcomes: a person signed in and agreed, so the client gets a
//! code (RFC 6749, section 4.1.2), or it gets an error; and sign-in at the OpenID Provider,
//! begun and finished.

use chrono::Utc;
use url::Url;

use super::documents::Asker;
use super::error::{OAuthCode, OAuthError, refuse};
use super::issued::{CodeBody, SignInBody};
use super::oidc::Upstream;
use super::request::{AuthorizationParams, AuthorizationRequest, RequestError, SCOPE};
use super::secret::{self, SecretKind};
use super::server::{AuthorizationServer, SIGN_IN_LIFETIME, SIGNED_IN_WITH_TOKEN, after};
use super::token::read_body;
use crate::credentials::TokenSignIn;
use crate::domain::Namespace;
use crate::store::{Credential, CredentialKind, Grant, Redeemed};

/// Whose memory a grant opens, once the person proved it.
pub struct SignedIn {
    pub namespace: Namespace,
    /// `token`, or the OpenID Provider's issuer.
    pub with: String,
    /// With an API token: its digest, kept so that the grant ends with the token.
    pub token_digest: Option<String>,
}

/// Where a person's sign-in at the OpenID Provider leads.
pub enum Finished {
    /// Back to the client, with a code or an error.
    Redirect(String),
    /// Into the memory page, signed in.
    Page(SignedIn),
    /// Nowhere: the sign-in is unknown or expired, so there is no client to go back to.
    Shown(String),
}

impl AuthorizationServer {
    /// The authorization request `params` make, checked; a client metadata document it names
    /// is fetched, if it must be, as `asker` may.
    pub async fn request(
        &self,
        params: &AuthorizationParams,
        asker: &Asker<'_>,
    ) -> Result<AuthorizationRequest, RequestError> {
        self.limit.within(params.validate(self, asker)).await
    }

    /// Who a person is who typed a known API token, if token sign-in is on.
    pub fn sign_in_with_token(&self, signed_in: TokenSignIn) -> Option<SignedIn> {
        if !self.sign_in.by_token {
            return None;
        }
        Some(SignedIn {
            namespace: signed_in.namespace,
            with: SIGNED_IN_WITH_TOKEN.into(),
            token_digest: Some(signed_in.digest),
        })
    }

    /// The person agreed: a grant for their namespace, and the client's redirect with its code
    /// (and `iss`, RFC 9207).
    pub async fn approve(
        &self,
        request: &AuthorizationRequest,
        who: SignedIn,
    ) -> Result<String, OAuthError> {
        self.limit
            .within(async {
                self.pace
                    .approval(who.namespace.name())
                    .map_err(|wait| OAuthError::Throttled {
                        what: "apps approved for this memory",
                        wait,
                    })?;
                let now = Utc::now();
                let grant = Grant {
                    id: uuid::Uuid::new_v4().simple().to_string(),
                    client_id: request.client.id.clone(),
                    client_name: Some(request.client.name.clone()),
                    namespace: who.namespace.name().to_owned(),
                    namespace_label: who.namespace.label().to_owned(),
                    signed_in_with: who.with,
                    token_digest: who.token_digest,
                    scope: SCOPE.into(),
                    resource: Some(request.audience.clone()),
                    created_at: now,
                    // Until its code is exchanged; then as long as its refresh token.
                    expires_at: after(now, self.lifetimes.code),
                };
                let code = secret::issue(SecretKind::AuthorizationCode);
                let body = CodeBody {
                    grant: grant.clone(),
                    redirect_uri: request.redirect_uri.clone(),
                    redirect_uri_given: request.redirect_uri_given,
                    code_challenge: request.code_challenge.clone(),
                };
                let credential = Credential {
                    digest: secret::digest(&code),
                    kind: CredentialKind::AuthorizationCode,
                    grant_id: Some(grant.id.clone()),
                    expires_at: grant.expires_at,
                    used: false,
                    body: serde_json::to_string(&body).expect("a code's body serializes"),
                };
                self.store.put_grant(&grant).await?;
                self.store
                    .issue(&grant.id, grant.expires_at, &[credential])
                    .await?;
                Ok(self.redirect(request, &[("code", &code)]))
            })
            .await
    }

    /// The client's redirect carrying `error` (RFC 6749, section 4.1.2.1).
    pub fn refusal(&self, request: &AuthorizationRequest, error: &OAuthError) -> String {
        let (code, description) = match error {
            OAuthError::Refused { code, description } => (code.as_str(), description.as_str()),
            _ => ("server_error", "the server could not answer; try again"),
        };
        self.redirect(
            request,
            &[("error", code), ("error_description", description)],
        )
    }

    /// The person said no.
    pub fn denial(&self, request: &AuthorizationRequest) -> String {
        let denied = OAuthError::refused(OAuthCode::AccessDenied, "the person did not agree");
        self.refusal(request, &denied)
    }

    fn redirect(&self, request: &AuthorizationRequest, pairs: &[(&str, &str)]) -> String {
        let mut url = Url::parse(&request.redirect_uri)
            .expect("a matched redirect URI parses (redirect_uri::matches)");
        {
            let mut query = url.query_pairs_mut();
            query.extend_pairs(pairs);
            if let Some(state) = &request.state {
                query.append_pair("state", state);
            }
            query.append_pair("iss", &self.issuer);
        }
        url.into()
    }

    /// Sends the person to the OpenID Provider, to answer `request` or, without one, to sign in
    /// to the memory page: its URL, and the `state` the browser must bring back (kept in a
    /// cookie, so a sign-in cannot be finished in another browser).
    pub async fn begin_sign_in(
        &self,
        request: Option<AuthorizationParams>,
    ) -> Result<(String, String), OAuthError> {
        self.limit
            .within(async {
                let Some(upstream) = &self.sign_in.upstream else {
                    return refuse(
                        OAuthCode::InvalidRequest,
                        "sign-in with an OpenID Provider is off",
                    );
                };
                let (url, pending) = upstream.begin().await?;
                let state = pending.state.clone();
                let body = SignInBody { pending, request };
                self.store
                    .put_credential(&Credential {
                        digest: secret::digest(&state),
                        kind: CredentialKind::SignIn,
                        grant_id: None,
                        expires_at: after(Utc::now(), SIGN_IN_LIFETIME),
                        used: false,
                        body: serde_json::to_string(&body).expect("a sign-in serializes"),
                    })
                    .await?;
                Ok((url, state))
            })
            .await
    }

    /// The person came back from the OpenID Provider with `state` and either a `code` or the
    /// provider's error.
    pub async fn finish_sign_in(
        &self,
        state: &str,
        code: Result<&str, &str>,
        asker: &Asker<'_>,
    ) -> Result<Finished, OAuthError> {
        self.limit
            .within(async {
                let unknown = || {
                    Finished::Shown(
                        "This sign-in is unknown or expired: start again from the app.".into(),
                    )
                };
                let (Some(upstream), Redeemed::First(credential)) = (
                    &self.sign_in.upstream,
                    self.store.redeem(&secret::digest(state), None).await?,
                ) else {
                    return Ok(unknown());
                };
                if credential.kind != CredentialKind::SignIn || credential.expires_at < Utc::now() {
                    return Ok(unknown());
                }
                let body: SignInBody = read_body(&credential)?;
                let Some(params) = &body.request else {
                    return Ok(match code {
                        Ok(code) => Finished::Page(self.person(upstream, code, &body).await?),
                        Err(_) => Finished::Shown("The sign-in was not completed.".into()),
                    });
                };
                let request = match self.request(params, asker).await {
                    Ok(request) => request,
                    Err(RequestError::Shown(why)) => return Ok(Finished::Shown(why)),
                    Err(RequestError::Returned { to, error }) => {
                        return Ok(Finished::Redirect(self.refusal(&to, &error)));
                    }
                    Err(RequestError::Failed(err)) => return Err(err),
                };
                let code = match code {
                    Ok(code) => code,
                    Err(_) => return Ok(Finished::Redirect(self.denial(&request))),
                };
                let who = self.person(upstream, code, &body).await?;
                Ok(Finished::Redirect(self.approve(&request, who).await?))
            })
            .await
    }

    /// Who the provider says the person is, for `code`: their own namespace.
    async fn person(
        &self,
        upstream: &Upstream,
        code: &str,
        body: &SignInBody,
    ) -> Result<SignedIn, OAuthError> {
        let person = upstream.finish(code, &body.pending).await?;
        Ok(SignedIn {
            namespace: person_namespace(&person.issuer, &person.subject),
            with: person.issuer,
            token_digest: None,
        })
    }
}

/// A person's own namespace: from who their provider says they are (issuer and subject, which
/// OpenID Connect Core section 2 makes stable and unique together), never from an email, which
/// can change hands. The name is a digest, so it reveals neither.
fn person_namespace(issuer: &str, subject: &str) -> Namespace {
    let digest = secret::digest(&format!("{issuer}\n{subject}"));
    Namespace::named(&format!("oidc-{}", &digest[..32])).expect("a hex digest is a valid name")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_has_one_namespace_per_issuer_and_subject() {
        let a = person_namespace("https://accounts.google.com", "123");
        assert_eq!(a, person_namespace("https://accounts.google.com", "123"));
        assert_ne!(a, person_namespace("https://accounts.google.com", "124"));
        assert_ne!(a, person_namespace("https://other.example", "123"));
        assert!(!a.name().contains("123"));
    }
}
