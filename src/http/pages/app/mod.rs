//! The memory page, `/app`: the person whose memory it is signs in with their API token and
//! sees, searches, corrects and forgets it, through the same `memory` code as the API. Every
//! form carries the session's CSRF token; nothing of a memory goes in a URL (searches and
//! cursors are posted).

mod apps;
mod export;
mod forget;
mod profile;
mod sign_in;
mod view;

pub(super) use sign_in::enter;

use actix_web::cookie::time::Duration;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, guard, web};
use askama::Template;
use serde::de::DeserializeOwned;

use super::respond::{add_cookie, closing, see_other};
use super::views::{self, AppNotice, SignInPage};
use super::{Text, language::language as browser_language, respond};
use crate::credentials::Session;
use crate::error_chain::ErrorChain;
use crate::error_code::ErrorCode;
use crate::gate::Refusal;
use crate::http::cookies::{Form, Jar};
use crate::http::error::{ApiError, retry_after, status_of};
use crate::http::limits::{FORM_BODY_BYTES, read_body};
use crate::http::routes::fallback::method_not_allowed;
use crate::http::state::AppState;

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/")
            .guard(guard::fn_guard(asks_for_the_page))
            .route(web::get().to(|| async { see_other("/app") })),
    )
    .service(
        web::resource("/app")
            .route(web::get().to(view::show))
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
    );
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

/// A request from a signed-in person, admitted by their namespace's rate limit.
struct Visit {
    session: Session,
    t: &'static Text,
}

impl Visit {
    /// The person's session and language, or the answer for a request that has none: the
    /// sign-in page (saying the sign-in ended, if the browser held one), a page asking them
    /// to wait, or one saying the memory cannot be reached.
    async fn of(req: &HttpRequest, app: &AppState) -> Result<Self, HttpResponse> {
        let t = language(req, app);
        let jar = Jar::of(req, app);
        let presented = jar.session();
        let found = match &presented {
            Some(value) => app.gate.session(value).await,
            None => Ok(None),
        };
        let session = match found {
            Ok(Some(session)) => session,
            Ok(None) => {
                let (status, notice) = match (&presented, req.method().as_str()) {
                    (None, "GET") => (StatusCode::OK, None),
                    _ => (StatusCode::UNAUTHORIZED, Some(t.app.session_ended)),
                };
                let mut answer = sign_in_page(req, app, t, status, notice, None);
                if presented.is_some() {
                    add_cookie(&mut answer, jar.session_cleared());
                }
                return Err(answer);
            }
            Err(Refusal::RateLimited(wait)) => {
                let answer = notice(t, StatusCode::TOO_MANY_REQUESTS, t.app.unavailable);
                return Err(retry_after(answer, wait));
            }
            Err(err) => return Err(unavailable(t, &err)),
        };
        // The request log names the namespace, as for the API.
        req.extensions_mut().insert(session.namespace.clone());
        Ok(Self { session, t })
    }

    /// The posted form, if it can be read and carries this session's CSRF token; else the
    /// status that refuses it.
    fn form<T: DeserializeOwned>(&self, body: &[u8]) -> Result<T, StatusCode> {
        let Csrf { csrf } = read_form(body)?;
        if !self.session.csrf_matches(&csrf) {
            return Err(StatusCode::FORBIDDEN);
        }
        read_form(body)
    }
}

/// The CSRF token every form of the page carries, beside its own fields.
#[derive(serde::Deserialize)]
struct Csrf {
    #[serde(default)]
    csrf: String,
}

/// A signed-in person's posted form, its CSRF token checked; else the answer refusing it.
/// The body is read only once the session is known, and only up to the page's limit.
async fn posted<T: DeserializeOwned>(
    req: &HttpRequest,
    app: &AppState,
    body: web::Payload,
) -> Result<(Visit, T), HttpResponse> {
    let visit = Visit::of(req, app).await?;
    let body = read_body(body, app.page_form_limit())
        .await
        .map_err(|err| unreadable(visit.t, &err))?;
    match visit.form(&body) {
        Ok(form) => Ok((visit, form)),
        Err(status) => Err(notice(visit.t, status, visit.t.app.form_expired)),
    }
}

/// The form of someone not signed in yet, read up to [`FORM_BODY_BYTES`]; else the answer
/// refusing it.
async fn anonymous_form<T: DeserializeOwned>(
    t: &'static Text,
    body: web::Payload,
) -> Result<T, HttpResponse> {
    let body = read_body(body, FORM_BODY_BYTES)
        .await
        .map_err(|err| unreadable(t, &err))?;
    read_form(&body).map_err(|status| notice(t, status, t.app.form_expired))
}

/// A body that could not be read whole, as the page says it.
/// The connection is closed after it, so that the rest of the body is neither read nor kept.
fn unreadable(t: &'static Text, err: &ApiError) -> HttpResponse {
    let (status, message) = refused(t, err.code());
    closing(notice(t, status, message))
}

/// `body` as the form `T`, or the status that refuses it.
fn read_form<T: DeserializeOwned>(body: &[u8]) -> Result<T, StatusCode> {
    serde_urlencoded::from_bytes(body).map_err(|_| StatusCode::BAD_REQUEST)
}

/// The page's language: the one chosen (now, or earlier, kept in a cookie), else the browser's.
fn language(req: &HttpRequest, app: &AppState) -> &'static Text {
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

fn switch_url(t: &Text) -> Option<String> {
    Some(format!("/app?lang={}", t.other_lang))
}

fn sign_in_page(
    req: &HttpRequest,
    app: &AppState,
    t: &'static Text,
    status: StatusCode,
    notice: Option<&str>,
    problem: Option<&str>,
) -> HttpResponse {
    let jar = Jar::of(req, app);
    let csrf = jar.csrf_token(Form::PageSignIn);
    let provider = sign_in::provider(app);
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

fn render(status: StatusCode, page: &impl Template) -> HttpResponse {
    respond::page(status, page, &[])
}

/// A memory operation's refusal as the page shows it: the API's status for it, and the
/// sentence for a person, in the page's language.
fn refused(t: &'static Text, refusal: impl Into<ErrorCode>) -> (StatusCode, &'static str) {
    let code = refusal.into();
    (status_of(code), views::refusal(t, code))
}

/// A page with one message and the way back to the memory page.
fn notice(t: &'static Text, status: StatusCode, message: &str) -> HttpResponse {
    render(
        status,
        &AppNotice {
            t,
            switch_url: None,
            message,
        },
    )
}

fn unavailable(t: &'static Text, err: &(dyn std::error::Error + 'static)) -> HttpResponse {
    tracing::error!(error = %ErrorChain(err), "the memory page could not reach the store");
    notice(t, StatusCode::SERVICE_UNAVAILABLE, t.app.unavailable)
}

/// How long the session cookie is kept: as long as the session.
fn lasts(session: &Session) -> Duration {
    let secs = (session.expires_at - chrono::Utc::now())
        .num_seconds()
        .max(0);
    Duration::seconds(secs)
}
