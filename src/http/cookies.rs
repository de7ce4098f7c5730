//! The cookies of the sign-in pages: the consent form's CSRF token (double submit, compared in
//! constant time) and the `state` of a sign-in under way at the OpenID Provider, which binds it
//! to the browser that began it.

use actix_web::HttpRequest;
use actix_web::cookie::time::Duration;
use actix_web::cookie::{Cookie, SameSite};
use subtle::ConstantTimeEq;

use crate::credentials::generate_token;

const CSRF: &str = "kioku_csrf";
const SIGN_IN: &str = "kioku_sign_in";
/// The paths each is sent to, and no other.
const CSRF_PATH: &str = "/oauth/authorize";
const SIGN_IN_PATH: &str = "/oauth/callback";

/// The CSRF token the browser already holds, or a new one.
pub fn csrf_token(req: &HttpRequest) -> String {
    req.cookie(CSRF)
        .map(|c| c.value().to_owned())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(generate_token)
}

/// The cookie that carries `token`; `Strict`, since the form posts from this site.
pub fn csrf_cookie(token: &str, secure: bool) -> Cookie<'static> {
    cookie(CSRF, token, CSRF_PATH, SameSite::Strict, secure)
}

/// Whether the form's `presented` token is the browser's cookie.
pub fn csrf_matches(req: &HttpRequest, presented: &str) -> bool {
    matches(req, CSRF, presented)
}

/// The cookie that carries a sign-in's `state`; `Lax`, since the OpenID Provider sends the
/// person back with a top-level GET from its own site. It lasts as long as the sign-in may.
pub fn sign_in_cookie(state: &str, secure: bool) -> Cookie<'static> {
    let mut cookie = cookie(SIGN_IN, state, SIGN_IN_PATH, SameSite::Lax, secure);
    cookie.set_max_age(Duration::minutes(10));
    cookie
}

/// Whether `state` is the sign-in this browser began.
pub fn sign_in_matches(req: &HttpRequest, state: &str) -> bool {
    matches(req, SIGN_IN, state)
}

/// The sign-in cookie, removed.
pub fn sign_in_cleared(secure: bool) -> Cookie<'static> {
    let mut cookie = cookie(SIGN_IN, "", SIGN_IN_PATH, SameSite::Lax, secure);
    cookie.make_removal();
    cookie
}

fn cookie(
    name: &'static str,
    value: &str,
    path: &'static str,
    same_site: SameSite,
    secure: bool,
) -> Cookie<'static> {
    Cookie::build(name, value.to_owned())
        .path(path)
        .http_only(true)
        .secure(secure)
        .same_site(same_site)
        .finish()
}

fn matches(req: &HttpRequest, name: &str, presented: &str) -> bool {
    req.cookie(name).is_some_and(|cookie| {
        !presented.is_empty() && bool::from(cookie.value().as_bytes().ct_eq(presented.as_bytes()))
    })
}
