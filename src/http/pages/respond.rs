//! How a page answers: a rendered template under a content security policy, a redirect, a
//! notice that ends a sign-in, and the refusal of a body that is not read.

use actix_web::HttpResponse;
use actix_web::cookie::Cookie;
use actix_web::http::{ConnectionType, StatusCode, header};
use askama::Template;

use super::Text;
use super::views::Notice;

/// A rendered page, with `status`; its forms may post only to this server and to
/// `form_targets` (where this server redirects them next: CSP's `form-action` covers redirects).
/// It runs no script.
pub fn page(status: StatusCode, page: &impl Template, form_targets: &[String]) -> HttpResponse {
    rendered(status, page, form_targets, "")
}

/// A rendered page that runs this server's own script files, and nothing inline.
pub fn page_with_scripts(status: StatusCode, page: &impl Template) -> HttpResponse {
    rendered(status, page, &[], " script-src 'self';")
}

fn rendered(
    status: StatusCode,
    page: &impl Template,
    form_targets: &[String],
    scripts: &str,
) -> HttpResponse {
    let html = match page.render() {
        Ok(html) => html,
        Err(err) => {
            tracing::error!(error = %err, "a page template failed to render");
            return HttpResponse::InternalServerError().finish();
        }
    };
    let csp = format!(
        "default-src 'none'; style-src 'self';{scripts} form-action 'self'{}; frame-ancestors 'none'; base-uri 'none'",
        form_targets
            .iter()
            .map(|t| format!(" {t}"))
            .collect::<String>()
    );
    html_answer(status, &csp, html)
}

/// `html` under the content security policy `csp`, kept out of frames, caches and other
/// sites' referrers.
pub fn html_answer(status: StatusCode, csp: &str, html: String) -> HttpResponse {
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
/// private-use scheme; `None` for one holding a character a source expression may not (`;`
/// ends a directive, `,` a policy, `'` and `*` are keywords), whatever let it through before.
pub fn csp_source(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let source = match url.origin() {
        url::Origin::Tuple(..) => url.origin().ascii_serialization(),
        url::Origin::Opaque(_) => format!("{}:", url.scheme()),
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || "-.+:/[]".contains(c);
    source.chars().all(plain).then_some(source)
}

/// A page that ends a sign-in here, in the person's language.
pub fn sign_in_notice(t: &'static Text, status: StatusCode, message: &str) -> HttpResponse {
    page(
        status,
        &Notice {
            t,
            switch_url: None,
            message,
        },
        &[],
    )
}

/// Where the browser goes next, never kept in a cache.
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// `answer`, after which the connection is closed: the rest of a refused body is neither read
/// nor kept.
pub fn closing(mut answer: HttpResponse) -> HttpResponse {
    answer.head_mut().set_connection_type(ConnectionType::Close);
    answer
}

pub fn add_cookie(answer: &mut HttpResponse, cookie: Cookie<'_>) {
    answer.add_cookie(&cookie).expect("the cookie is valid");
}

#[cfg(test)]
mod tests {
    use super::*;

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
