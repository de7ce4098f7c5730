//! The OAuth server's machine endpoints (token, revocation, registration) and its discovery
//! documents; its pages are `web`'s. They answer 404 while
//! `KIOKU_OAUTH` is off, except the protected resource's metadata, which says how to present a
//! token either way.

mod discovery;
mod register;
mod token;

use actix_web::web;

use super::fallback::method_not_allowed;
use crate::oauth::metadata::{REGISTER_PATH, REVOKE_PATH, TOKEN_PATH};

pub use discovery::RESOURCE_METADATA_PATH;

pub fn register(cfg: &mut web::ServiceConfig) {
    discovery::register(cfg);
    cfg.service(
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
