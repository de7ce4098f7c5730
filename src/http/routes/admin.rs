//! `/admin`, for operators with curl: list, export and delete namespaces. Only admin tokens
//! reach it, and it is not in the GPT's schema.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::fallback::method_not_allowed;
use crate::domain::Namespace;
use crate::http::auth::Admin;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::store::NamespaceStats;
use crate::transfer;

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
    threads: u64,
    entries: u64,
    last_saved: Option<String>,
}

impl From<NamespaceStats> for NamespaceView {
    fn from(stats: NamespaceStats) -> Self {
        Self {
            name: stats.name,
            threads: stats.counts.threads,
            entries: stats.counts.entries,
            last_saved: stats.last_saved,
        }
    }
}

/// `GET /admin/namespaces`: each namespace holding memories, with its counts.
pub async fn namespaces(_: Admin, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let namespaces: Vec<NamespaceView> = app
        .store
        .namespaces()
        .await?
        .into_iter()
        .map(NamespaceView::from)
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "namespaces": namespaces })))
}

#[derive(Deserialize)]
pub struct ExportRequest {
    namespace: Option<String>,
}

/// `GET /admin/export[?namespace=NAME]`: the JSON Lines of `kioku export`.
pub async fn export(
    _: Admin,
    StrictQuery(req): StrictQuery<ExportRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let name = req.namespace.as_deref().filter(|n| !n.is_empty());
    let namespaces = transfer::namespaces(app.store.as_ref(), name).await?;
    let mut body = Vec::new();
    let written = transfer::export(app.store.as_ref(), &namespaces, &mut body).await?;
    if let (Some(name), 0) = (name, written.threads) {
        return Err(ApiError::UnknownNamespace(name.to_owned()));
    }
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .body(body))
}

/// `DELETE /admin/namespaces/{name}`: forgets every thread of the namespace.
pub async fn delete_namespace(
    _: Admin,
    name: web::Path<String>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let ns = Namespace::requested(&name)?;
    let deleted = app.store.delete_namespace(&ns).await?;
    if deleted.threads == 0 {
        return Err(ApiError::UnknownNamespace(name.into_inner()));
    }
    tracing::info!(
        threads = deleted.threads,
        entries = deleted.entries,
        "deleted a namespace"
    );
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "status": "deleted",
        "namespace": ns.name(),
        "threads": deleted.threads,
        "entries": deleted.entries,
    })))
}
