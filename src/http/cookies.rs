//! The cookies of the sign-in pages: the consent form's and the memory page's sign-in form's
//! CSRF tokens (double submit, compared in constant time), the `state` of a sign-in under way
//! at the OpenID Provider, which binds it to the browser that began it, and the memory page's
//! session and language.

use actix_web::HttpRequest;
use actix_web::cookie::time::Duration;
use actix_web::cookie::{Cookie, SameSite};
use subtle::ConstantTimeEq;

use crate::credentials::generate_token;

const CSRF: &str = "kioku_csrf";
const SIGN_IN: &str = "kioku_sign_in";
const PAGE_CSRF: &str = "kioku_page_csrf";
const SESSION: &str = "kioku_session";
const LANGUAGE: &str = "kioku_lang";
/// The paths each is sent to, and no other.
const CSRF_PATH: &str = "/oauth/authorize";
const SIGN_IN_PATH: &str = "/oauth/callback";
const PAGE_PATH: &str = "/app";

/// A form's CSRF token: on the consent page, or the memory page's sign-in.
#[derive(Clone, Copy)]
pub enum Form {
    Consent,
    PageSignIn,
}

impl Form {
    fn cookie(self) -> (&'static str, &'static str) {
        match self {
            Self::Consent => (CSRF, CSRF_PATH),
            Self::PageSignIn => (PAGE_CSRF, PAGE_PATH),
        }
    }
}

/// The CSRF token the browser already holds for `form`, or a new one.
pub fn csrf_token(req: &HttpRequest, form: Form) -> String {
    req.cookie(form.cookie().0)
        .map(|c| c.value().to_owned())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(generate_token)
}

/// The cookie that carries `token`; `Strict`, since the form posts from this site.
pub fn csrf_cookie(form: Form, token: &str, secure: bool) -> Cookie<'static> {
    let (name, path) = form.cookie();
    cookie(name, token, path, SameSite::Strict, secure)
}

/// Whether the form's `presented` token is the browser's cookie.
pub fn csrf_matches(req: &HttpRequest, form: Form, presented: &str) -> bool {
    matches(req, form.cookie().0, presented)
}

/// The memory page's session the browser presents, if any.
pub fn session(req: &HttpRequest) -> Option<String> {
    req.cookie(SESSION).map(|c| c.value().to_owned())
}

/// The cookie that carries a session, for as long as the session lasts; `Lax`, so that a link
/// from elsewhere opens the page signed in, while its forms carry the session's CSRF token.
pub fn session_cookie(value: &str, lasts: Duration, secure: bool) -> Cookie<'static> {
    let mut cookie = cookie(SESSION, value, PAGE_PATH, SameSite::Lax, secure);
    cookie.set_max_age(lasts);
    cookie
}

/// The session cookie, removed.
pub fn session_cleared(secure: bool) -> Cookie<'static> {
    let mut cookie = cookie(SESSION, "", PAGE_PATH, SameSite::Lax, secure);
    cookie.make_removal();
    cookie
}

/// The language the person chose on the memory page, if any.
pub fn language(req: &HttpRequest) -> Option<String> {
    req.cookie(LANGUAGE).map(|c| c.value().to_owned())
}

/// The cookie that keeps the language chosen, for a year.
pub fn language_cookie(lang: &str, secure: bool) -> Cookie<'static> {
    let mut cookie = cookie(LANGUAGE, lang, PAGE_PATH, SameSite::Lax, secure);
    cookie.set_max_age(Duration::days(365));
    cookie
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
