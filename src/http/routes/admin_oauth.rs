//! `/admin/oauth` and a namespace's grants: operators add clients (a GPT Action's), add the
//! redirect URI the GPT editor shows once the action is saved, and see and revoke grants.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::fallback::method_not_allowed;
use crate::domain::ValidationError;
use crate::http::auth::Admin;
use crate::http::error::{ApiError, OAuthFailure};
use crate::http::state::OAuthOn;
use crate::http::strict_query::StrictQuery;
use crate::memory::MemoryError;
use crate::oauth::client;
use crate::store::{Client, Grant};

/// Registers under the `/admin` scope.
pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/oauth/clients")
            .route(web::get().to(clients))
            .route(web::post().to(add_client))
            .default_service(method_not_allowed("GET, POST")),
    )
    .service(
        web::resource("/oauth/clients/{id}/redirect_uris")
            .route(web::post().to(add_redirect_uri))
            .default_service(method_not_allowed("POST")),
    )
    .service(
        web::resource("/namespaces/{name}/grants")
            .route(web::get().to(grants))
            .default_service(method_not_allowed("GET")),
    )
    .service(
        web::resource("/oauth/grants/{id}")
            .route(web::delete().to(revoke_grant))
            .default_service(method_not_allowed("DELETE")),
    );
}

/// A client as an operator sees it: never its secret.
#[derive(Serialize)]
struct ClientView {
    client_id: String,
    name: String,
    redirect_uris: Vec<String>,
    confidential: bool,
    registered: bool,
    created_at: DateTime<Utc>,
    /// When a client that registered itself goes if nobody completes a grant for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<DateTime<Utc>>,
}

impl From<Client> for ClientView {
    fn from(client: Client) -> Self {
        Self {
            confidential: client.secret_digest.is_some(),
            client_id: client.id,
            name: client.name,
            redirect_uris: client.redirect_uris,
            registered: client.registered,
            created_at: client.created_at,
            expires_at: client.expires_at,
        }
    }
}

#[derive(Serialize)]
struct GrantView {
    id: String,
    client_id: String,
    signed_in_with: String,
    resource: Option<String>,
    created_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
}

impl From<Grant> for GrantView {
    fn from(grant: Grant) -> Self {
        Self {
            id: grant.id,
            client_id: grant.client_id,
            signed_in_with: grant.signed_in_with,
            resource: grant.resource,
            created_at: grant.created_at,
            expires_at: grant.expires_at,
        }
    }
}

/// A page of clients: after the client id `after`, `limit` of them.
#[derive(Deserialize)]
struct ClientsPage {
    after: Option<String>,
    limit: Option<u32>,
}

/// Clients listed at once when the request does not say, and at most (the refusal of
/// another `limit` writes it out).
const CLIENTS_PER_PAGE: u32 = 100;
const MAX_CLIENTS_PER_PAGE: u32 = 1000;

/// `GET /admin/oauth/clients[?after=ID&limit=N]`: a page of clients by id, and the `after` of
/// the next page while there may be one.
async fn clients(
    _: Admin,
    OAuthOn(oauth): OAuthOn,
    StrictQuery(page): StrictQuery<ClientsPage>,
) -> Result<HttpResponse, ApiError> {
    let invalid = |name, expected| {
        ApiError::from(MemoryError::from(ValidationError::InvalidFilter {
            name,
            expected,
        }))
    };
    let limit = page.limit.unwrap_or(CLIENTS_PER_PAGE);
    if !(1..=MAX_CLIENTS_PER_PAGE).contains(&limit) {
        return Err(invalid("limit", "1 to 1000"));
    }
    let after = page.after.as_deref().filter(|after| !after.is_empty());
    if after.is_some_and(|after| !client::is_issued_id(after)) {
        return Err(invalid("after", "a client_id, as next_after gives it"));
    }
    let clients = oauth.clients(after, limit).await?;
    let next_after = (clients.len() == limit as usize)
        .then(|| clients.last().map(|client| client.id.clone()))
        .flatten();
    let clients: Vec<ClientView> = clients.into_iter().map(ClientView::from).collect();
    Ok(
        HttpResponse::Ok()
            .json(serde_json::json!({ "clients": clients, "next_after": next_after })),
    )
}

#[derive(Deserialize)]
struct NewClient {
    name: String,
    redirect_uris: Vec<String>,
}

/// `POST /admin/oauth/clients` `{"name", "redirect_uris"}`: a confidential client; its secret
/// is in this answer and nowhere else.
async fn add_client(
    admin: Admin,
    OAuthOn(oauth): OAuthOn,
    body: web::Json<NewClient>,
) -> Result<HttpResponse, actix_web::Error> {
    let NewClient {
        name,
        redirect_uris,
    } = body.into_inner();
    let added = (oauth.add_client(&name, redirect_uris).await).map_err(OAuthFailure::OAuth)?;
    tracing::info!(
        audit = true,
        remote_ip = %admin.client,
        action = "add OAuth client",
        client_id = added.client_id(),
        "an operator added an OAuth client"
    );
    Ok(HttpResponse::Created()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(added))
}

#[derive(Deserialize)]
struct NewRedirectUri {
    redirect_uri: String,
}

/// `POST /admin/oauth/clients/{id}/redirect_uris` `{"redirect_uri"}`.
async fn add_redirect_uri(
    admin: Admin,
    OAuthOn(oauth): OAuthOn,
    id: web::Path<String>,
    body: web::Json<NewRedirectUri>,
) -> Result<HttpResponse, actix_web::Error> {
    let client =
        (oauth.add_redirect_uri(&id, &body.redirect_uri).await).map_err(OAuthFailure::OAuth)?;
    tracing::info!(
        audit = true,
        remote_ip = %admin.client,
        action = "add redirect URI",
        client_id = client.id.as_str(),
        redirect_uri = body.redirect_uri.as_str(),
        "an operator added a redirect URI to an OAuth client"
    );
    Ok(HttpResponse::Ok().json(ClientView::from(client)))
}

/// `GET /admin/namespaces/{name}/grants`: the apps connected to the namespace.
async fn grants(
    admin: Admin,
    OAuthOn(oauth): OAuthOn,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let ns = admin.namespace(&name)?;
    let grants = oauth.grants_of(&ns).await?;
    let grants: Vec<GrantView> = grants.into_iter().map(GrantView::from).collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "grants": grants })))
}

/// `DELETE /admin/oauth/grants/{id}`: the grant and every token issued under it.
async fn revoke_grant(
    admin: Admin,
    OAuthOn(oauth): OAuthOn,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    if !oauth.revoke_grant(&id).await? {
        return Err(ApiError::NotFound);
    }
    tracing::info!(
        audit = true,
        remote_ip = %admin.client,
        action = "revoke grant",
        grant_id = id.as_str(),
        "an operator revoked an OAuth grant"
    );
    Ok(HttpResponse::Ok().json(serde_json::json!({ "status": "revoked", "grant": id.as_str() })))
}
