//! `GET /admin/export[?namespace=NAME]`: the JSON Lines of `kioku export`, streamed as the store
//! is read, a page of threads at a time.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde::Deserialize;

use super::export_stream::{self, Audit};
use super::fallback::method_not_allowed;
use crate::domain::Namespace;
use crate::http::auth::Admin;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::transfer::{self, Export};

/// Registers under the `/admin` scope.
pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/export")
            .route(web::get().to(export))
            .default_service(method_not_allowed("GET")),
    );
}

#[derive(Deserialize)]
pub struct ExportRequest {
    namespace: Option<String>,
}

/// The status is sent before the body, so what goes wrong is decided early where it can be:
/// the namespaces and the first line are read before answering (an unknown namespace is a 404,
/// a store that fails at once a 503).
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
        None => transfer::namespaces(app.store.as_ref(), None, app.limit).await?,
    };
    let mut export = Export::new(Arc::clone(&app.store), namespaces, app.limit);
    let first = export.next_line().await?;
    if let Some(ns) = &named
        && first.is_none()
    {
        return Err(ApiError::UnknownNamespace(ns.label().to_owned()));
    }
    let audit = Audit {
        remote_ip: admin.client,
        namespace: named
            .as_ref()
            .map_or("(every namespace)", Namespace::label)
            .to_owned(),
        by: "operator",
    };
    Ok(export_stream::streamed(export, first, audit))
}
