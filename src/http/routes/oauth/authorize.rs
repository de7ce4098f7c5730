//! `GET /oauth/authorize` shows the consent page; `POST` takes the person's decision, with the
//! page's CSRF token, and sends them back to the app, or on to the OpenID Provider.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};

use super::OAuthOn;
use crate::http::cookies;
use crate::http::error::retry_after_secs;
use crate::http::pages::{self, Consent, Notice, Text};
use crate::http::state::AppState;
use crate::oauth::{AuthorizationParams, AuthorizationRequest, AuthorizationServer, RequestError};
use crate::telemetry::ErrorChain;
use crate::throttle;

/// The request's parameters by name (RFC 6749, section 3.1: each at most once, unknown ones
/// ignored); `lang`, `csrf`, `decision` and `token` are the page's own.
struct Fields {
    params: AuthorizationParams,
    page: Vec<(String, String)>,
}

impl Fields {
    fn parse(pairs: Vec<(String, String)>) -> Result<Self, String> {
        let mut params = AuthorizationParams::default();
        let mut page = Vec::new();
        for (name, value) in pairs {
            let slot = match name.as_str() {
                "response_type" => &mut params.response_type,
                "client_id" => &mut params.client_id,
                "redirect_uri" => &mut params.redirect_uri,
                "state" => &mut params.state,
                "scope" => &mut params.scope,
                "code_challenge" => &mut params.code_challenge,
                "code_challenge_method" => &mut params.code_challenge_method,
                "resource" => &mut params.resource,
                "lang" | "csrf" | "decision" | "token" => {
                    page.push((name, value));
                    continue;
                }
                _ => continue,
            };
            if slot.replace(value).is_some() {
                return Err(format!("The link repeats the parameter {name}."));
            }
        }
        Ok(Self { params, page })
    }

    fn page(&self, name: &str) -> Option<&str> {
        self.page
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub async fn show(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    query: web::Query<Vec<(String, String)>>,
) -> HttpResponse {
    let fields = match Fields::parse(query.into_inner()) {
        Ok(fields) => fields,
        Err(why) => return notice(&req, None, StatusCode::BAD_REQUEST, &why),
    };
    let t = pages::language(&req, fields.page("lang"));
    let request = match checked(&oauth, &req, t, &fields.params).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let csrf = cookies::csrf_token(&req);
    consent(&oauth, t, &request, &fields.params, csrf, None)
}

pub async fn decide(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    form: web::Form<Vec<(String, String)>>,
    app: web::Data<AppState>,
) -> HttpResponse {
    let fields = match Fields::parse(form.into_inner()) {
        Ok(fields) => fields,
        Err(why) => return notice(&req, None, StatusCode::BAD_REQUEST, &why),
    };
    let t = pages::language(&req, fields.page("lang"));
    if !cookies::csrf_matches(&req, fields.page("csrf").unwrap_or_default()) {
        return notice(&req, Some(t), StatusCode::FORBIDDEN, t.form_expired);
    }
    let request = match checked(&oauth, &req, t, &fields.params).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let outcome = match fields.page("decision") {
        Some("allow") => {
            let client = app.client_address(&req);
            let again = |problem| {
                let csrf = cookies::csrf_token(&req);
                consent(&oauth, t, &request, &fields.params, csrf, Some(problem))
            };
            // An address that typed too many unknown tokens of late is not let try another.
            if let Err(wait) = app.throttle.admit(client) {
                let mut answer = again((StatusCode::TOO_MANY_REQUESTS, t.too_many_attempts));
                answer
                    .headers_mut()
                    .insert(header::RETRY_AFTER, retry_after_secs(wait).into());
                return answer;
            }
            let token = fields.page("token").unwrap_or_default();
            let Some(who) = oauth.sign_in_with_token(token) else {
                app.throttle.failed(client, throttle::Door::Consent);
                return again((StatusCode::UNAUTHORIZED, t.unknown_token));
            };
            oauth.approve(&request, who).await.map(|to| see_other(&to))
        }
        Some("oidc") => oauth
            .begin_sign_in(fields.params.clone())
            .await
            .map(|(to, state)| {
                let mut answer = see_other(&to);
                let cookie = cookies::sign_in_cookie(&state, secure(&oauth));
                answer.add_cookie(&cookie).expect("the cookie is valid");
                answer
            }),
        Some("deny") => Ok(see_other(&oauth.denial(&request))),
        _ => Ok(notice(
            &req,
            Some(t),
            StatusCode::BAD_REQUEST,
            t.form_expired,
        )),
    };
    outcome.unwrap_or_else(|err| {
        tracing::error!(error = %ErrorChain(&err), "an authorization failed");
        notice(
            &req,
            Some(t),
            StatusCode::SERVICE_UNAVAILABLE,
            t.sign_in_failed,
        )
    })
}

/// The request, if it can be answered; else the answer: the problem shown, or the client sent
/// its error.
async fn checked(
    oauth: &AuthorizationServer,
    req: &HttpRequest,
    t: &'static Text,
    params: &AuthorizationParams,
) -> Result<AuthorizationRequest, HttpResponse> {
    match oauth.request(params).await {
        Ok(request) => Ok(request),
        Err(RequestError::Shown(why)) => Err(notice(req, Some(t), StatusCode::BAD_REQUEST, &why)),
        Err(RequestError::Returned { to, error }) => Err(see_other(&oauth.refusal(&to, &error))),
        Err(RequestError::Failed(err)) => {
            tracing::error!(error = %ErrorChain(&err), "an authorization request failed");
            Err(notice(
                req,
                Some(t),
                StatusCode::SERVICE_UNAVAILABLE,
                t.sign_in_failed,
            ))
        }
    }
}

fn consent(
    oauth: &AuthorizationServer,
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
        .filter_map(pages::csp_source)
        .collect();
    let mut answer = pages::page(status, &page, &targets);
    answer
        .add_cookie(&cookies::csrf_cookie(&csrf, secure(oauth)))
        .expect("the cookie is valid");
    answer
}

/// A page that ends the sign-in here, in the person's language.
pub(super) fn notice(
    req: &HttpRequest,
    t: Option<&'static Text>,
    status: StatusCode,
    message: &str,
) -> HttpResponse {
    let t = t.unwrap_or_else(|| pages::language(req, None));
    pages::page(
        status,
        &Notice {
            t,
            switch_url: None,
            message,
        },
        &[],
    )
}

pub(super) fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// Cookies are `Secure` whenever the server is reached over https.
pub(super) fn secure(oauth: &AuthorizationServer) -> bool {
    oauth.issuer().starts_with("https://")
}
