//! `POST /oauth/register`: dynamic client registration (RFC 7591), how MCP clients make
//! themselves known.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use super::OAuthOn;
use crate::http::error::OAuthFailure;
use crate::oauth::client::{self, Registration};
use crate::oauth::{ErrorCode, OAuthError};

pub async fn register(
    OAuthOn(oauth): OAuthOn,
    body: web::Bytes,
) -> Result<HttpResponse, OAuthFailure> {
    // Section 3.2.2: metadata that cannot be read is invalid metadata.
    let registration: Registration = serde_json::from_slice(&body).map_err(|e| {
        OAuthError::refused(
            ErrorCode::InvalidClientMetadata,
            format!("the body must be a JSON object of client metadata ({e})"),
        )
    })?;
    let registered = client::register(oauth.store(), registration).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(registered))
}
