//! The extractors that authenticate: a handler that takes [`Authenticated`] or [`Admin`] runs
//! only for a request the gate lets in. They read the request's address and bearer token, and
//! nothing else: what is checked, counted and limited is the gate's.

use std::net::IpAddr;

use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, http::header, web};
use futures_util::future::LocalBoxFuture;

use super::error::ApiError;
use super::state::AppState;
use crate::credentials::{BareNamed, Tokens};
use crate::domain::{Caller, Door, Namespace};

/// A call to the GPT Action's API, let in by the gate: the request presented an API token, or
/// an access token of this server's OAuth grants for the API, and its namespace is within its
/// rate limit.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Caller);

impl FromRequest for Authenticated {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let app = AppState::of(&req)?;
            Ok(Self(let_in(&req, &app, Door::Api).await?))
        })
    }
}

/// The caller at `door`, as the gate decides; the request log reads its namespace back.
pub async fn let_in(req: &HttpRequest, app: &AppState, door: Door) -> Result<Caller, ApiError> {
    let client = app.site.client_address(req);
    let caller = app.gate.call(client, bearer_token(req), door).await?;
    req.extensions_mut().insert(caller.namespace.clone());
    Ok(caller)
}

/// A request that presented an admin token, from `client`, whom the audit line names.
pub struct Admin {
    pub client: IpAddr,
    app: web::Data<AppState>,
}

impl Admin {
    /// The namespace an admin URL names: a bare token's by its label, any other by its name.
    /// A bare token itself is refused, so that operators learn not to put it in URLs.
    pub fn namespace(&self, requested: &str) -> Result<Namespace, ApiError> {
        match self.tokens().bare_named(requested) {
            Some(BareNamed::Label(ns)) => Ok(ns.clone()),
            Some(BareNamed::Token(ns)) => Err(ApiError::TokenInUrl(ns.label().to_owned())),
            None => Ok(Namespace::requested(requested)?),
        }
    }

    /// What to name the stored namespace `name` by in admin URLs.
    pub fn label(&self, name: &str) -> String {
        match self.tokens().bare_named(name) {
            Some(BareNamed::Token(ns)) => ns.label().to_owned(),
            _ => name.to_owned(),
        }
    }

    fn tokens(&self) -> &Tokens {
        self.app.gate.tokens()
    }
}

impl FromRequest for Admin {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let app = AppState::of(&req)?;
            let client = app.site.client_address(&req);
            app.gate
                .admin(client, bearer_token(&req))
                .map_err(ApiError::from)?;
            Ok(Self { client, app })
        })
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
