//! `GET /app/export`: the person's own memory as the JSON Lines `kioku import` reads, streamed
//! like the operator's export.

use std::sync::Arc;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use super::error::{OrUnavailable, PageError};
use super::visit::Visit;
use crate::http::routes::export_stream::{self, Audit};
use crate::http::state::AppState;
use crate::transfer::Export;

pub(super) async fn export(
    req: HttpRequest,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let visit = Visit::of(&req, &app).await?;
    let ns = visit.session.namespace.clone();
    let mut export = Export::new(Arc::clone(&app.store), vec![ns.clone()], app.limit);
    let first = export.next_line().await.or_unavailable(visit.t)?;
    let audit = Audit {
        remote_ip: app.site.client_address(&req),
        namespace: ns.label().to_owned(),
        by: "person",
    };
    let mut answer = export_stream::streamed(export, first, audit);
    answer.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        header::HeaderValue::from_static("attachment; filename=\"kioku-export.jsonl\""),
    );
    Ok(answer)
}
