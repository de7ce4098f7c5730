//! `GET /oauth/callback`: the person is back from the OpenID Provider; in the browser that
//! began the sign-in, they go on to the app with a code, or into the memory page.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::Deserialize;

use super::app::enter;
use super::language;
use super::respond::{add_cookie, see_other, sign_in_notice as notice};
use crate::error_chain::ErrorChain;
use crate::http::cookies::Jar;
use crate::http::error::retry_after;
use crate::http::state::AppState;
use crate::http::state::OAuthOn;
use crate::oauth::{Finished, OAuthError};

/// The provider's answer (RFC 6749, sections 4.1.2 and 4.1.2.1).
#[derive(Deserialize)]
pub struct Callback {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
}

pub async fn callback(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    query: web::Query<Callback>,
    app: web::Data<AppState>,
) -> HttpResponse {
    let t = language(&req, None);
    let state = query.state.as_deref().unwrap_or_default();
    let jar = Jar::of(&req, &app);
    if !jar.sign_in_matches(state) {
        return notice(t, StatusCode::BAD_REQUEST, t.form_expired);
    }
    let code = match (&query.code, &query.error) {
        (Some(code), None) => Ok(code.as_str()),
        (_, error) => Err(error.as_deref().unwrap_or("invalid_request")),
    };
    let asker = app.document_asker(&req);
    let mut answer = match oauth.finish_sign_in(state, code, &asker).await {
        Ok(Finished::Redirect(to)) => see_other(&to),
        Ok(Finished::Page(who)) => enter(&req, &app, t, &who.namespace, None)
            .await
            .unwrap_or_else(|stopped| stopped.error_response()),
        Ok(Finished::Shown(why)) => notice(t, StatusCode::BAD_REQUEST, &why),
        Err(OAuthError::Throttled { wait, .. }) => retry_after(
            notice(t, StatusCode::TOO_MANY_REQUESTS, t.too_many_approvals),
            wait,
        ),
        Err(err) => {
            tracing::error!(error = %ErrorChain(&err), "a sign-in at the OpenID Provider failed");
            let status = match err {
                OAuthError::Upstream(_) => StatusCode::BAD_GATEWAY,
                _ => StatusCode::SERVICE_UNAVAILABLE,
            };
            notice(t, status, t.sign_in_failed)
        }
    };
    add_cookie(&mut answer, jar.sign_in_cleared());
    answer
}
