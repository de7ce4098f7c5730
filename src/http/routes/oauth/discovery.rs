//! What a client discovers: the authorization server's metadata (RFC 8414), and the protected
//! resource's (RFC 9728), for the API and for `/mcp`.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::http::state::AppState;
use crate::http::state::OAuthOn;
use crate::oauth::metadata;

/// Where a client finds how to get a token for `/mcp` (RFC 9728, section 3).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/.well-known/oauth-authorization-server",
        web::get().to(authorization_server),
    )
    .route(
        "/.well-known/oauth-protected-resource",
        web::get().to(protected_resource),
    )
    .route(RESOURCE_METADATA_PATH, web::get().to(protected_resource));
}

async fn authorization_server(OAuthOn(oauth): OAuthOn) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "max-age=3600"))
        .json(metadata::authorization_server(oauth.issuer()))
}

/// The resource is the URL the metadata was asked for without the well-known prefix (section
/// 3.3), on the issuer's URL when OAuth is on.
async fn protected_resource(req: HttpRequest, app: web::Data<AppState>) -> HttpResponse {
    let issuer = app.oauth.as_ref().map(|oauth| oauth.issuer());
    let base = app.resource_base(&req);
    let suffix = req
        .path()
        .strip_prefix("/.well-known/oauth-protected-resource")
        .unwrap_or_default();
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "max-age=3600"))
        .json(metadata::protected_resource(
            &format!("{base}{suffix}"),
            issuer,
        ))
}
