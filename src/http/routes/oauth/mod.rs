//! The OAuth server's endpoints and its discovery documents. They answer 404 while
//! `KIOKU_OAUTH` is off, except the protected resource's metadata, which says how to present a
//! token either way.

mod authorize;
mod callback;
mod discovery;
mod register;
mod token;

use std::future::{Ready, ready};
use std::sync::Arc;

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};

use super::fallback::method_not_allowed;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::oauth::AuthorizationServer;
use crate::oauth::metadata::{
    AUTHORIZE_PATH, CALLBACK_PATH, REGISTER_PATH, REVOKE_PATH, TOKEN_PATH,
};

pub use discovery::RESOURCE_METADATA_PATH;

pub fn register(cfg: &mut web::ServiceConfig) {
    discovery::register(cfg);
    cfg.service(
        web::resource(AUTHORIZE_PATH)
            .route(web::get().to(authorize::show))
            .route(web::post().to(authorize::decide))
            .default_service(method_not_allowed("GET, POST")),
    )
    .service(
        web::resource(CALLBACK_PATH)
            .route(web::get().to(callback::callback))
            .default_service(method_not_allowed("GET")),
    )
    .service(
        web::resource(TOKEN_PATH)
            .route(web::post().to(token::token))
            .default_service(method_not_allowed("POST")),
    )
    .service(
        web::resource(REVOKE_PATH)
            .route(web::post().to(token::revoke))
            .default_service(method_not_allowed("POST")),
    )
    .service(
        web::resource(REGISTER_PATH)
            .route(web::post().to(register::register))
            .default_service(method_not_allowed("POST")),
    );
}

/// The OAuth server, for a handler that runs only when it is on.
pub struct OAuthOn(pub Arc<AuthorizationServer>);

impl FromRequest for OAuthOn {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let oauth = AppState::of(req).and_then(|app| {
            let oauth = app.oauth.clone().ok_or(ApiError::NotFound)?;
            Ok(Self(oauth))
        });
        ready(oauth)
    }
}
