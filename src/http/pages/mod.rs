//! kioku's HTML pages: compiled templates (`templates/`), in the person's language, sent with
//! headers that keep them out of frames, caches and other sites' scripts.

mod app;
mod app_text;
mod consent;
mod privacy;
mod refusals;
mod text;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

pub use app::{
    AppNotice, AppView, ConfirmPage, DisconnectPage, EntryView, MemoryPage, SignInPage, ThreadView,
    saved_by,
};
pub use consent::Consent;
pub use privacy::{FILE_POLICY, Privacy, PrivacyPage};
pub use refusals::refusal;
pub use text::Text;

/// The pages' one stylesheet, so the content security policy needs no inline style.
const STYLESHEET: &str = include_str!("../../../templates/page.css");

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.route("/assets/page.css", web::get().to(stylesheet));
}

async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(STYLESHEET)
}

/// The page's language: `lang` when the person chose one, else the first of Japanese or
/// English in `Accept-Language` by preference (RFC 9110, section 12.5.4), else English.
pub fn language(req: &HttpRequest, chosen: Option<&str>) -> &'static Text {
    match chosen {
        Some("ja") => return &text::JA,
        Some("en") => return &text::EN,
        _ => {}
    }
    let accepted = req
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let mut ranked: Vec<(f32, &str)> = accepted
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let tag = parts.next()?.trim();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.parse().ok())?;
            Some((q, tag))
        })
        .collect();
    // Stable, so equal weights keep the header's order.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let primary = |tag: &str| {
        tag.split('-')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    match ranked
        .iter()
        .filter(|(q, _)| *q > 0.0)
        .map(|(_, tag)| primary(tag))
        .find(|p| p == "ja" || p == "en")
        .as_deref()
    {
        Some("ja") => &text::JA,
        _ => &text::EN,
    }
}

/// A rendered page, with `status`; its forms may post only to this server and to
/// `form_targets` (where this server redirects them next: CSP's `form-action` covers redirects).
pub fn page(
    status: actix_web::http::StatusCode,
    page: &impl Template,
    form_targets: &[String],
) -> HttpResponse {
    let html = match page.render() {
        Ok(html) => html,
        Err(err) => {
            tracing::error!(error = %err, "a page template failed to render");
            return HttpResponse::InternalServerError().finish();
        }
    };
    let csp = format!(
        "default-src 'none'; style-src 'self'; form-action 'self'{}; frame-ancestors 'none'; base-uri 'none'",
        form_targets
            .iter()
            .map(|t| format!(" {t}"))
            .collect::<String>()
    );
    html_answer(status, &csp, html)
}

/// `html` under the content security policy `csp`, kept out of frames, caches and other
/// sites' referrers.
pub fn html_answer(status: actix_web::http::StatusCode, csp: &str, html: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, csp))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(html)
}

/// The origin of `url` as CSP names it: `scheme://host[:port]`, or `scheme:` for an app's
/// private-use scheme.
pub fn csp_source(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    match url.origin() {
        url::Origin::Tuple(..) => Some(url.origin().ascii_serialization()),
        url::Origin::Opaque(_) => Some(format!("{}:", url.scheme())),
    }
}

/// The host a URL names, as a person knows it: how a sign-in button names an OpenID Provider.
pub fn host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| url.to_owned())
}

/// What a person reads when a sign-in cannot go on.
#[derive(Template)]
#[template(path = "notice.html")]
pub struct Notice<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub message: &'a str,
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[test]
    fn the_language_follows_the_choice_then_the_browser() {
        let req = |accept: &str| {
            TestRequest::default()
                .insert_header((header::ACCEPT_LANGUAGE, accept))
                .to_http_request()
        };
        assert_eq!(language(&req("ja-JP,ja;q=0.9,en;q=0.8"), None).lang, "ja");
        assert_eq!(language(&req("fr, en;q=0.5, ja;q=0.4"), None).lang, "en");
        assert_eq!(language(&req("en;q=0.2, ja;q=0.9"), None).lang, "ja");
        assert_eq!(language(&req("ja"), Some("en")).lang, "en");
        assert_eq!(language(&req("de"), None).lang, "en");
    }

    #[test]
    fn form_targets_are_origins() {
        assert_eq!(
            csp_source("https://chat.openai.com/aip/x/oauth/callback?a=1").as_deref(),
            Some("https://chat.openai.com")
        );
        assert_eq!(
            csp_source("http://127.0.0.1:3000/cb").as_deref(),
            Some("http://127.0.0.1:3000")
        );
        assert_eq!(
            csp_source("cursor://anysphere.cursor-mcp/oauth/callback").as_deref(),
            Some("cursor:")
        );
    }
}
