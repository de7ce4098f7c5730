//! The extractors that authenticate: a handler that takes [`Authenticated`] or [`Admin`] runs
//! only for a request with the right bearer token, from an address that has not failed to
//! sign in too often.

use std::future::{Ready, ready};
use std::net::IpAddr;

use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, http::header, web};
use futures_util::future::LocalBoxFuture;

use super::error::{ApiError, retry_after_secs};
use super::state::AppState;
use crate::credentials::{AdminTokens, AuthError, BareNamed, Tokens};
use crate::domain::Namespace;
use crate::oauth::{Access, Door, MCP_PATH};
use crate::rate_limit::RateLimit;
use crate::throttle;

/// The namespace of an authenticated request, within its rate limit: the request presented an
/// API token, or an access token of this server's OAuth grants that is for where it arrived.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Namespace);

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let app = state(&req);
            let client = admitted(app, &req)?;
            let (door, counted_at) = if req.path().starts_with(MCP_PATH) {
                (Door::Mcp, throttle::Door::Mcp)
            } else {
                (Door::Api, throttle::Door::Api)
            };
            // A token presented and not known counts; no token at all is no guess, nor is one
            // issued here that expired.
            let ns = match namespace(&req, app, door).await {
                Ok(ns) => ns,
                Err(
                    err @ ApiError::Auth(
                        AuthError::UnknownToken
                        | AuthError::InvalidAccessToken { issued: false, .. },
                    ),
                ) => {
                    app.failed_sign_ins
                        .failed(client, counted_at)
                        .map_err(|wait| ApiError::SignInThrottled(retry_after_secs(wait)))?;
                    return Err(err);
                }
                Err(err) => return Err(err),
            };
            // The request log reads it back.
            req.extensions_mut().insert(ns.clone());
            let rate_limit = req
                .app_data::<web::Data<RateLimit>>()
                .expect("the rate limit is registered as app data");
            // Every authenticated request counts against its namespace.
            rate_limit
                .check(&ns)
                .map_err(|wait| ApiError::RateLimited(wait.as_secs() + 1))?;
            Ok(Self(ns))
        })
    }
}

fn state(req: &HttpRequest) -> &AppState {
    req.app_data::<web::Data<AppState>>()
        .expect("the state is registered as app data")
}

/// The request's client address, unless it failed to sign in too often of late where weak
/// tokens are carried over: then the request is refused before its credentials are looked at.
fn admitted(app: &AppState, req: &HttpRequest) -> Result<IpAddr, ApiError> {
    let client = app.client_address(req);
    app.failed_sign_ins
        .admit(client)
        .map_err(|wait| ApiError::SignInThrottled(retry_after_secs(wait)))?;
    Ok(client)
}

/// The namespace the request's bearer token opens. An API token is checked first, and costs no
/// store read.
async fn namespace(req: &HttpRequest, app: &AppState, door: Door) -> Result<Namespace, ApiError> {
    let token = bearer_token(req).ok_or(AuthError::MissingCredentials)?;
    let tokens = req
        .app_data::<web::Data<Tokens>>()
        .expect("Tokens are registered as app data");
    if let Some(ns) = tokens.authenticate(token) {
        return Ok(ns.clone());
    }
    let Some(oauth) = &app.oauth else {
        return Err(AuthError::UnknownToken.into());
    };
    let refused = |description, issued| AuthError::InvalidAccessToken {
        description,
        issued,
    };
    match oauth.authenticate(token, door).await {
        Ok(Access::Granted(ns)) => Ok(ns),
        Ok(Access::NotOurs) => Err(AuthError::UnknownToken.into()),
        Ok(Access::Unknown) => {
            Err(refused("this access token is unknown or revoked", false).into())
        }
        Ok(Access::Unusable(description)) => Err(refused(description, true).into()),
        Err(err) => Err(ApiError::Unavailable(err.into())),
    }
}

/// A request that presented an admin token, from `client`, whom the audit line names.
pub struct Admin {
    pub client: IpAddr,
    tokens: web::Data<Tokens>,
}

impl Admin {
    /// The namespace an admin URL names: a bare token's by its label, any other by its name.
    /// A bare token itself is refused, so that operators learn not to put it in URLs.
    pub fn namespace(&self, requested: &str) -> Result<Namespace, ApiError> {
        match self.tokens.bare_named(requested) {
            Some(BareNamed::Label(ns)) => Ok(ns.clone()),
            Some(BareNamed::Token(ns)) => Err(ApiError::TokenInUrl(ns.label().to_owned())),
            None => Ok(Namespace::requested(requested)?),
        }
    }

    /// What to name the stored namespace `name` by in admin URLs.
    pub fn label(&self, name: &str) -> String {
        match self.tokens.bare_named(name) {
            Some(BareNamed::Token(ns)) => ns.label().to_owned(),
            _ => name.to_owned(),
        }
    }
}

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let app = state(req);
        let admins = req
            .app_data::<web::Data<AdminTokens>>()
            .expect("AdminTokens are registered as app data");
        let tokens = req
            .app_data::<web::Data<Tokens>>()
            .expect("Tokens are registered as app data");
        let result = admitted(app, req).and_then(|client| match bearer_token(req) {
            None => Err(AuthError::MissingCredentials.into()),
            Some(token) if admins.admits(token) => Ok(Self {
                client,
                tokens: tokens.clone(),
            }),
            Some(_) => match app.failed_sign_ins.failed(client, throttle::Door::Admin) {
                Ok(()) => Err(AuthError::NotAdmin.into()),
                Err(wait) => Err(ApiError::SignInThrottled(retry_after_secs(wait))),
            },
        });
        ready(result)
    }
}

/// The credentials of `Authorization: Bearer <token>`; the scheme is case-insensitive
/// (RFC 9110, section 11.1).
fn bearer_token(req: &HttpRequest) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}
