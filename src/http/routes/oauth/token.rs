//! `POST /oauth/token` and `POST /oauth/revoke`: form-encoded requests from a client, which
//! authenticates with HTTP Basic or in the form (RFC 6749, section 2.3.1).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::http::error::{OAuthFailure, unread};
use crate::http::limits::{FORM_BODY_BYTES, read_body};
use crate::http::state::{AppState, OAuthOn};
use crate::oauth::{BasicCredentials, OAuthCode, OAuthError, TokenParams};

pub async fn token(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, OAuthFailure> {
    let params: TokenParams = form(&req, body).await?;
    let answer = oauth.token(params, basic(&req)?).await;
    // A guess costs the address, as a wrong API token does at the other doors; a flood gets 429.
    if let Err(OAuthError::UnknownRefreshToken) = &answer {
        let address = app.site.client_address(&req);
        app.gate
            .guessed_refresh(address)
            .map_err(OAuthFailure::Guessing)?;
    }
    let answer = answer?;
    // Section 5.1: a response holding tokens is never cached.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"))
        .json(answer))
}

/// RFC 7009, section 2.1.
#[derive(Deserialize)]
struct RevokeParams {
    token: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
}

pub async fn revoke(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, OAuthFailure> {
    let params: RevokeParams = form(&req, body).await?;
    let Some(token) = params.token else {
        return Err(OAuthError::refused(OAuthCode::InvalidRequest, "token is missing").into());
    };
    oauth
        .revoke(
            &token,
            params.client_id.as_deref(),
            params.client_secret.as_deref(),
            basic(&req)?,
        )
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

/// The form body; each parameter at most once (RFC 6749, section 3.2), unknown ones ignored.
async fn form<T: DeserializeOwned>(
    req: &HttpRequest,
    body: web::Payload,
) -> Result<T, OAuthFailure> {
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Err(OAuthError::refused(
            OAuthCode::InvalidRequest,
            "send the parameters as application/x-www-form-urlencoded",
        )
        .into());
    }
    let body = read_body(body, FORM_BODY_BYTES)
        .await
        .map_err(|err| unread(OAuthCode::InvalidRequest, &err))?;
    // The error names the field, never a value.
    serde_urlencoded::from_bytes(&body).map_err(|e| {
        OAuthError::refused(
            OAuthCode::InvalidRequest,
            format!("the form could not be read: {e}; send each parameter once"),
        )
        .into()
    })
}

/// The client's credentials from `Authorization: Basic`, each part form-decoded (section
/// 2.3.1); `None` without that header.
fn basic(req: &HttpRequest) -> Result<Option<BasicCredentials>, OAuthError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = || {
        OAuthError::refused(
            OAuthCode::InvalidClient,
            "the Authorization header must be Basic base64(client_id:client_secret)",
        )
    };
    let value = value.to_str().map_err(|_| malformed())?;
    let (scheme, encoded) = value.split_once(' ').ok_or_else(malformed)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(malformed());
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    let unescape = |part: &str| form_decoded(part).ok_or_else(malformed);
    Ok(Some(BasicCredentials {
        id: unescape(id)?,
        secret: unescape(secret)?,
    }))
}

/// One form-encoded value, decoded.
fn form_decoded(part: &str) -> Option<String> {
    let mut pairs = url::form_urlencoded::parse(part.as_bytes());
    match (pairs.next(), pairs.next()) {
        (Some((value, rest)), None) if rest.is_empty() => Some(value.into_owned()),
        _ => None,
    }
}
