//! Signing in to the memory page: with an API token (the namespace it opens; admin tokens open
//! none), or at the OpenID Provider when one is configured (the person's own namespace, as
//! their OAuth grants have); and signing out, which ends the session on every instance.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::answer::{language, notice, provider, sign_in_page};
use super::error::{OrUnavailable, PageError};
use super::visit::{anonymous_form, lasts, posted};
use crate::domain::{Door, Namespace};
use crate::gate::Refusal;
use crate::http::cookies::{Form, Jar};
use crate::http::error::retry_after;
use crate::http::pages::Text;
use crate::http::pages::respond::{add_cookie, see_other};
use crate::http::state::AppState;

#[derive(Deserialize)]
pub(super) struct SignInForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    token: String,
}

/// The sign-in form of someone not signed in yet, with this browser's CSRF token; else the
/// answer refusing it.
async fn sign_in_form(
    req: &HttpRequest,
    app: &AppState,
    body: web::Payload,
) -> Result<(&'static Text, SignInForm), PageError> {
    let t = language(req, app);
    let form: SignInForm = anonymous_form(t, body).await?;
    if !Jar::of(req, app).csrf_matches(Form::PageSignIn, &form.csrf) {
        let problem = Some(t.app.form_expired);
        return Err(sign_in_page(req, app, t, StatusCode::FORBIDDEN, None, problem).into());
    }
    Ok((t, form))
}

pub(super) async fn sign_in(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let (t, form) = sign_in_form(&req, &app, body).await?;
    let again = |status, problem| sign_in_page(&req, &app, t, status, None, Some(problem));
    let client = app.site.client_address(&req);
    let signed_in = match app.gate.typed(client, &form.token, Door::Page) {
        Ok(signed_in) => signed_in,
        Err(Refusal::Throttled(wait)) => {
            let answer = again(StatusCode::TOO_MANY_REQUESTS, t.too_many_attempts);
            return Ok(retry_after(answer, wait));
        }
        Err(_) => return Ok(again(StatusCode::UNAUTHORIZED, t.unknown_token)),
    };
    enter(&req, &app, t, &signed_in.namespace, Some(&signed_in.digest)).await
}

/// A session for `namespace`, signed in with the API token of `token_digest` or not, and the
/// way into the page. A session the browser already held ends: on a shared computer, the one
/// before is signed out.
pub(in crate::http::pages) async fn enter(
    req: &HttpRequest,
    app: &AppState,
    t: &'static Text,
    namespace: &Namespace,
    token_digest: Option<&str>,
) -> Result<HttpResponse, PageError> {
    let jar = Jar::of(req, app);
    if let Some(earlier) = jar.session() {
        app.gate
            .sessions()
            .close(&earlier)
            .await
            .or_unavailable(t)?;
    }
    let opened = app.gate.sessions().open(namespace, token_digest).await;
    let (value, session) = opened.or_unavailable(t)?;
    let mut answer = see_other("/app");
    add_cookie(&mut answer, jar.session_cookie(&value, lasts(&session)));
    Ok(answer)
}

/// `POST /app/sign-in/provider`: on to the OpenID Provider, with the `state` this browser must
/// bring back; `/oauth/callback` opens the session.
pub(super) async fn at_provider(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let (t, _) = sign_in_form(&req, &app, body).await?;
    let again = |status, problem| sign_in_page(&req, &app, t, status, None, Some(problem));
    let Some(oauth) = app.oauth.as_ref().filter(|_| provider(&app).is_some()) else {
        return Ok(notice(t, StatusCode::NOT_FOUND, t.app.form_expired));
    };
    // Each sign-in begun is stored until it ends or expires.
    let client = app.site.client_address(&req);
    if let Err(wait) = app.gate.unsigned_write(client, Door::Provider) {
        let answer = again(StatusCode::TOO_MANY_REQUESTS, t.too_many_sign_ins);
        return Ok(retry_after(answer, wait));
    }
    let (to, state) = oauth.begin_sign_in(None).await.or_unavailable(t)?;
    let mut answer = see_other(&to);
    add_cookie(&mut answer, Jar::of(&req, &app).sign_in_cookie(&state));
    Ok(answer)
}

pub(super) async fn sign_out(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    // The form has nothing but its CSRF token.
    let (visit, IgnoredAny) = posted(&req, &app, body).await?;
    let jar = Jar::of(&req, &app);
    let value = jar.session().unwrap_or_default();
    app.gate
        .sessions()
        .close(&value)
        .await
        .or_unavailable(visit.t)?;
    let mut answer = see_other("/app?done=signed_out");
    add_cookie(&mut answer, jar.session_cleared());
    Ok(answer)
}
