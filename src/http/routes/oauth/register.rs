//! `POST /oauth/register`: dynamic client registration (RFC 7591), how MCP clients make
//! themselves known. Anyone may register, so each address may try only so many times a
//! minute (`crate::throttle`).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::domain::Door;
use crate::http::error::{OAuthFailure, unread};
use crate::http::limits::{FORM_BODY_BYTES, read_body};
use crate::http::state::AppState;
use crate::http::state::OAuthOn;
use crate::oauth::client::Registration;
use crate::oauth::{OAuthCode, OAuthError};

pub async fn register(
    OAuthOn(oauth): OAuthOn,
    req: HttpRequest,
    app: web::Data<AppState>,
    body: web::Payload,
) -> Result<HttpResponse, OAuthFailure> {
    let address = app.site.client_address(&req);
    app.gate
        .unsigned_write(address, Door::Register)
        .map_err(OAuthFailure::Throttled)?;
    // Read only once the address may register, and no more than metadata needs.
    let body = read_body(body, FORM_BODY_BYTES)
        .await
        .map_err(|err| unread(OAuthCode::InvalidClientMetadata, &err))?;
    // Section 3.2.2: metadata that cannot be read is invalid metadata.
    let registration: Registration = serde_json::from_slice(&body).map_err(|e| {
        OAuthError::refused(
            OAuthCode::InvalidClientMetadata,
            format!("the body must be a JSON object of client metadata ({e})"),
        )
    })?;
    let registered = oauth.register(registration).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(registered))
}
