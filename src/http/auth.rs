//! The extractors that authenticate: a handler that takes [`Authenticated`] or [`Admin`] runs
//! only for a request with the right bearer token.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, http::header, web};

use super::error::ApiError;
use crate::credentials::{AdminTokens, AuthError, Tokens};
use crate::domain::Namespace;
use crate::rate_limit::RateLimit;

/// The namespace of an authenticated request, within its rate limit.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Namespace);

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let tokens = req
            .app_data::<web::Data<Tokens>>()
            .expect("Tokens are registered as app data");
        let rate_limit = req
            .app_data::<web::Data<RateLimit>>()
            .expect("the rate limit is registered as app data");
        let result = bearer_token(req)
            .ok_or(AuthError::MissingCredentials)
            .and_then(|token| tokens.authenticate(token).ok_or(AuthError::UnknownToken))
            .map_err(ApiError::from)
            .and_then(|ns| {
                // The request log reads it back.
                req.extensions_mut().insert(ns.clone());
                // Every authenticated request counts against its namespace.
                rate_limit
                    .check(ns)
                    .map_err(|wait| ApiError::RateLimited(wait.as_secs() + 1))?;
                Ok(Self(ns.clone()))
            });
        ready(result)
    }
}

/// A request that presented an admin token.
pub struct Admin;

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let admins = req
            .app_data::<web::Data<AdminTokens>>()
            .expect("AdminTokens are registered as app data");
        let result = match bearer_token(req) {
            None => Err(AuthError::MissingCredentials),
            Some(token) if admins.admits(token) => Ok(Self),
            Some(_) => Err(AuthError::NotAdmin),
        };
        ready(result.map_err(ApiError::from))
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
