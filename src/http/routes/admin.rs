//! `/admin`, for operators with curl: list, export (`admin_export`) and delete namespaces. Only
//! admin tokens reach it, and it is not in the GPT's schema. Every action writes an audit line;
//! a bare token's namespace is named by its label, since URLs land in request logs.

use actix_web::{HttpResponse, web};
use serde::Serialize;

use super::fallback::method_not_allowed;
use crate::http::auth::Admin;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::store::NamespaceStats;

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
            .configure(super::admin_export::register),
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
        .memory
        .namespaces()
        .await?
        .into_iter()
        .map(|stats| NamespaceView::new(stats, &admin))
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "namespaces": namespaces })))
}

/// `DELETE /admin/namespaces/{name}`: forgets every thread of the namespace.
pub async fn delete_namespace(
    admin: Admin,
    name: web::Path<String>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let ns = admin.namespace(&name)?;
    let deleted = app.memory.delete_namespace(&ns).await?;
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
