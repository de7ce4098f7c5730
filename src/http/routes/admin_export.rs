//! `GET /admin/export[?namespace=NAME]`: the JSON Lines of `kioku export`, streamed as the store
//! is read, a page of threads at a time, so that exporting a large database holds no more than
//! a small one. The client reading slowly slows the reading (the body is read only as it is
//! sent).

use std::net::IpAddr;
use std::sync::Arc;

use actix_web::HttpResponse;
use actix_web::web::{self, Bytes};
use futures_util::stream;
use serde::Deserialize;

use super::fallback::method_not_allowed;
use crate::domain::Namespace;
use crate::http::auth::Admin;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::telemetry::ErrorChain;
use crate::transfer::{self, Export, TransferError};

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
/// a store that fails at once a 503). A store failure after that cannot change the status: the
/// body ends without its last chunk, which clients report as a cut transfer, and the log says
/// why.
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
    let mut export = Export::new(Arc::clone(&app.store), namespaces);
    let first = export.next_line().await?;
    if let Some(ns) = &named
        && first.is_none()
    {
        return Err(ApiError::UnknownNamespace(ns.label().to_owned()));
    }
    let audited = Audited {
        export,
        remote_ip: admin.client,
        namespace: named
            .as_ref()
            .map_or("(every namespace)", Namespace::label)
            .to_owned(),
        outcome: "client gone",
    };
    let body = stream::unfold(Some((audited, first)), |sending| async move {
        let (mut audited, first) = sending?;
        let next = match first {
            Some(line) => Ok(Some(line)),
            None => audited.export.next_line().await,
        };
        match next {
            Ok(Some(line)) => Some((Ok(Bytes::from(line)), Some((audited, None)))),
            Ok(None) => {
                audited.outcome = "complete";
                None
            }
            Err(err) => {
                tracing::error!(
                    error = %ErrorChain(&err),
                    "an export failed after it began; the client gets a cut transfer"
                );
                audited.outcome = "failed";
                Some((Err::<Bytes, TransferError>(err), None))
            }
        }
    });
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .streaming(body))
}

/// An export being sent. Its audit line is written when it ends, with what was sent: whole, cut
/// by a store failure, or cut because the client went away (the body is dropped then).
struct Audited {
    export: Export,
    remote_ip: IpAddr,
    namespace: String,
    outcome: &'static str,
}

impl Drop for Audited {
    fn drop(&mut self) {
        let written = self.export.written();
        tracing::info!(
            audit = true,
            remote_ip = %self.remote_ip,
            action = "export",
            namespace = self.namespace,
            outcome = self.outcome,
            threads = written.threads,
            entries = written.entries,
            profile_versions = written.profile_versions,
            "an operator exported memories"
        );
    }
}
