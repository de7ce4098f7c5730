//! `/admin`, for operators with curl: list, export and delete namespaces. Only admin tokens
//! reach it, and it is not in the GPT's schema.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use crate::auth::Admin;
use crate::domain::{Namespace, ValidationError};
use crate::error::ApiError;
use crate::startup::AppState;
use crate::store::NamespaceStats;
use crate::transfer;

use super::strict_query::StrictQuery;

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
    let namespaces = match name {
        Some(name) => vec![namespace(name)?],
        None => transfer::namespaces(app.store.as_ref(), None).await?,
    };
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
    let ns = namespace(&name)?;
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

fn namespace(name: &str) -> Result<Namespace, ApiError> {
    Namespace::named(name).map_err(|_| {
        ValidationError::InvalidFilter {
            name: "namespace",
            expected: "a namespace name as GET /admin/namespaces lists it",
        }
        .into()
    })
}
