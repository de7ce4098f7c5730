//! The memory page, `/app`: the person whose memory it is signs in with their API token and
//! sees, searches, corrects and forgets it, through the same `memory` code as the API. Every
//! form carries the session's CSRF token; nothing of a memory goes in a URL (searches and
//! cursors are posted).

mod answer;
mod apps;
mod error;
mod export;
mod forget;
mod profile;
mod sign_in;
mod view;
mod visit;

pub(super) use sign_in::enter;

use actix_web::http::header;
use actix_web::{guard, web};

use super::respond::see_other;
use crate::http::routes::fallback::method_not_allowed;
use crate::http::routes::get_or_head;

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/")
            .guard(guard::fn_guard(asks_for_the_page))
            .route(web::get().to(|| async { see_other("/app") })),
    )
    .service(
        web::resource("/app")
            .route(get_or_head().to(view::show))
            .route(web::post().to(view::browse))
            .default_service(method_not_allowed("GET, POST")),
    )
    .service(post("/app/sign-in", sign_in::sign_in))
    .service(post("/app/sign-in/provider", sign_in::at_provider))
    .service(post("/app/sign-out", sign_in::sign_out))
    .service(post("/app/forget", forget::forget))
    .service(post("/app/profile", profile::rewrite))
    .service(post("/app/apps/disconnect", apps::disconnect))
    .service(
        web::resource("/app/export")
            .route(web::get().to(export::export))
            .default_service(method_not_allowed("GET")),
    )
    // Last: a path under /app that none above is, mistyped or from an older link.
    .service(web::resource("/app/{rest:.*}").to(answer::no_such_page));
}

/// A browser opening `/` itself: a `GET` with no parameters and no token, that takes HTML. The
/// API's clients always send a `mode` or a token, so they never meet this.
fn asks_for_the_page(ctx: &guard::GuardContext) -> bool {
    let head = ctx.head();
    let takes_html = head
        .headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    head.method == actix_web::http::Method::GET
        && head.uri.query().is_none_or(str::is_empty)
        && !head.headers.contains_key(header::AUTHORIZATION)
        && takes_html
}

/// A form's target, which takes nothing but `POST`.
fn post<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::post().to(handler))
        .default_service(method_not_allowed("POST"))
}
