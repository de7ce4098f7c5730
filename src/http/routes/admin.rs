//! `/admin`, for operators with curl: list, export and delete namespaces. Only admin tokens
//! reach it, and it is not in the GPT's schema. Every action writes an audit line; a bare
//! token's namespace is named by its label, since URLs land in request logs.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::fallback::method_not_allowed;
use crate::domain::Namespace;
use crate::http::auth::Admin;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::store::NamespaceStats;
use crate::transfer::{self, Exported};

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/admin")
            .configure(super::admin_oauth::register)
            .service(
                web::resource("/namespaces")
                    .route(web::get().to(namespaces))
                    .default_service(method_not_allowed("GET")),
            )
            .service(
                web::resource("/namespaces/{name}")
                    .route(web::delete().to(delete_namespace))
                    .default_service(method_not_allowed("DELETE")),
            )
            .service(
                web::resource("/export")
                    .route(web::get().to(export))
                    .default_service(method_not_allowed("GET")),
            ),
    );
}

#[derive(Serialize)]
struct NamespaceView {
    name: String,
    /// What to name it by in admin URLs: a bare token's `bare-token-N`, or else its name.
    label: String,
    threads: u64,
    entries: u64,
    last_saved: Option<String>,
}

impl NamespaceView {
    fn new(stats: NamespaceStats, admin: &Admin) -> Self {
        Self {
            label: admin.label(&stats.name),
            name: stats.name,
            threads: stats.counts.threads,
            entries: stats.counts.entries,
            last_saved: stats.last_saved,
        }
    }
}

/// `GET /admin/namespaces`: each namespace holding memories, with its counts.
pub async fn namespaces(admin: Admin, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let namespaces: Vec<NamespaceView> = app
        .store
        .namespaces()
        .await?
        .into_iter()
        .map(|stats| NamespaceView::new(stats, &admin))
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "namespaces": namespaces })))
}

#[derive(Deserialize)]
pub struct ExportRequest {
    namespace: Option<String>,
}

/// `GET /admin/export[?namespace=NAME]`: the JSON Lines of `kioku export`.
pub async fn export(
    admin: Admin,
    StrictQuery(req): StrictQuery<ExportRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let named = match req.namespace.as_deref().filter(|n| !n.is_empty()) {
        Some(requested) => Some(admin.namespace(requested)?),
        None => None,
    };
    let namespaces = match &named {
        Some(ns) => vec![ns.clone()],
        None => transfer::namespaces(app.store.as_ref(), None).await?,
    };
    let mut body = Vec::new();
    let written = transfer::export(app.store.as_ref(), &namespaces, &mut body).await?;
    if let Some(ns) = &named
        && written == Exported::default()
    {
        return Err(ApiError::UnknownNamespace(ns.label().to_owned()));
    }
    tracing::info!(
        audit = true,
        remote_ip = %admin.client,
        action = "export",
        namespace = named.as_ref().map_or("(every namespace)", Namespace::label),
        threads = written.threads,
        entries = written.entries,
        profile_versions = written.profile_versions,
        "an operator exported memories"
    );
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .body(body))
}

/// `DELETE /admin/namespaces/{name}`: forgets every thread of the namespace.
pub async fn delete_namespace(
    admin: Admin,
    name: web::Path<String>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let ns = admin.namespace(&name)?;
    let deleted = app.store.delete_namespace(&ns).await?;
    if deleted.threads == 0 {
        return Err(ApiError::UnknownNamespace(ns.label().to_owned()));
    }
    tracing::info!(
        audit = true,
        remote_ip = %admin.client,
        action = "delete namespace",
        namespace = ns.label(),
        threads = deleted.threads,
        entries = deleted.entries,
        "an operator deleted a namespace"
    );
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "status": "deleted",
        "namespace": ns.label(),
        "threads": deleted.threads,
        "entries": deleted.entries,
    })))
}
