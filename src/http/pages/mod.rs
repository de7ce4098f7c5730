//! Every HTML page: the memory page (`/app`), the OAuth consent page and the way back from the
//! OpenID Provider, and the privacy policy. Each speaks the person's language (`language`),
//! shows a view (`views`) and answers through `respond`, with headers that keep it out of
//! frames, caches and other sites' scripts; its refusals carry the API's statuses.

mod app;
mod app_text;
mod callback;
mod consent;
pub(super) mod language;
mod privacy;
mod respond;
mod text;
pub(super) mod views;

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use super::routes::fallback::method_not_allowed;
use super::routes::get_or_head;
use crate::oauth::metadata::{AUTHORIZE_PATH, CALLBACK_PATH};

pub use language::language;
pub use text::Text;
pub use views::Privacy;

/// The pages' one stylesheet, so the content security policy needs no inline style.
const STYLESHEET: &str = include_str!("../../../templates/page.css");
/// The memory page's one script, which offers the browser's time zone: a file, so that the
/// page's policy runs scripts from this server alone and none inline.
const ZONE_SCRIPT: &str = include_str!("../../../templates/zone.js");

/// The pages' routes; first in the table, as the memory page takes `/` from a browser that
/// asks for a page before the API does.
pub fn register(cfg: &mut web::ServiceConfig) {
    app::register(cfg);
    cfg.route("/assets/page.css", get_or_head().to(stylesheet))
        .route("/assets/zone.js", get_or_head().to(zone_script))
        .route("/privacy", get_or_head().to(privacy::privacy))
        .service(
            web::resource(AUTHORIZE_PATH)
                .route(web::get().to(consent::show))
                .route(web::post().to(consent::decide))
                .default_service(method_not_allowed("GET, POST")),
        )
        .service(
            web::resource(CALLBACK_PATH)
                .route(web::get().to(callback::callback))
                .default_service(method_not_allowed("GET")),
        );
}

async fn stylesheet() -> HttpResponse {
    asset("text/css; charset=utf-8", STYLESHEET)
}

async fn zone_script() -> HttpResponse {
    asset("text/javascript; charset=utf-8", ZONE_SCRIPT)
}

fn asset(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}
