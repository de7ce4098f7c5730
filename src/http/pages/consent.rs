//! `GET /oauth/authorize` shows the consent page; `POST` takes the person's decision, with the
//! page's CSRF token, and sends them back to the app, or on to the OpenID Provider.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::Text;
use super::language;
use super::respond::{self, add_cookie, closing, see_other, sign_in_notice as notice};
use super::views::{Consent, refusal};
use crate::domain::Door;
use crate::error_chain::ErrorChain;
use crate::gate::Refusal;
use crate::http::cookies::{Form, Jar};
use crate::http::error::{retry_after, status_of};
use crate::http::limits::{FORM_BODY_BYTES, read_body};
use crate::http::state::AppState;
use crate::http::state::OAuthOn;
use crate::oauth::{
    AuthorizationParams, AuthorizationRequest, AuthorizationServer, OAuthError, RequestError,
};

/// The page's own fields, sent beside the authorization request's parameters.
#[derive(Deserialize)]
struct PageFields {
    lang: Option<String>,
    csrf: Option<String>,
    decision: Option<String>,
    token: Option<String>,
}

/// The authorization request's parameters and the page's fields, from one form-encoded text
/// (RFC 6749, section 3.1: each parameter at most once, unknown ones ignored).
fn fields(encoded: &[u8]) -> Result<(AuthorizationParams, PageFields), String> {
    let unreadable = |e: serde_urlencoded::de::Error| {
        format!("The link could not be read: {e}; send each parameter once.")
    };
    let params = serde_urlencoded::from_bytes(encoded).map_err(unreadable)?;
    let page = serde_urlencoded::from_bytes(encoded).map_err(unreadable)?;
    Ok((params, page))
}

pub async fn show(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    app: web::Data<AppState>,
) -> HttpResponse {
    let (params, page) = match fields(req.query_string().as_bytes()) {
        Ok(fields) => fields,
        Err(why) => return notice(language(&req, None), StatusCode::BAD_REQUEST, &why),
    };
    let t = language(&req, page.lang.as_deref());
    let request = match checked(&oauth, t, &params, &req, &app).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let jar = Jar::of(&req, &app);
    let csrf = jar.csrf_token(Form::Consent);
    consent(&oauth, &jar, t, &request, &params, csrf, None)
}

pub async fn decide(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    form: web::Payload,
    app: web::Data<AppState>,
) -> HttpResponse {
    let form = match read_body(form, FORM_BODY_BYTES).await {
        Ok(form) => form,
        Err(err) => {
            let t = language(&req, None);
            let status = status_of(err.code());
            return closing(notice(t, status, refusal(t, err.code())));
        }
    };
    let (params, page) = match fields(&form) {
        Ok(fields) => fields,
        Err(why) => return notice(language(&req, None), StatusCode::BAD_REQUEST, &why),
    };
    let t = language(&req, page.lang.as_deref());
    let jar = Jar::of(&req, &app);
    if !jar.csrf_matches(Form::Consent, page.csrf.as_deref().unwrap_or_default()) {
        return notice(t, StatusCode::FORBIDDEN, t.form_expired);
    }
    let request = match checked(&oauth, t, &params, &req, &app).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let client = app.site.client_address(&req);
    let again = |problem| {
        let csrf = jar.csrf_token(Form::Consent);
        consent(&oauth, &jar, t, &request, &params, csrf, Some(problem))
    };
    let outcome = match page.decision.as_deref() {
        Some("allow") => {
            let token = page.token.as_deref().unwrap_or_default();
            let typed = match app.gate.typed(client, token, Door::Consent) {
                Ok(typed) => typed,
                Err(Refusal::Throttled(wait)) => {
                    let answer = again((StatusCode::TOO_MANY_REQUESTS, t.too_many_attempts));
                    return retry_after(answer, wait);
                }
                Err(_) => return again((StatusCode::UNAUTHORIZED, t.unknown_token)),
            };
            let Some(who) = oauth.sign_in_with_token(typed) else {
                return again((StatusCode::UNAUTHORIZED, t.unknown_token));
            };
            match oauth.approve(&request, who).await {
                Err(OAuthError::Throttled { wait, .. }) => {
                    let answer = again((StatusCode::TOO_MANY_REQUESTS, t.too_many_approvals));
                    return retry_after(answer, wait);
                }
                approved => approved.map(|to| see_other(&to)),
            }
        }
        Some("oidc") => {
            // Each sign-in begun is stored until it ends or expires.
            if let Err(wait) = app.gate.unsigned_write(client, Door::Provider) {
                let answer = again((StatusCode::TOO_MANY_REQUESTS, t.too_many_sign_ins));
                return retry_after(answer, wait);
            }
            let begun = oauth.begin_sign_in(Some(params.clone())).await;
            begun.map(|(to, state)| {
                let mut answer = see_other(&to);
                add_cookie(&mut answer, jar.sign_in_cookie(&state));
                answer
            })
        }
        Some("deny") => Ok(see_other(&oauth.denial(&request))),
        _ => Ok(notice(t, StatusCode::BAD_REQUEST, t.form_expired)),
    };
    outcome.unwrap_or_else(|err| {
        tracing::error!(error = %ErrorChain(&err), "an authorization failed");
        notice(t, StatusCode::SERVICE_UNAVAILABLE, t.sign_in_failed)
    })
}

/// The request, if it can be answered; else the answer: the problem shown, or the client sent
/// its error.
async fn checked(
    oauth: &AuthorizationServer,
    t: &'static Text,
    params: &AuthorizationParams,
    req: &HttpRequest,
    app: &AppState,
) -> Result<AuthorizationRequest, HttpResponse> {
    match oauth.request(params, &app.document_asker(req)).await {
        Ok(request) => Ok(request),
        Err(RequestError::Shown(why)) => Err(notice(t, StatusCode::BAD_REQUEST, &why)),
        Err(RequestError::Returned { to, error }) => Err(see_other(&oauth.refusal(&to, &error))),
        Err(RequestError::Failed(err)) => {
            tracing::error!(error = %ErrorChain(&err), "an authorization request failed");
            Err(notice(t, StatusCode::SERVICE_UNAVAILABLE, t.sign_in_failed))
        }
    }
}

fn consent(
    oauth: &AuthorizationServer,
    jar: &Jar,
    t: &'static Text,
    request: &AuthorizationRequest,
    params: &AuthorizationParams,
    csrf: String,
    problem: Option<(StatusCode, &str)>,
) -> HttpResponse {
    let mut page = Consent::new(
        t,
        request,
        params,
        csrf.clone(),
        oauth.token_sign_in(),
        oauth.upstream_issuer(),
    );
    page.problem = problem.map(|(_, message)| message);
    let status = problem.map_or(StatusCode::OK, |(status, _)| status);
    // The form's answer redirects to the app, or to the OpenID Provider.
    let targets: Vec<String> = [Some(request.redirect_uri.as_str()), oauth.upstream_issuer()]
        .into_iter()
        .flatten()
        .filter_map(respond::csp_source)
        .collect();
    let mut answer = respond::page(status, &page, &targets);
    add_cookie(&mut answer, jar.csrf_cookie(Form::Consent, &csrf));
    answer
}
