//! The cookies of the sign-in pages: the consent form's and the memory page's sign-in form's
//! CSRF tokens (double submit, compared in constant time, and signed so that a value planted
//! in the browser is not taken for one), the `state` of a sign-in under way at the OpenID
//! Provider, which binds it to the browser that began it, and the memory page's session,
//! language and time zone. Over https each is `Secure` and named `__Host-…` (so host-only, on path `/`): no
//! other host, a sibling subdomain included, can set one.

use actix_web::HttpRequest;
use actix_web::cookie::time::Duration;
use actix_web::cookie::{Cookie, SameSite};
use ring::hmac;
use subtle::ConstantTimeEq;

use super::state::AppState;
use crate::credentials::{generate_token, hex};

const CSRF: &str = "kioku_csrf";
const SIGN_IN: &str = "kioku_sign_in";
const PAGE_CSRF: &str = "kioku_page_csrf";
const SESSION: &str = "kioku_session";
const LANGUAGE: &str = "kioku_lang";
const ZONE: &str = "kioku_zone";
/// The paths each is sent to over http; over https a `__Host-` cookie's path is `/`.
const CSRF_PATH: &str = "/oauth/authorize";
const SIGN_IN_PATH: &str = "/oauth/callback";
const PAGE_PATH: &str = "/app";
/// What the CSRF tokens' key is derived for.
const CSRF_KEY_PURPOSE: &str = "kioku csrf cookie v1";
/// Hex characters of a CSRF token's nonce; its signature follows.
const NONCE_CHARS: usize = 64;

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

/// A request's cookies as this server reads and writes them.
pub struct Jar<'a> {
    req: &'a HttpRequest,
    /// Reached over https, by the URL resources are named under.
    secure: bool,
    key: hmac::Key,
}

impl<'a> Jar<'a> {
    pub fn of(req: &'a HttpRequest, app: &AppState) -> Self {
        let key = app.gate.tokens().derived_key(CSRF_KEY_PURPOSE);
        Self {
            req,
            secure: app.resource_base(req).starts_with("https://"),
            key: hmac::Key::new(hmac::HMAC_SHA256, &key),
        }
    }

    /// The CSRF token the browser already holds for `form`, if this server signed it, or a
    /// new one.
    pub fn csrf_token(&self, form: Form) -> String {
        self.value(form.cookie().0)
            .filter(|v| self.signed(v))
            .unwrap_or_else(|| {
                let nonce = generate_token();
                let tag = hmac::sign(&self.key, nonce.as_bytes());
                format!("{nonce}{}", hex(tag.as_ref()))
            })
    }

    /// The cookie that carries `token`; `Strict`, since the form posts from this site.
    pub fn csrf_cookie(&self, form: Form, token: &str) -> Cookie<'static> {
        let (name, path) = form.cookie();
        self.cookie(name, token, path, SameSite::Strict)
    }

    /// Whether the form's `presented` token is the browser's cookie, and signed here.
    pub fn csrf_matches(&self, form: Form, presented: &str) -> bool {
        self.matches(form.cookie().0, presented) && self.signed(presented)
    }

    /// The memory page's session the browser presents, if any.
    pub fn session(&self) -> Option<String> {
        self.value(SESSION)
    }

    /// The cookie that carries a session, for as long as the session lasts; `Lax`, so that a
    /// link from elsewhere opens the page signed in, while its forms carry the session's CSRF
    /// token.
    pub fn session_cookie(&self, value: &str, lasts: Duration) -> Cookie<'static> {
        let mut cookie = self.cookie(SESSION, value, PAGE_PATH, SameSite::Lax);
        cookie.set_max_age(lasts);
        cookie
    }

    /// The session cookie, removed.
    pub fn session_cleared(&self) -> Cookie<'static> {
        let mut cookie = self.cookie(SESSION, "", PAGE_PATH, SameSite::Lax);
        cookie.make_removal();
        cookie
    }

    /// The language the person chose on the memory page, if any.
    pub fn language(&self) -> Option<String> {
        self.value(LANGUAGE)
    }

    /// The cookie that keeps the language chosen, for a year.
    pub fn language_cookie(&self, lang: &str) -> Cookie<'static> {
        let mut cookie = self.cookie(LANGUAGE, lang, PAGE_PATH, SameSite::Lax);
        cookie.set_max_age(Duration::days(365));
        cookie
    }

    /// The time zone the person chose on the memory page, if any.
    pub fn zone(&self) -> Option<String> {
        self.value(ZONE)
    }

    /// The cookie that keeps the zone chosen, for a year.
    pub fn zone_cookie(&self, zone: &str) -> Cookie<'static> {
        let mut cookie = self.cookie(ZONE, zone, PAGE_PATH, SameSite::Lax);
        cookie.set_max_age(Duration::days(365));
        cookie
    }

    /// The cookie that carries a sign-in's `state`; `Lax`, since the OpenID Provider sends
    /// the person back with a top-level GET from its own site. It lasts as long as the
    /// sign-in may.
    pub fn sign_in_cookie(&self, state: &str) -> Cookie<'static> {
        let mut cookie = self.cookie(SIGN_IN, state, SIGN_IN_PATH, SameSite::Lax);
        cookie.set_max_age(Duration::minutes(10));
        cookie
    }

    /// Whether `state` is the sign-in this browser began.
    pub fn sign_in_matches(&self, state: &str) -> bool {
        self.matches(SIGN_IN, state)
    }

    /// The sign-in cookie, removed.
    pub fn sign_in_cleared(&self) -> Cookie<'static> {
        let mut cookie = self.cookie(SIGN_IN, "", SIGN_IN_PATH, SameSite::Lax);
        cookie.make_removal();
        cookie
    }

    /// The name the cookie `base` goes by: over https, with the `__Host-` prefix.
    fn name(&self, base: &str) -> String {
        match self.secure {
            true => format!("__Host-{base}"),
            false => base.to_owned(),
        }
    }

    fn value(&self, base: &str) -> Option<String> {
        self.req
            .cookie(&self.name(base))
            .map(|c| c.value().to_owned())
    }

    /// Whether `token` is a nonce followed by this server's signature of it.
    fn signed(&self, token: &str) -> bool {
        let Some((nonce, tag)) = token.split_at_checked(NONCE_CHARS) else {
            return false;
        };
        let Some(tag) = unhex(tag) else {
            return false;
        };
        hmac::verify(&self.key, nonce.as_bytes(), &tag).is_ok()
    }

    fn cookie(
        &self,
        base: &'static str,
        value: &str,
        path: &'static str,
        same_site: SameSite,
    ) -> Cookie<'static> {
        // RFC 6265bis, section 4.1.3.2: a `__Host-` cookie is `Secure`, on path `/`, with no
        // `Domain`.
        let path = if self.secure { "/" } else { path };
        Cookie::build(self.name(base), value.to_owned())
            .path(path)
            .http_only(true)
            .secure(self.secure)
            .same_site(same_site)
            .finish()
    }

    fn matches(&self, base: &str, presented: &str) -> bool {
        self.value(base).is_some_and(|value| {
            !presented.is_empty() && bool::from(value.as_bytes().ct_eq(presented.as_bytes()))
        })
    }
}

/// The bytes of lowercase or uppercase hex `text`, if it is that.
fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}
