//! The memory page's answers: its language, the sign-in page, a page with one message, and
//! a refusal's words for a person.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use crate::error_code::ErrorCode;
use crate::http::cookies::{Form, Jar};
use crate::http::error::{ApiError, status_of};
use crate::http::pages::Text;
use crate::http::pages::language::language as browser_language;
use crate::http::pages::respond::{self, add_cookie, closing};
use crate::http::pages::views::{self, AppNotice, SignInPage};
use crate::http::state::AppState;

/// The page's language: the one chosen (now, or earlier, kept in a cookie), else the browser's.
pub(super) fn language(req: &HttpRequest, app: &AppState) -> &'static Text {
    let chosen = web::Query::<LanguageChoice>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.into_inner().lang)
        .or_else(|| Jar::of(req, app).language());
    browser_language(req, chosen.as_deref())
}

#[derive(serde::Deserialize)]
struct LanguageChoice {
    lang: Option<String>,
}

pub(super) fn switch_url(t: &Text) -> Option<String> {
    Some(format!("/app?lang={}", t.other_lang))
}

pub(super) fn sign_in_page(
    req: &HttpRequest,
    app: &AppState,
    t: &'static Text,
    status: StatusCode,
    notice: Option<&str>,
    problem: Option<&str>,
) -> HttpResponse {
    let jar = Jar::of(req, app);
    let csrf = jar.csrf_token(Form::PageSignIn);
    let provider = provider(app);
    let page = SignInPage {
        t,
        switch_url: switch_url(t),
        csrf: csrf.clone(),
        provider_button: provider
            .map(|p| t.app.sign_in_with.replace("{provider}", &views::host(p))),
        notice,
        problem,
    };
    // The provider's form answers with a redirect to it (CSP's form-action covers redirects).
    let targets: Vec<String> = provider.and_then(respond::csp_source).into_iter().collect();
    let mut answer = respond::page(status, &page, &targets);
    add_cookie(&mut answer, jar.csrf_cookie(Form::PageSignIn, &csrf));
    answer
}

pub(super) fn render(status: StatusCode, page: &impl Template) -> HttpResponse {
    respond::page(status, page, &[])
}

/// The memory page itself, which runs its zone script.
pub(super) fn render_memory(status: StatusCode, page: &impl Template) -> HttpResponse {
    respond::page_with_scripts(status, page)
}

/// A memory operation's refusal as the page shows it: the API's status for it, and the
/// sentence for a person, in the page's language.
pub(super) fn refused(
    t: &'static Text,
    refusal: impl Into<ErrorCode>,
) -> (StatusCode, &'static str) {
    let code = refusal.into();
    (status_of(code), views::refusal(t, code))
}

/// A page with one message and the way back to the memory page.
pub(super) fn notice(t: &'static Text, status: StatusCode, message: &str) -> HttpResponse {
    render(
        status,
        &AppNotice {
            t,
            switch_url: None,
            message,
        },
    )
}

/// A path under `/app` that is no page, said in the person's language.
pub(super) async fn no_such_page(req: HttpRequest, app: web::Data<AppState>) -> HttpResponse {
    let t = language(&req, &app);
    notice(t, StatusCode::NOT_FOUND, t.app.no_such_page)
}

/// The OpenID Provider people may sign in at, if one is configured.
pub(super) fn provider(app: &AppState) -> Option<&str> {
    app.oauth.as_deref()?.upstream_issuer()
}

/// A body that could not be read whole, as the page says it.
/// The connection is closed after it, so that the rest of the body is neither read nor kept.
pub(super) fn unreadable(t: &'static Text, err: &ApiError) -> HttpResponse {
    let (status, message) = refused(t, err.code());
    closing(notice(t, status, message))
}
